import CommandLineSupport
import FLV
import H264
import MP4
import MPEGTS

/// MPEG-TS conversions for `h264 convert`: a transport stream in (its H.264 access units, from
/// the library's `TSParser`) to Annex-B, MP4, FLV or TS; Annex-B, FLV or MP4 in to a transport
/// stream (`TSWriter`). Both go through ``AccessUnitOutput``; this is file plumbing.
enum TSConversion {
    /// True when `path` names a transport stream (`.ts`, `.m2ts`, `.mts`) or its first bytes
    /// are packets: sync bytes 188 (or 192, M2TS) bytes apart, three times.
    static func isTransportStream(_ input: ChunkedInput) throws -> Bool {
        if AccessUnitOutput.Format.isTransportStreamName(input.path) { return true }
        let head = try input.peek(4 + 3 * 192)
        for (offset, size) in [(0, 188), (4, 192)] where head.count >= offset + 2 * size + 1 {
            if head[offset] == 0x47 && head[offset + size] == 0x47 && head[offset + 2 * size] == 0x47 { return true }
        }
        return false
    }

    /// `h264 convert` with a transport stream on either side: true when it handled the
    /// conversion (a TS input, or an output named `.ts`, `.m2ts`, `.mts`, or `--to ts`).
    ///
    /// `input` is the command's: stdin is peeked at (for packets) unless OUT is an MP4, whose
    /// conversion opens stdin itself; what is peeked stays in `input` for the other conversions.
    static func convertIfTransportStream(_ input: ChunkedInput, output: String, to: String?, mode: MP4Recorder.Mode,
                                         timing: TimestampOptions) throws -> Bool {
        let path = input.path
        let toTS = to == "ts" || (to == nil && AccessUnitOutput.Format.isTransportStreamName(output))
        let toMP4 = to == "mp4" || (to == nil && MP4Conversion.isMP4Name(output))
        if (path != "-" || !toMP4), try isTransportStream(input) {
            let format = AccessUnitOutput.Format(path: output)
            let named: String
            switch format {
            case .annexB: named = "annexb"
            case .mp4: named = "mp4"
            case .flv: named = "flv"
            case .transportStream: named = "ts"
            case .hls: throw CLIError("a transport stream converts to .h264, .mp4, .flv or .ts; for HLS use h264 segment")
            }
            if let to, to != named {
                throw CLIError("a transport stream input converts by OUT's name (here \(named)); --to \(to) does not match it")
            }
            try demux(input, to: AccessUnitOutput(path: output, staged: true, mp4Mode: mode, notSameAs: input))
            return true
        }
        guard toTS else { return false }
        guard AccessUnitOutput.Format(path: output) == .transportStream else {
            throw CLIError("--to ts needs OUT ending in .ts, .m2ts or .mts")
        }
        let sink = try AccessUnitOutput(path: output, staged: true, notSameAs: input)
        if MP4Conversion.isMP4(path: path) {
            let (reader, track) = try MP4Conversion.open(path)
            var units = reader.accessUnits(of: track)
            while !Interruption.isRequested, let au = try units.next() { try sink.write(au) }  // SIGINT: finished with what was read
        } else {
            try accessUnits(of: input, timing: timing) { try sink.write($0) }
        }
        // As an MP4 conversion: a stream without a picture is an error, not an empty file.
        guard sink.written > 0 else { throw CLIError("\(path): the stream has no picture to write") }
        try sink.close()
        return true
    }

    /// The access units of an Annex-B or FLV input read in chunks (FLV through its Annex-B,
    /// `FLVStreamParser` and `FLVAnnexBWriter`: the SPS and PPS of the sequence header put
    /// before keyframes that lack them), timed by the core's parser from the VUI (or `timing`'s
    /// frame rate). An interruption ends the input after the last whole NAL unit or tag read.
    /// Problems in the stream are warnings (the first five, then a count).
    static func accessUnits(of input: ChunkedInput, timing: TimestampOptions, _ body: (AccessUnit) throws -> Void) throws {
        let isFLV = FLVConversion.isFLV(try input.peek(4))
        input.framing = isFLV ? .flv : .annexB
        var read: () throws -> ArraySlice<UInt8>? = input.read
        if isFLV {
            var parser = FLVStreamParser()
            var writer = FLVAnnexBWriter()
            var out: [UInt8] = []
            read = {
                while true {
                    if let event = try parser.nextVideoEvent() {
                        out.removeAll(keepingCapacity: true)
                        try writer.add(event, to: &out)
                        if !out.isEmpty { return out[...] }
                    } else if let chunk = try input.read() {
                        parser.append(chunk)
                    } else {
                        try parser.finish()
                        return nil
                    }
                }
            }
        }
        var parser = AccessUnitParser(timing: timing, leadingData: .skip)
        var problems = 0
        var count = 0
        var firstProblem: H264Error?
        try parser.run(read: read, problem: { error in
            problems += 1
            firstProblem = firstProblem ?? error
            if problems <= 5 { Output.error("warning: \(error.code): \(error.reason)") }
        }, body: { au in
            guard !au.flags.hasNoPicture else { return }
            count += 1
            try body(au)
        })
        if problems > 5 { Output.error("warning: \(problems) problems in all") }
        if count == 0, let firstProblem { throw firstProblem }
    }

    /// Reads a transport stream in 1 MiB chunks through `TSParser` into `output`, then says on
    /// stderr what the demuxer met (continuity errors, bytes skipped, access units that may be
    /// damaged). An interruption ends the input after the chunk read; OUT is finished with the
    /// access units it held (a packet cut at the end is dropped).
    /// - Throws: ``CLIError`` when the stream holds no H.264 access unit; the output's errors.
    static func demux(_ input: ChunkedInput, to output: AccessUnitOutput) throws {
        var parser = TSParser(options: .init(programs: .all, passesOtherStreams: false))
        var summary = TSStreamSummary()
        var pid: UInt16?
        var otherStreams = 0
        func drain() throws {
            while let event = parser.next() {
                summary.add(event)
                guard case .accessUnit(let au) = event else { continue }
                // One H.264 stream: the first one met (a second program's video is left out).
                if pid == nil { pid = au.pid }
                guard au.pid == pid else { otherStreams += 1; continue }
                try output.write(au)
            }
        }
        // The chunk read when an interruption comes (a pipe's bytes so far, or the one peeked at)
        // is demuxed too, then the input ends.
        while let chunk = try input.read() {
            parser.append(chunk)
            try drain()
            if Interruption.isRequested { break }
        }
        parser.finish()
        try drain()
        summary.finish(parser)
        guard summary.accessUnits > 0 else {
            throw CLIError("\(input.path): no H.264 access unit in the transport stream "
                           + "(\(summary.statistics.packets) packets, \(summary.programs.count) programs)")
        }
        try output.close()
        let s = summary.statistics
        if s.continuityErrors > 0 || s.skippedBytes > 0 || summary.incompleteAccessUnits > 0 {
            Output.error("warning: \(s.continuityErrors) continuity errors, \(s.skippedBytes) bytes skipped to find sync, "
                         + "\(summary.incompleteAccessUnits) access units that may be damaged (kept)")
        }
        if otherStreams > 0, let pid {
            Output.error("warning: \(otherStreams) access units of other H.264 streams left out (kept PID \(pid))")
        }
    }
}
