// The body of the MP4 libFuzzer target (Tests/Fuzz, target mp4_read) and its seeds. This file
// compiles twice: into the fuzz binary (Tests/Fuzz/run.sh links it with the library modules and
// the other targets' bodies; Tests/Fuzz/Targets/Entry.swift adds these targets to
// FuzzBodies.targets), and into MP4Tests, where MP4FuzzRegressionTests replays every kept crasher
// through the same function.
import H264
import MP4
#if canImport(TestSupport)
import TestSupport  // FuzzProperty; the fuzz binary compiles its file in
#endif

/// The MP4 fuzz targets, by the names `Tests/Fuzz/run.sh` and `Tests/Fuzz/Regressions/<name>` use.
enum MP4FuzzBodies {
    static let targets: [String: @Sendable ([UInt8]) -> Void] = [
        "mp4_read": read,
    ]

    /// Reports a broken promise (``FuzzProperty``) when `condition` is false.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        FuzzProperty.check(condition, message())
    }

    /// Opens the bytes as an MP4 file, lists its boxes, walks every track's samples, reads
    /// them, converts H.264 tracks to Annex-B and to access units, and writes what was read
    /// back through the progressive writer, which must read back the same.
    static func read(_ data: [UInt8]) {
        _ = try? MP4BoxTree.nodes(in: data)
        guard let reader = try? MP4Reader(data) else { return }
        for track in reader.tracks {
            var it = reader.samples(of: track)
            var samples: [(MP4SampleInfo, MP4Sample)] = []
            var steps = 0
            while steps <= data.count {  // the reader bounds samples by the file size; this guards a loop bug
                steps &+= 1
                guard let info = try? it.next() else { break }  // the end, or an error: both end the walk
                check(info.offset <= UInt64(data.count) && UInt64(info.size) <= UInt64(data.count) &- info.offset,
                      "sample \(info.index) lies outside the file")
                check(info.descriptionIndex >= 0 && info.descriptionIndex < track.descriptions.count,
                      "sample \(info.index) has description \(info.descriptionIndex) of \(track.descriptions.count)")
                guard let sample = try? reader.sample(info) else { break }
                check(sample.data.count == info.size, "sample \(info.index) read with another size")
                if let description = track.descriptions.first {
                    _ = try? sample.accessUnit(description: description, index: info.index, timescale: Int64(track.timescale))
                }
                samples.append((info, sample))
            }
            guard track.isH264Video else { continue }
            if let annexB = try? reader.annexB(of: track) {
                // Resource property: start codes for length fields (at most 2.5 times a NAL unit
                // with a 1-byte length), and parameter sets inserted at most the samples' and
                // records' bytes + 256 KiB (start codes for them too: 5 times a 1-byte set).
                let sampleBytes = samples.reduce(0) { $0 &+ $1.1.data.count }
                let bound = 3 &* sampleBytes &+ 5 &* (sampleBytes &+ data.count &+ (256 << 10))
                check(annexB.count <= bound, "\(annexB.count) Annex-B bytes from \(sampleBytes) sample bytes in \(data.count)")
            }
            roundTrip(samples, track: track)
        }
    }

    /// Writes the samples again (a progressive file) and checks that the reader
    /// returns the same bytes, decoding-time steps and sync flags. Samples a writer refuses
    /// (times going back, offsets too large) end the check: that is a correct answer.
    static func roundTrip(_ samples: [(MP4SampleInfo, MP4Sample)], track: MP4Track) {
        guard !samples.isEmpty, track.timescale > 0 else { return }
        let file = MP4MemoryFile()
        let options = MP4Writer.Options(timescale: Int64(track.timescale), repeatsParameterSetsAfterFormatChange: false)
        guard let writer = try? MP4Writer(file: file, options: options) else { return }
        for (info, sample) in samples {
            guard (try? writer.append(sample, description: track.descriptions[info.descriptionIndex])) != nil else { return }
        }
        guard (try? writer.finish()) != nil else { return }
        let written: MP4Reader
        do { written = try MP4Reader(file.bytes) } catch {
            FuzzProperty.violated("written file does not read: \(error)")
            return
        }
        guard let back = written.videoTrack, let infos = try? written.sampleInfos(of: back) else {
            FuzzProperty.violated("written file has no readable track")
            return
        }
        check(infos.count == samples.count, "\(samples.count) samples written, \(infos.count) read")
        for (k, info) in infos.enumerated() {
            let original = samples[k]
            check(info.flags.isSync == original.1.flags.isSync, "sample \(k): sync flag changed")
            check((try? written.sample(info).data.elementsEqual(original.1.data)) == true, "sample \(k): bytes changed")
            if k > 0 {
                check(info.decodeTime - infos[k - 1].decodeTime == original.0.decodeTime - samples[k - 1].0.decodeTime,
                      "sample \(k): decoding time step changed")
            }
        }
    }
}

extension MP4FuzzBodies {
    /// The streams muxed by the library's writers: a fast-start and a media-first progressive
    /// file, and a fragmented one (a second each), so the reader starts from valid files of
    /// every layout.
    static func seeds(_ streams: [[UInt8]]) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for stream in streams {
            for layout in 0..<3 {
                let file = MP4MemoryFile()
                var converter = MP4AnnexBConverter { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
                    switch layout {
                    case 0: return try MP4Writer(file: file, options: .init(timescale: timescale, layout: .fastStart))
                    case 1: return try MP4Writer(file: file, options: .init(timescale: timescale, layout: .mediaFirst))
                    default: return try MP4FragmentedFileWriter(file: file, options: .init(timescale: timescale, targetDuration: timescale))
                    }
                }
                do throws(MP4Error) {
                    try converter.append(stream)
                    _ = try converter.finish()
                    seeds.append(file.bytes)
                } catch {
                    continue  // a stream the muxer refuses (no SPS, a format change in a fragmented file)
                }
            }
        }
        return seeds
    }
}
