import H264
import MediaSupport

/// Parses a `trak` box into an ``MP4Track``.
enum TrackParser {
    /// - Parameters:
    ///   - trak: the `trak` payload.
    ///   - movieTimescale: `mvhd`'s timescale, for the edit list's durations.
    ///   - fileSize: bounds the sample count.
    static func track(_ trak: ArraySlice<UInt8>, movieTimescale: UInt32, fileSize: UInt64) throws(MP4Error) -> MP4Track {
        guard let tkhd = try BoxIterator.first(.tkhd, in: trak) else { throw MP4Error.invalid(.missingBox, "trak without tkhd") }
        guard let mdia = try BoxIterator.first(.mdia, in: trak) else { throw MP4Error.invalid(.missingBox, "trak without mdia") }
        var r = ByteReader<MP4ByteReads>(tkhd)
        let (tkhdVersion, _) = try r.readFullBoxHeader("tkhd")
        try r.skip(tkhdVersion == 1 ? 16 : 8, "tkhd")
        let trackID = try r.readUInt32("tkhd")
        try r.skip(4 + (tkhdVersion == 1 ? 8 : 4) + 8 + 8, "tkhd")
        var matrix: [UInt32] = []
        for _ in 0..<9 { matrix.append(try r.readUInt32("tkhd")) }
        let width = Int(try r.readUInt32("tkhd") >> 16)
        let height = Int(try r.readUInt32("tkhd") >> 16)

        guard let mdhd = try BoxIterator.first(.mdhd, in: mdia) else { throw MP4Error.invalid(.missingBox, "mdia without mdhd") }
        var m = ByteReader<MP4ByteReads>(mdhd)
        let (mdhdVersion, _) = try m.readFullBoxHeader("mdhd")
        try m.skip(mdhdVersion == 1 ? 16 : 8, "mdhd")
        let timescale = try m.readUInt32("mdhd")
        let duration = try m.readVersioned(mdhdVersion, "mdhd")
        var handler = MP4FourCC(rawValue: 0)
        if let hdlr = try BoxIterator.first(.hdlr, in: mdia) {
            var h = ByteReader<MP4ByteReads>(hdlr)
            _ = try h.readFullBoxHeader("hdlr")
            try h.skip(4, "hdlr")
            handler = try h.readFourCC("hdlr")
        }
        guard let minf = try BoxIterator.first(.minf, in: mdia) else { throw MP4Error.invalid(.missingBox, "mdia without minf") }
        guard let stbl = try BoxIterator.first(.stbl, in: minf) else { throw MP4Error.invalid(.missingBox, "minf without stbl") }
        var descriptions: [MP4SampleDescription] = []
        if let stsd = try BoxIterator.first(.stsd, in: stbl) {
            descriptions = try sampleDescriptions(stsd, visual: handler == .vide)
        }
        let tables = try SampleTables(parsing: stbl, descriptionCount: descriptions.count, fileSize: fileSize)
        var edits: [MP4Edit] = []
        if let edts = try BoxIterator.first(.edts, in: trak), let elst = try BoxIterator.first(.elst, in: edts) {
            edits = try editList(elst)
        }
        guard timescale > 0 || tables.sampleCount == 0 else {
            throw MP4Error.invalid(.invalidBox, "mdhd: timescale 0 in a track with samples")
        }
        var track = MP4Track(trackID: trackID, handlerType: handler, timescale: timescale, mediaDuration: duration,
                             displaySize: (width, height), descriptions: descriptions, edits: edits,
                             presentationOffset: presentationOffset(edits, movieTimescale: movieTimescale, mediaTimescale: timescale),
                             tables: tables)
        track.decodeDelay = max(0, 0 &- (tables.compositionOffsets.map(\.value).min() ?? 0))  // offsets fit 32 bits
        track.orientation = MovieBoxes.orientation(matrix: matrix)
        return track
    }

    /// A `colr` payload: `nclx` (or QuickTime's `nclc`) code points, or another type's bytes;
    /// nil when it is too short to say.
    static func colourInformation(_ body: ArraySlice<UInt8>) -> MP4ColourInformation? {
        var c = ByteReader<MP4ByteReads>(body)
        guard let colourType = try? c.readFourCC("colr") else { return nil }
        guard colourType == .nclx || colourType == "nclc" else {
            return MP4ColourInformation(colourType: colourType, payload: Array(c.remaining))
        }
        guard let primaries = try? c.readUInt16("colr"), let transfer = try? c.readUInt16("colr"), let matrix = try? c.readUInt16("colr") else { return nil }
        let range: UInt8 = colourType == .nclx ? (try? c.readUInt8("colr")) ?? 0 : 0
        var info = MP4ColourInformation(colourPrimaries: primaries, transferCharacteristics: transfer,
                                        matrixCoefficients: matrix, fullRange: range & 0x80 != 0)
        info.colourType = colourType
        return info
    }

    /// The entries of `elst`.
    static func editList(_ payload: ArraySlice<UInt8>) throws(MP4Error) -> [MP4Edit] {
        var r = ByteReader<MP4ByteReads>(payload)
        let (version, _) = try r.readFullBoxHeader("elst")
        let n = try r.checkTable(UInt64(try r.readUInt32("elst")), entrySize: version == 1 ? 20 : 12, "elst entry_count")
        var edits: [MP4Edit] = []
        edits.reserveCapacity(n)
        for _ in 0..<n {
            let duration = try r.readVersioned(version, "elst")
            let time = version == 1 ? try r.readInt64("elst") : Int64(try r.readInt32("elst"))
            edits.append(MP4Edit(segmentDuration: duration, mediaTime: time, mediaRate: try r.readInt32("elst")))
        }
        return edits
    }

    /// The shift the edit list applies: empty edits delay the presentation, the first media
    /// edit starts it at its `media_time`.
    static func presentationOffset(_ edits: [MP4Edit], movieTimescale: UInt32, mediaTimescale: UInt32) -> Int64 {
        var delay: Int64 = 0
        for edit in edits {
            if edit.isEmpty {
                guard movieTimescale > 0 else { continue }
                // duration < 2^64 and timescale < 2^32: computed in Double, clamped.
                let d = Double(edit.segmentDuration) * Double(mediaTimescale) / Double(movieTimescale)
                delay = delay.addingReportingOverflow(d < 9e18 ? Int64(d.rounded()) : 0).partialValue
                continue
            }
            return delay.subtractingReportingOverflow(max(0, edit.mediaTime)).partialValue
        }
        return 0
    }

    /// The entries of `stsd`.
    /// - Parameter visual: the track is video: its entries are visual sample entries (others
    ///   are listed by type only).
    static func sampleDescriptions(_ stsd: ArraySlice<UInt8>, visual: Bool) throws(MP4Error) -> [MP4SampleDescription] {
        var r = ByteReader<MP4ByteReads>(stsd)
        _ = try r.readFullBoxHeader("stsd")
        // Each entry is a box of at least 8 bytes: the count is checked against the payload.
        let n = try r.checkTable(UInt64(try r.readUInt32("stsd")), entrySize: 8, "stsd entry_count")
        var it = BoxIterator(r.remaining)
        var out: [MP4SampleDescription] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            guard let (header, payload) = try it.next() else {
                throw MP4Error.truncated("stsd: \(n) entries announced, \(out.count) present")
            }
            out.append(visual ? try sampleEntry(header.type, payload)
                       : MP4SampleDescription(format: header.type, decoderConfiguration: nil, width: 0, height: 0))
        }
        return out
    }

    /// A visual sample entry: the 78-byte fixed part, then boxes (`avcC`, `pasp`, `colr`,
    /// `sinf`, ...). Fewer than 8 bytes after the last box (some writers end the entry with
    /// four zero bytes) are ignored.
    static func sampleEntry(_ type: MP4FourCC, _ payload: ArraySlice<UInt8>) throws(MP4Error) -> MP4SampleDescription {
        var r = ByteReader<MP4ByteReads>(payload)
        var description = MP4SampleDescription(format: type, decoderConfiguration: nil, width: 0, height: 0)
        guard r.count >= 78 else { return description }  // not a visual entry: listed, not read
        try r.skip(24, "sample entry")
        description.width = Int(try r.readUInt16("sample entry"))
        description.height = Int(try r.readUInt16("sample entry"))
        try r.skip(50, "sample entry")
        var children = r.remaining
        while children.count >= 8 {
            if children.prefix(4).allSatisfy({ $0 == 0 }) && children.count < 16 { break }  // a zero terminator
            var it = BoxIterator(children)
            guard let (header, body) = try it.next() else { break }
            children = children[(body.endIndex)...]
            switch header.type {
            case .avcC:
                do {
                    description.decoderConfiguration = try AVCDecoderConfigurationRecord(parsing: body)
                } catch {
                    throw MP4Error.wrapping(error, as: .invalidDecoderConfiguration, "\(type): avcC")
                }
            case .pasp:
                // pasp and colr repeat what the SPS says: a malformed one is ignored, as FFmpeg does.
                var p = ByteReader<MP4ByteReads>(body)
                if let h = try? p.readUInt32("pasp"), let v = try? p.readUInt32("pasp") {
                    description.pixelAspectRatio = MP4PixelAspectRatio(horizontalSpacing: h, verticalSpacing: v)
                }
            case .colr:
                guard description.colour == nil else { continue }  // the first colr wins
                description.colour = colourInformation(body)
            case .sinf:
                if let frma = try BoxIterator.first(.frma, in: body) {
                    var f = ByteReader<MP4ByteReads>(frma)
                    description.originalFormat = try f.readFourCC("frma")
                }
            default:
                continue
            }
        }
        return description
    }
}
