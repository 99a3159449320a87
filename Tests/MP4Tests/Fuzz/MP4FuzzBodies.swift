// The body of the MP4 libFuzzer target (Tests/Fuzz, target mp4_read) and its seeds. This file
// compiles twice: into the fuzz binary (Tests/Fuzz/run.sh links it with the library modules and
// the other targets' bodies; Tests/Fuzz/Targets/Entry.swift adds these targets to
// FuzzBodies.targets), and into MP4Tests, where MP4FuzzRegressionTests replays every kept crasher
// through the same function.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import H264
import MP4
#if canImport(TestSupport)
import TestSupport  // FuzzProperty; the fuzz binary compiles its file in
#endif

/// The MP4 fuzz targets, by the names `Tests/Fuzz/run.sh` and `Tests/Fuzz/Regressions/<name>` use.
enum MP4FuzzBodies {
    static let targets: [String: @Sendable ([UInt8]) -> Void] = [
        "mp4_read": read,
        "mp4_fragment": fragment,
        "hls_segment": segment,
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
    /// The options the first input byte selects for the segmenting targets: where segments
    /// start, what a format change makes, the composition times, and small duration and byte
    /// bounds so that short inputs reach every cut.
    static func fragmentOptions(_ selector: UInt8, timescale: Int64) -> MP4FragmentWriter.Options {
        let cutting: [MP4FragmentWriter.Options.Cutting] = [.atSyncSamples, .atRandomAccessPoints, .anySample]
        let changes: [MP4FragmentWriter.Options.ParameterSetChanges] = [.inBandWherePossible, .newInitializationSegment, .inBand]
        let step = Duration.milliseconds(40)  // a frame at 25 fps
        var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: step * Int(1 + selector & 3),
                                          cutting: cutting[Int(selector >> 2 & 3) % 3],
                                          parameterSetChanges: changes[Int(selector >> 4 & 3) % 3])
        o.compositionTimes = selector & 0x40 == 0 ? .negativeOffsets : .editList
        o.writesSegmentIndex = selector & 0x80 != 0
        o.maximumSegmentDuration = step * 6
        o.maximumFragmentDuration = step * 2
        o.maximumFragmentBytes = 2048
        return o
    }

    /// The samples of an Annex-B stream as the library's converter makes them, each given to
    /// `body` with its description; decoding times jittered by the input's bytes (never going
    /// back), as encoders' rounding and network senders leave them.
    final class SampleTap: MP4SampleWriting {
        let body: (MP4Sample, MP4SampleDescription) throws(MP4Error) -> Void
        let jitter: [UInt8]
        var count = 0
        var lastDecodeTime = Int64.min
        init(jitter: [UInt8], _ body: @escaping (MP4Sample, MP4SampleDescription) throws(MP4Error) -> Void) {
            self.jitter = jitter
            self.body = body
        }
        func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
            var s = sample
            if !jitter.isEmpty {
                let j = Int64(jitter[count % jitter.count] & 7) - 3
                s.decodeTime = max(lastDecodeTime, s.decodeTime &+ j)
                s.presentationTime = max(s.decodeTime, s.presentationTime &+ j)
            }
            lastDecodeTime = s.decodeTime
            count &+= 1
            try body(s, description)
        }
        func finish() throws(MP4Error) {}
    }

    /// Runs the library's converter over the input's stream (after the selector byte) into
    /// `make`'s tap.
    static func convert(_ data: [UInt8], _ make: @escaping (Int64) -> SampleTap?) {
        guard data.count > 1 else { return }
        var tap: SampleTap?
        var converter = MP4AnnexBRecorder { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            guard let made = make(timescale) else { throw MP4Error(.invalidArgument, "no writer") }
            tap = made
            return made
        }
        _ = try? converter.append(data[1...])
        _ = try? converter.finish()
        _ = tap
    }

    /// The fragment writer on any stream: never more held than its byte bound (or one sample),
    /// pieces that read back as one file with every sample kept, independent segments that start
    /// with an IDR access unit, and an output bounded by the input.
    static func fragment(_ data: [UInt8]) {
        let selector = data.first ?? 0
        var pieces: [MP4Segment] = []
        var writer: MP4FragmentWriter?
        var sampleBytes = 0
        var samples = 0
        var largest = 0
        var records = 0
        convert(data) { timescale in
            guard let w = try? MP4FragmentWriter(options: fragmentOptions(selector, timescale: timescale)) else { return nil }
            writer = w
            return SampleTap(jitter: Array(data.suffix(7))) { (sample, description) throws(MP4Error) in
                guard var w = writer else { return }
                let before = w.droppedLeadingSampleCount
                defer { writer = w }
                pieces += try w.append(sample, description: description)
                if w.droppedLeadingSampleCount == before {
                    sampleBytes &+= sample.data.count
                    samples &+= 1
                    largest = max(largest, sample.data.count)
                    records = max(records, description.decoderConfiguration?.parameterSets.reduce(0) { $0 &+ $1.count &+ 4 } ?? 0)
                }
                check(w.heldBytes <= max(w.options.maximumFragmentBytes, largest &+ 48 &+ records),
                      "\(w.heldBytes) bytes held, bound \(w.options.maximumFragmentBytes)")
            }
        }
        guard var w = writer else { return }
        guard let last = try? w.finish() else { return }  // noStartPoint: nothing was written
        pieces += last
        // Bounded output: the samples, the parameter sets carried in band (at most one record
        // per sample), 16 bytes per sample in trun, a few hundred per fragment and init segment.
        let total = pieces.reduce(0) { $0 &+ $1.bytes.count }
        let bound = sampleBytes &+ samples &* (16 &+ records) &+ (pieces.count &+ 1) &* 1024
        check(total <= bound, "\(total) bytes of output for \(sampleBytes) bytes in \(samples) samples")
        check(!pieces.isEmpty || samples == 0, "\(samples) samples kept, nothing written")
        guard samples > 0 else { return }  // the converter made a writer, but no sample came
        for piece in pieces where piece.kind == .media && piece.isIndependent {
            check(piece.startsWithSyncSample, "independent segment \(piece.sequenceNumber) does not start with a sync sample")
        }
        guard let reader = try? MP4Reader(pieces.flatMap(\.bytes)), let track = reader.videoTrack,
              let infos = try? reader.sampleInfos(of: track) else {
            FuzzProperty.violated("the pieces do not read back as a fragmented file")
            return
        }
        check(infos.count == samples, "\(samples) samples kept, \(infos.count) read back")
        if let first = infos.first, let sample = try? reader.sample(first),
           let lengthSize = track.descriptions.first?.decoderConfiguration?.nalUnitLengthSize {
            let access = sample.randomAccess(lengthSize: lengthSize, recoveryPoints: true)
            check(w.options.cutting == .anySample || access != .none, "the first sample cannot start decoding")
        }
    }

    /// The HLS writer on any stream, in a temporary directory with a live window of 3: the
    /// playlist names only segments on disk, at most the window, and the directory holds at
    /// most twice the window of segments.
    static func segment(_ data: [UInt8]) {
        let selector = data.first ?? 0
        var template = Array("/tmp/h264-fuzz-hls-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return }
        let dir = String(cString: made)
        defer { removeDirectory(dir) }
        var hls: HLSSegmentWriter?
        convert(data) { timescale in
            guard let w = try? HLSSegmentWriter(directory: dir, options: fragmentOptions(selector, timescale: timescale), window: 3)
            else { return nil }
            hls = w
            return SampleTap(jitter: Array(data.suffix(5))) { (sample, description) throws(MP4Error) in
                try w.append(sample, description: description)
            }
        }
        guard let hls else { return }
        _ = try? hls.finish()
        let listed = hls.playlist.entries.compactMap { entry -> String? in
            if case .segment(let uri, _) = entry { return uri }
            return nil
        }
        check(listed.count <= 3, "\(listed.count) segments listed with a window of 3")
        for uri in listed { check(access(dir + "/" + uri, F_OK) == 0, "\(uri) is listed but not on disk") }
        let segments = directoryNames(dir).filter { $0.hasSuffix(".m4s") }
        check(segments.count <= 7, "\(segments.count) segment files kept with a window of 3")
    }

    /// The names in a directory.
    static func directoryNames(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a directory of plain files.
    static func removeDirectory(_ dir: String) {
        for name in directoryNames(dir) { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    /// Seeds for a target: MP4 files for `mp4_read`, the streams behind a few option bytes for
    /// the segmenting targets.
    static func seeds(target: String, _ streams: [[UInt8]]) -> [[UInt8]] {
        guard target != "mp4_read" else { return seeds(streams) }
        return streams.flatMap { stream in [0x00, 0x05, 0x19, 0xE6].map { [$0] + stream } }
    }

    /// The streams muxed by the library's writers: a fast-start and a media-first progressive
    /// file, and a fragmented one (a second each), so the reader starts from valid files of
    /// every layout.
    static func seeds(_ streams: [[UInt8]]) -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for stream in streams {
            for layout in 0..<3 {
                let file = MP4MemoryFile()
                var converter = MP4AnnexBRecorder { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
                    switch layout {
                    case 0: return try MP4Writer(file: file, options: .init(timescale: timescale, layout: .fastStart))
                    case 1: return try MP4Writer(file: file, options: .init(timescale: timescale, layout: .mediaFirst))
                    default: return try MP4FragmentedFileWriter(file: file, options: .init(timescale: timescale, targetDuration: .seconds(1)))
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
