import H264
import MediaSupport

/// Reads an MP4 file, progressive or fragmented: its tracks, and for each H.264 video track
/// its avcC records and its AVCC samples with decoding and presentation times, sync flags and
/// sample descriptions.
///
/// ```swift
/// let reader = try MP4Reader(try MP4File(readingAtPath: "in.mp4"))
/// guard let track = reader.videoTrack else { ... }
/// var samples = reader.samples(of: track)
/// while let info = try samples.next() {
///     let sample = try reader.sample(info)          // AVCC bytes, times, flags
///     let description = track.descriptions[info.descriptionIndex]
/// }
/// ```
///
/// Opening reads the top-level box headers, the `moov` box and every `moof` box, never
/// `mdat`; samples are read one at a time. Hostile files: every box size is checked against
/// its parent and the file (a size below the header, size 0 below the top level, a `largesize`
/// below 16: ``MP4Error/Code/invalidBox``), every table's entry count against its box before
/// anything is allocated, and the number of samples against the file's size
/// (``MP4Error/Code/limitExceeded``), so memory stays proportional to the metadata and a walk
/// over the samples to the file's size. No count has a fixed cap: a real file may hold
/// millions of samples. Boxes are looked for only where the specification puts them, so
/// nesting is at most 9 deep; ``MP4BoxTree`` lists arbitrary trees with a depth limit.
///
/// A file that ends inside its last top-level box (a recording cut short) is read up to the
/// last complete box: ``hasTruncatedTail`` says so. A progressive file's samples past the end
/// fail one by one with ``MP4Error/Code/truncated``; a fragmented file ends at its last
/// complete fragment.
public struct MP4Reader {
    /// The file.
    public let source: any MP4ByteSource
    /// `ftyp`, when the file has one.
    public let fileType: MP4FileType?
    /// Every track of `moov`, with the samples of its movie fragments.
    public private(set) var tracks: [MP4Track] = []
    /// The file has movie fragments (`mvex` in `moov`, or `moof` boxes).
    public private(set) var isFragmented = false
    /// The file ended inside its last top-level box (which was ignored) or inside a fragment.
    public private(set) var hasTruncatedTail = false
    /// `mvhd`'s timescale.
    public let movieTimescale: UInt32

    /// Opens a file.
    /// - Throws: ``MP4Error/Code/missingBox`` without `moov`; ``MP4Error/Code/invalidBox``,
    ///   ``MP4Error/Code/invalidSampleTable``, ``MP4Error/Code/limitExceeded``,
    ///   ``MP4Error/Code/truncated`` and ``MP4Error/Code/invalidDecoderConfiguration`` for a
    ///   malformed file; the source's ``MP4Error/Code/io`` errors.
    public init(_ source: any MP4ByteSource) throws(MP4Error) {
        self.source = source
        let fileSize = source.byteCount
        var offset: UInt64 = 0
        var moov: (offset: UInt64, header: MP4BoxHeader)?
        var moofs: [(offset: UInt64, header: MP4BoxHeader)] = []
        var ftyp: MP4FileType?
        var truncated = false
        // Top level: one header per box; each box takes at least 8 bytes, so the loop ends.
        while offset < fileSize {
            let left = fileSize &- offset
            guard left >= 8 else { truncated = true; break }
            let head = try source.read(at: offset, count: Int(min(left, 32)))
            var header: MP4BoxHeader
            do { header = try MP4BoxHeader(parsing: head, room: UInt64.max &- offset, allowsToEnd: true) } catch {
                if error.code == .truncated { truncated = true; break }
                throw error
            }
            var size = header.extendsToEnd ? left : header.size
            if size > left {
                // The last box runs past the end: a file cut short.
                truncated = true
                if header.type == .moov { throw MP4Error.truncated("moov runs past the end of the file") }
                if header.type != .mdat { break }
                size = left
            }
            header.size = size  // size 0 ("to the end") and a cut mdat: what the file holds
            switch header.type {
            case .ftyp where ftyp == nil:
                ftyp = try Self.fileType(try source.read(at: offset &+ UInt64(header.headerSize), count: Int(header.payloadSize)))
            case .moov where moov == nil:
                moov = (offset, header)
            case .moof:
                moofs.append((offset, header))
            default:
                break
            }
            offset &+= size  // size <= left
        }
        fileType = ftyp
        hasTruncatedTail = truncated
        guard let moov else { throw MP4Error.invalid(.missingBox, "no moov box") }
        guard let moovSize = Int(exactly: moov.header.payloadSize) else {
            throw MP4Error.invalid(.limitExceeded, "moov of \(moov.header.payloadSize) bytes")
        }
        let payload = try source.read(at: moov.offset &+ UInt64(moov.header.headerSize), count: moovSize)
        guard let mvhd = try BoxIterator.first(.mvhd, in: payload) else { throw MP4Error.invalid(.missingBox, "moov without mvhd") }
        var m = ByteReader<MP4ByteReads>(mvhd)
        let (version, _) = try m.readFullBoxHeader("mvhd")
        try m.skip(version == 1 ? 16 : 8, "mvhd")
        movieTimescale = try m.readUInt32("mvhd")
        var defaults: [UInt32: FragmentDefaults] = [:]
        var it = BoxIterator(payload)
        while let (header, body) = try it.next() {
            switch header.type {
            case .trak:
                tracks.append(try TrackParser.track(body, movieTimescale: movieTimescale, fileSize: fileSize))
            case .mvex:
                isFragmented = true
                var children = BoxIterator(body)
                while let (h, trex) = try children.next() {
                    guard h.type == .trex else { continue }
                    var r = ByteReader<MP4ByteReads>(trex)
                    _ = try r.readFullBoxHeader("trex")
                    let id = try r.readUInt32("trex")
                    defaults[id] = FragmentDefaults(descriptionIndex: try r.readUInt32("trex"), duration: try r.readUInt32("trex"), size: try r.readUInt32("trex"),
                                                    flags: try r.readUInt32("trex"))
                }
            default:
                continue
            }
        }
        for k in tracks.indices { tracks[k].fragmentDefaults = defaults[tracks[k].trackID] }
        if !moofs.isEmpty { isFragmented = true }
        try readFragments(moofs, defaults: defaults, fileSize: fileSize)
    }

    /// Reads every `moof`, in file order, into its tracks' runs.
    private mutating func readFragments(_ moofs: [(offset: UInt64, header: MP4BoxHeader)],
                                        defaults: [UInt32: FragmentDefaults], fileSize: UInt64) throws(MP4Error) {
        var nextDecodeTime: [UInt32: Int64] = [:]
        for t in tracks {  // fragments continue the samples in moov
            var end: Int64 = 0
            for run in t.tables.timeToSample {
                end = end.addingReportingOverflow(Int64(run.count) &* run.value).partialValue  // 32 x 32 bits
            }
            nextDecodeTime[t.trackID] = end
        }
        var totalSamples = tracks.reduce(0) { $0 &+ $1.sampleCount }
        var position: [UInt32: Int] = [:]
        for (k, t) in tracks.enumerated() { position[t.trackID] = k }
        for (n, moof) in moofs.enumerated() {
            guard let size = Int(exactly: moof.header.payloadSize) else {
                throw MP4Error.invalid(.limitExceeded, "moof of \(moof.header.payloadSize) bytes")
            }
            let payload = try source.read(at: moof.offset &+ UInt64(moof.header.headerSize), count: size)
            let runs: [FragmentRun]
            do {
                runs = try FragmentParser.runs(in: payload, moofOffset: moof.offset, defaults: defaults,
                                               nextDecodeTime: &nextDecodeTime, fileSize: fileSize)
            } catch {
                // The last fragment of a recording cut short: its media is not all there.
                if n == moofs.count &- 1 && error.code == .invalidSampleTable && hasTruncatedTail { return }
                throw error
            }
            for run in runs {
                guard let k = position[run.trackID] else { continue }  // a fragment of no known track
                guard run.descriptionIndex < tracks[k].descriptions.count else {
                    throw MP4Error.invalid(.invalidSampleTable,
                                           "track \(run.trackID): sample_description_index \(run.descriptionIndex &+ 1) with \(tracks[k].descriptions.count) entries")
                }
                totalSamples &+= run.sampleCount  // each run's count is below 2^32
                // Every sample takes at least a byte of the file.
                guard UInt64(totalSamples) <= fileSize else {
                    throw MP4Error.invalid(.limitExceeded, "more than \(fileSize) samples in a file of \(fileSize) bytes")
                }
                tracks[k].runs.append(run)
                tracks[k].sampleCount &+= run.sampleCount
                tracks[k].decodeDelay = max(tracks[k].decodeDelay, 0 &- run.minimumCompositionOffset)  // offsets fit 32 bits
            }
        }
    }

    private static func fileType(_ payload: ArraySlice<UInt8>) throws(MP4Error) -> MP4FileType {
        var r = ByteReader<MP4ByteReads>(payload)
        let major = try r.readFourCC("ftyp")
        let minor = try r.readUInt32("ftyp")
        var brands: [MP4FourCC] = []
        while r.count >= 4 { brands.append(try r.readFourCC("ftyp")) }
        return MP4FileType(majorBrand: major, minorVersion: minor, compatibleBrands: brands)
    }

    /// The first H.264 video track.
    public var videoTrack: MP4Track? { tracks.first { $0.isH264Video } }

    /// The track with `trackID`.
    public func track(id trackID: UInt32) -> MP4Track? { tracks.first { $0.trackID == trackID } }

    /// Walks `track`'s samples in decoding order.
    public func samples(of track: MP4Track) -> MP4SampleIterator {
        MP4SampleIterator(track: track, fileSize: source.byteCount)
    }

    /// Every sample of `track`, without their bytes.
    /// - Complexity: O(samples) time and memory (about 64 bytes per sample).
    public func sampleInfos(of track: MP4Track) throws(MP4Error) -> [MP4SampleInfo] {
        var it = samples(of: track)
        var out: [MP4SampleInfo] = []
        out.reserveCapacity(track.sampleCount)
        while let info = try it.next() { out.append(info) }
        return out
    }

    /// Reads a sample's bytes.
    /// - Returns: the sample: AVCC bytes (a view for an in-memory source), times and flags.
    /// - Throws: the source's errors (``MP4Error/Code/truncated`` past its end).
    public func sample(_ info: MP4SampleInfo) throws(MP4Error) -> MP4Sample {
        MP4Sample(data: try source.read(at: info.offset, count: info.size), decodeTime: info.decodeTime,
                  presentationTime: info.presentationTime, duration: info.duration, flags: info.flags)
    }
}

extension MP4Reader {
    /// True when `prefix`, the first bytes of a file (16 are enough), starts with a box that
    /// begins MP4 files (`ftyp`, `styp`, `moov`, `moof`, `mdat`, `free`, `skip`, `wide`,
    /// `sidx`, `uuid`) with a plausible size: how a tool tells an MP4 input from an Annex-B or
    /// FLV one, whatever its name.
    public static func looksLikeMP4(_ prefix: ArraySlice<UInt8>) -> Bool {
        var r = ByteReader<ByteReadError>(prefix)
        guard let size = try? r.readUInt32(), let code = try? r.readUInt32() else { return false }
        let type = MP4FourCC(rawValue: code)
        let starts: [MP4FourCC] = [.ftyp, .styp, .moov, .moof, .mdat, .free, .skip, "wide", .sidx, .uuid]
        return starts.contains(type) && (size == 0 || size == 1 || size >= 8)
    }
}
