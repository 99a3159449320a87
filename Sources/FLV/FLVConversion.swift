import H264

/// Whole conversions between an Annex-B H.264 stream and an FLV file, in memory or streamed.
public enum FLVConversion {
    /// True when `bytes` start with the FLV signature (`FLV`, version 1).
    public static func isFLV<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.starts(with: [0x46, 0x4C, 0x56, 0x01] as [UInt8])
    }

    // MARK: - Annex-B to FLV

    /// Converts an Annex-B stream held in memory to an FLV file: access units per 7.4.1.2.4
    /// with their decode and presentation times (composition time = PTS - DTS for B-frames), a
    /// sequence header whenever the parameter sets a picture uses change (``FLVSampleBuilder``),
    /// `onMetaData` from the SPS and the timestamps, and the end-of-sequence tag.
    /// - Throws: ``FLVError/Code/h264`` with the first error of the stream when it
    ///   has no access unit; the errors of ``FLVSampleBuilder`` and ``FLVWriter``.
    public static func annexBToFLV(_ annexB: [UInt8], timing: TimestampOptions = .init()) throws(FLVError) -> [UInt8] {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], timing: timing, leadingData: .skip)
        if accessUnits.isEmpty, let first = errors.first { throw FLVError.h264(first, "no access unit") }
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        try writer.writeMetadata(FLVMetadataCollector.metadata(for: accessUnits))
        for au in accessUnits where !au.flags.hasNoPicture {
            try writer.write(builder.sample(au))
        }
        try writer.writeEndOfSequence()
        return writer.takeBytes()
    }

    /// Converts an Annex-B stream read in chunks to an FLV file written in chunks, in memory
    /// independent of the stream's length.
    ///
    /// With `rewind` (a file), the stream is read twice: a first pass measures the presentation
    /// delay and the duration, so the output is byte for byte what
    /// ``annexBToFLV(_:timing:)`` makes. Without it (a pipe), one pass: the reorder depth comes
    /// from the SPS, and `onMetaData` has no duration.
    /// - Parameters:
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    ///   - read: the next chunk of the stream, or nil at its end.
    ///   - rewind: starts reading again from the beginning, if the input allows it.
    ///   - write: takes the next bytes of the FLV file.
    /// - Throws: ``FLVError`` as ``annexBToFLV(_:timing:)`` does, and what the closures throw.
    public static func annexBToFLV(timing: TimestampOptions = .init(),
                                   read: () throws -> ArraySlice<UInt8>?, rewind: (() throws -> Void)?,
                                   write: ([UInt8]) throws -> Void) throws {
        var configuration = timing
        var collector = FLVMetadataCollector()
        var firstError: H264Error?
        var pictures = 0
        if let rewind {
            configuration.presentationDelay = 0
            var measuring = AccessUnitParser(timing: configuration, leadingData: .skip)
            try measuring.run(read: read, problem: { firstError = firstError ?? $0 }, body: { au in
                collector.add(au)
                pictures &+= 1  // one per access unit
            })
            if pictures == 0, let firstError { throw FLVError.h264(firstError, "no access unit") }
            configuration.presentationDelay = measuring.requiredPresentationDelay
            try rewind()
        }
        var parser = AccessUnitParser(timing: configuration, leadingData: .skip)
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        var started = false
        var count = 0
        try parser.run(read: read, problem: { firstError = firstError ?? $0 }, body: { au in
            count &+= 1  // one per access unit
            if !started {
                if rewind != nil {
                    try writer.writeMetadata(collector.metadata(presentationDelay: configuration.presentationDelay ?? 0))
                } else {
                    collector.add(au)
                    try writer.writeMetadata(collector.metadata(includesDuration: false))
                }
                started = true
            }
            if !au.flags.hasNoPicture { try writer.write(builder.sample(au)) }
            if writer.bytes.count >= 1 << 20 { try write(writer.takeBytes()) }
        })
        if count == 0, let firstError { throw FLVError.h264(firstError, "no access unit") }
        if !started { try writer.writeMetadata(collector.metadata()) }
        try writer.writeEndOfSequence()
        try write(writer.takeBytes())
    }

    // MARK: - Access units to FLV

    /// Writes timed access units (from any source: an MP4 track, a parser, a depacketiser) as an
    /// FLV file, in memory independent of their number: `onMetaData`, then for each access unit
    /// with a picture a sequence header when the parameter sets it uses are new or changed
    /// (``FLVSampleBuilder``, which also moves every time later when the first DTS is negative)
    /// and its video tag, then the end-of-sequence tag.
    /// - Parameters:
    ///   - metadata: the `onMetaData` values.
    ///   - next: the next access unit, or nil at the end.
    ///   - write: takes the next bytes of the FLV file (about 1 MiB at a time).
    /// - Throws: the errors of ``FLVSampleBuilder`` and ``FLVWriter``, and what the closures throw.
    public static func accessUnitsToFLV(metadata: FLVMetadata, next: () throws -> AccessUnit?,
                                        write: ([UInt8]) throws -> Void) throws {
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        try writer.writeMetadata(metadata)
        while let au = try next() {
            if !au.flags.hasNoPicture { try writer.write(builder.sample(au)) }
            if writer.bytes.count >= 1 << 20 { try write(writer.takeBytes()) }
        }
        try writer.writeEndOfSequence()
        try write(writer.takeBytes())
    }


    // MARK: - FLV to Annex-B

    /// Converts the H.264 video of an FLV file held in memory to an Annex-B stream
    /// (``FLVAnnexBWriter``: the SPS and PPS a keyframe uses inserted before it when it lacks
    /// them).
    /// - Throws: the errors of ``FLVReader`` and ``FLVAnnexBWriter``.
    public static func flvToAnnexB(_ flv: [UInt8]) throws(FLVError) -> [UInt8] {
        var reader = try FLVReader(flv)
        var writer = FLVAnnexBWriter()
        var out: [UInt8] = []
        out.reserveCapacity(flv.count)
        while let event = try reader.nextVideoEvent() { try writer.add(event, to: &out) }
        return out
    }

    /// Converts an FLV file read in chunks to an Annex-B stream written in chunks, in memory
    /// independent of the file's length (one tag at a time).
    /// - Throws: ``FLVError`` as ``flvToAnnexB(_:)`` does (``FLVError/Code/truncated`` for a
    ///   file that ends inside a tag), and what the closures throw.
    public static func flvToAnnexB(read: () throws -> ArraySlice<UInt8>?, write: ([UInt8]) throws -> Void) throws {
        var reader = FLVStreamParser()
        var writer = FLVAnnexBWriter()
        var out: [UInt8] = []
        while let chunk = try read() {
            reader.append(chunk)
            while let event = try reader.nextVideoEvent() { try writer.add(event, to: &out) }
            if out.count >= 1 << 20 {
                try write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try reader.finish()
        try write(out)
    }
}
