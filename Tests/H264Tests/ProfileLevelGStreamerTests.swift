import Foundation
import Synchronization
import H264
import H264Fixtures
import Testing
import TestSupport

/// Our profile and level against GStreamer's `h264parse` caps (`profile=`, `level=`) on every
/// fixture and corpus Annex-B stream.
@Suite(.enabled(if: Support.gstLaunch(with: ["filesrc", "h264parse", "fakesink"]) != nil,
                "needs gst-launch-1.0 with filesrc, h264parse and fakesink"))
struct ProfileLevelGStreamerTests {
    /// GStreamer's profile names are ours in lowercase with dashes; "High 4:4:4 Predictive"
    /// is "high-4:4:4" to it.
    static func gstreamerName(_ pl: ProfileLevel) -> String {
        pl.profileName.replacingOccurrences(of: " Predictive", with: "").lowercased().replacingOccurrences(of: " ", with: "-")
    }

    /// Streams where GStreamer's caps are not those of the stream's first SPS, with the reason.
    static let knownDisagreements: [String: String] = [
        "openh264/sps_subsetsps_bothVUI.264": """
            an SVC stream: h264parse announces its subset SPS (Scalable Baseline, level 1.3); the codec \
            string is the base layer's SPS (Constrained Baseline 1.1), which a decoder without SVC uses and \
            FFmpeg reports
            """,
    ]

    /// `profile` and `level` of the first caps `h264parse` announces for each file, by path,
    /// and for each file whose `gst-launch-1.0` could not run, why: one process per file (a
    /// pipeline of several branches stops at the first branch's error), four at a time.
    static func gstreamerCaps(_ paths: [String]) throws
        -> (caps: [String: (profile: String, level: String)], failures: [String: String]) {
        let launch = try #require(Support.gstLaunch(with: ["filesrc", "h264parse", "fakesink"]))
        let results = Mutex<[String: (profile: String, level: String)]>([:])
        let failures = Mutex<[String: String]>([:])
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        for path in paths {
            queue.addOperation {
                let r: Support.ProcessResult
                do {
                    r = try Support.run(launch, ["-v", "filesrc", "location=\(path)", "!", "h264parse", "!", "fakesink"], timeout: 60)
                } catch {
                    failures.withLock { $0[path] = "\(error)" }
                    return
                }
                for line in r.output.split(separator: "\n") where line.contains("GstPad:src: caps = video/x-h264") {
                    guard let profile = line.firstMatch(of: /profile=\(string\)([a-z0-9:-]+)/),
                          let level = line.firstMatch(of: /level=\(string\)([0-9.b]+)/) else { continue }
                    results.withLock { $0[path] = (String(profile.1), String(level.1)) }
                    break
                }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        return (results.withLock { $0 }, failures.withLock { $0 })
    }

    @Test func fixturesAndCorpusAgreeWithGStreamer() throws {
        var streams: [(name: String, path: String)] = Fixture.all
            .filter { $0.facts.kind == .annexB && $0 != .missingPPS }
            .map { ($0.fileName, $0.url.path) }
        streams += Corpus.annexBStreams.map { ($0, Corpus.path($0)) }
        let (caps, failures) = try Self.gstreamerCaps(streams.map(\.path))
        var compared = 0
        for (name, path) in streams {
            let units = try AnnexB.split(Support.readFile(path)[...], leadingData: .skip)
            guard let sps = units.first(where: { $0.type == .sps }) else { continue }
            let pl = try ProfileLevel(sps: sps)
            guard let theirs = caps[path] else {
                Issue.record("\(name): GStreamer announced no caps\(failures[path].map { " (gst-launch-1.0: \($0))" } ?? "")")
                continue
            }
            if let reason = Self.knownDisagreements[name] {
                #expect(theirs.profile != Self.gstreamerName(pl) || theirs.level != pl.level.name, "\(name) agrees now: \(reason)")
                continue
            }
            #expect(theirs.profile == Self.gstreamerName(pl), "\(name): GStreamer \(theirs.profile), ours \(pl.profileName)")
            #expect(theirs.level == pl.level.name, "\(name): GStreamer level \(theirs.level), ours \(pl.level)")
            compared += 1
        }
        #expect(compared >= (Corpus.isPresent ? 100 : 20))
    }
}
