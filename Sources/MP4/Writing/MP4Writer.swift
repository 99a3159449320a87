import H264

/// Writes a progressive (non-fragmented) MP4 file with one H.264 video track, as samples come.
///
/// Each sample's bytes go to the file at once; only the sample tables (5 bytes per sample, plus
/// 16 per change of composition offset: up to 21 with B-frames) stay in memory until
/// ``finish()`` writes the `moov` box. The file starts with
/// `ftyp`, an 8-byte `free` box and the `mdat` header; at the end the `mdat` size is filled in
/// (a 64-bit size, over the `free` box, past 4 GiB) and `moov` is written:
///
/// - ``Options/Layout-swift.enum/mediaFirst``: after `mdat`, at the end of the file;
/// - ``Options/Layout-swift.enum/fastStart`` (the default): before `mdat`, for progressive
///   download; the media is moved later in the file by the size of `moov` (in blocks of 1 MiB,
///   the way `qt-faststart` does), and every chunk offset with it (`co64` when the last one
///   passes 4 GiB, the size iterated to a fixed point).
///
/// Neither layout is playable before ``finish()``: a recording that must survive the process
/// being killed uses ``MP4FragmentWriter`` (see ``MP4Recorder``).
///
/// Sample descriptions: the first sample's goes first; a sample with a different
/// ``MP4SampleDescription`` (new parameter sets) adds an `stsd` entry and starts a chunk that
/// refers to it. Times: the first sample's decoding time becomes 0 in the file; composition
/// offsets go in `ctts` (version 1 when one is negative; when all are above 0 the smallest is
/// taken out of them, a constant that only delays the presentation); with frame reordering an
/// edit list (`elst`) makes the presentation start at 0, as FFmpeg and Apple write it.
///
/// ```swift
/// let file = try MP4File(creatingAtPath: "out.mp4")
/// let writer = try MP4Writer(file: file, options: .init(timescale: 90_000))
/// for (description, sample) in samples { try writer.append(sample, description: description) }
/// try writer.finish()
/// ```
///
/// A writer is used from one task at a time.
public final class MP4Writer {
    /// How a progressive file is written.
    public struct Options: Sendable, Hashable {
        /// Where `moov` goes.
        public enum Layout: Sendable, Hashable {
            /// `moov` before `mdat` (progressive download, "fast start"); the media is moved
            /// once at the end.
            case fastStart
            /// `moov` after `mdat`: nothing is moved.
            case mediaFirst
        }

        /// The track's timescale (units per second). Samples on another timescale
        /// (``MP4Sample/timescale``) are converted to it (nearest tick).
        public var timescale: Int64
        /// Where `moov` goes.
        public var layout: Layout
        /// Write an edit list that starts the presentation at 0 when the first presented sample
        /// has a composition time above 0 (frame reordering).
        public var writesEditList: Bool
        /// A chunk ends when it holds this many bytes...
        public var maximumChunkSize: Int
        /// ...or spans this long (default: one second).
        public var maximumChunkDuration: Duration?
        /// `ftyp`: major brand, minor version and compatible brands.
        public var majorBrand: MP4FourCC
        /// `ftyp` minor version.
        public var minorVersion: UInt32
        /// `ftyp` compatible brands.
        public var compatibleBrands: [MP4FourCC]
        /// `creation_time` and `modification_time` (seconds since 1904-01-01).
        public var creationTime: UInt64
        /// After a format change (a new `stsd` entry), also put the new parameter sets in band in
        /// the first sample that uses them (see ``MP4Sample/carryingParameterSets(of:)``).
        public var repeatsParameterSetsAfterFormatChange: Bool
        /// How the pictures are turned for display: written as `tkhd`'s transformation matrix,
        /// which browsers, MSE and AVPlayer apply (identity by default).
        public var orientation: Orientation = .identity

        /// Creates options: fast start, edit list, chunks of at most 1 MiB and 1 s, brands
        /// `isom` (minor 512) with `isom`, `iso2`, `avc1`, `mp41` (FFmpeg's choice).
        public init(timescale: Int64, layout: Layout = .fastStart, writesEditList: Bool = true,
                    maximumChunkSize: Int = 1 << 20, maximumChunkDuration: Duration? = nil,
                    majorBrand: MP4FourCC = "isom", minorVersion: UInt32 = 512,
                    compatibleBrands: [MP4FourCC] = ["isom", "iso2", "avc1", "mp41"], creationTime: UInt64 = 0,
                    repeatsParameterSetsAfterFormatChange: Bool = true) {
            self.timescale = timescale
            self.layout = layout
            self.writesEditList = writesEditList
            self.maximumChunkSize = maximumChunkSize
            self.maximumChunkDuration = maximumChunkDuration
            self.majorBrand = majorBrand
            self.minorVersion = minorVersion
            self.compatibleBrands = compatibleBrands
            self.creationTime = creationTime
            self.repeatsParameterSetsAfterFormatChange = repeatsParameterSetsAfterFormatChange
        }

        /// Creates options with the chunk duration in timescale units.
        @available(*, deprecated, message: "durations are Durations: maximumChunkDuration: .seconds(1)")
        public init(timescale: Int64, layout: Layout = .fastStart, writesEditList: Bool = true,
                    maximumChunkSize: Int = 1 << 20, maximumChunkDuration: Int64?,
                    majorBrand: MP4FourCC = "isom", minorVersion: UInt32 = 512,
                    compatibleBrands: [MP4FourCC] = ["isom", "iso2", "avc1", "mp41"], creationTime: UInt64 = 0,
                    repeatsParameterSetsAfterFormatChange: Bool = true) {
            self.init(timescale: timescale, layout: layout, writesEditList: writesEditList, maximumChunkSize: maximumChunkSize,
                      maximumChunkDuration: maximumChunkDuration.map { Duration(ticks: $0, timescale: timescale) },
                      majorBrand: majorBrand, minorVersion: minorVersion, compatibleBrands: compatibleBrands,
                      creationTime: creationTime, repeatsParameterSetsAfterFormatChange: repeatsParameterSetsAfterFormatChange)
        }
    }

    /// The options in force.
    public let options: Options
    /// The file being written.
    public let file: any MP4WritableFile
    /// The sample descriptions, in `stsd` order.
    public private(set) var descriptions: [MP4SampleDescription] = []
    /// True once ``finish()`` has written `moov`.
    public private(set) var isFinished = false

    private var tables = SampleTableBuilder()
    private let freeOffset: UInt64
    private let dataOffset: UInt64
    private var mediaBytes: UInt64 = 0
    private var clock: SampleClock
    /// ``Options/maximumChunkDuration`` in timescale units.
    private let chunkTicks: Int64
    private var lastPTS: Int64 = 0
    private var lastDelta: Int64?
    private var lastDuration: Int64?
    private var minComposition: Int64 = .max
    private var presentationEnd: Int64 = .min
    private var chunkDescription = -1
    private var lastDescription: MP4SampleDescription?
    private var compositionBias: Int64 = 0
    private var chunkBytes = 0
    private var chunkStartDTS: Int64 = 0
    private let timescale: UInt32

    /// Starts a file: writes `ftyp`, an 8-byte `free` box (room for a 64-bit `mdat` size) and
    /// the `mdat` header at the end of `file` (normally empty).
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a timescale outside 1...2^32-1, and the
    ///   file's errors.
    public init(file: any MP4WritableFile, options: Options) throws(MP4Error) {
        guard options.timescale > 0, let ts = UInt32(exactly: options.timescale) else {
            throw MP4Error.invalid(.invalidArgument, "timescale \(options.timescale) is outside 1...\(UInt32.max)")
        }
        self.options = options
        self.file = file
        timescale = ts
        clock = SampleClock(timescale: options.timescale)
        chunkTicks = max(1, options.maximumChunkDuration?.ticks(timescale: options.timescale) ?? options.timescale)
        var w = BoxWriter()
        MovieBoxes.fileType(.ftyp, major: options.majorBrand, minor: options.minorVersion,
                            compatible: options.compatibleBrands, into: &w)
        let start = file.byteCount
        freeOffset = start &+ UInt64(w.bytes.count)  // a file size plus a few bytes
        w.box(.free) { _ in }
        w.u32(0)  // mdat size, filled in by finish()
        w.fourCC(.mdat)
        dataOffset = start &+ UInt64(w.bytes.count)
        try file.append(w.bytes)
    }

    /// The number of samples written.
    public var sampleCount: Int { tables.sampleCount }

    /// Writes one sample's bytes to the file and adds it to the tables.
    /// - Parameters:
    ///   - sample: the sample; its decoding time must not go back. On another timescale than
    ///     the track's (``MP4Sample/timescale``), its times are converted (nearest tick).
    ///   - description: its sample description; a new one adds an `stsd` entry.
    /// - Throws: ``MP4Error/Code/invalidArgument`` after ``finish()``, for a decoding time
    ///   that goes back or jumps more than 2^32-1 units, a composition offset that does not
    ///   fit 32 bits, a sample of 4 GiB or more, or more than 2^32-1 samples;
    ///   ``MP4Error/Code/invalidDecoderConfiguration`` for an avcC record that cannot be
    ///   written (more parameter sets than it counts, one over 65,535 bytes);
    ///   ``MP4Error/Code/timescaleMismatch`` for times the track's timescale cannot hold; the
    ///   file's errors.
    public func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error) {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "sample after finish()") }
        let source = sample.decodeTime
        let sample = try clock.converted(sample)
        if options.repeatsParameterSetsAfterFormatChange, let last = lastDescription, last != description,
           let record = description.decoderConfiguration {
            return try add(try sample.carryingParameterSets(of: record), source: source, description: description)
        }
        try add(sample, source: source, description: description)
    }

    private func add(_ sample: MP4Sample, source: Int64, description: MP4SampleDescription) throws(MP4Error) {
        guard tables.sampleCount < Int(UInt32.max) else {
            throw MP4Error.invalid(.invalidArgument, "a track holds at most \(UInt32.max) samples")
        }
        let (dts, pts, offset, step) = try clock.place(sample, sourceDecodeTime: source, maximumOffset: Int64(UInt32.max))
        let size = UInt32(truncatingIfNeeded: sample.data.count)  // checked by the clock
        if let step {
            tables.addDuration(UInt32(step))  // 0...2^32-1, checked by the clock
            presentationEnd = max(presentationEnd, lastPTS &+ step)  // both far below 2^62
            lastDelta = step
        }
        try placeInChunk(sample, description: description, dts: dts)
        try file.append(sample.data)
        mediaBytes &+= UInt64(size)  // file sizes stay far below 2^64
        chunkBytes &+= Int(size)
        tables.add(size: size, compositionOffset: offset, flags: sample.flags)
        lastPTS = pts
        lastDuration = sample.duration
        lastDescription = description
        minComposition = min(minComposition, pts)
    }

    /// Starts a chunk when the description changes or the current one is full.
    private func placeInChunk(_ sample: MP4Sample, description: MP4SampleDescription, dts: Int64) throws(MP4Error) {
        var index = chunkDescription >= 0 && descriptions[chunkDescription] == description
            ? chunkDescription : descriptions.firstIndex(of: description)
        if index == nil {
            guard descriptions.count < Int(UInt32.max) else {
                throw MP4Error.invalid(.invalidArgument, "too many sample descriptions")
            }
            // The moov writes it later: a record its fields cannot count fails here, with its sample.
            if let record = description.decoderConfiguration {
                do { _ = try record.serialized() } catch { throw MP4Error.wrapping(error, as: .invalidDecoderConfiguration, "the sample description's avcC record") }
            }
            descriptions.append(description)
            index = descriptions.count &- 1
        }
        let d = index ?? 0
        let full = chunkBytes > 0 && (chunkBytes &+ sample.data.count > options.maximumChunkSize
                                      || dts &- chunkStartDTS >= chunkTicks)
        if d != chunkDescription || full {
            tables.startChunk(at: dataOffset &+ mediaBytes, descriptionIndex: UInt32(truncatingIfNeeded: d &+ 1))
            chunkDescription = d
            chunkBytes = 0
            chunkStartDTS = dts
        }
    }

    /// Ends the file: fills in the `mdat` size and writes `moov` (and, for fast start, moves
    /// the media to make room for it before `mdat`).
    ///
    /// The last sample's duration is its own ``MP4Sample/duration``, else the one before it.
    /// - Throws: ``MP4Error/Code/invalidArgument`` when no sample was written or `finish()` was
    ///   already called; the file's errors.
    /// - Complexity: O(samples) for the tables; fast start also copies the media once.
    public func finish() throws(MP4Error) {
        guard !isFinished else { throw MP4Error.invalid(.invalidArgument, "finish() called twice") }
        guard let first = descriptions.first else {
            throw MP4Error.invalid(.invalidArgument, "no samples were written")
        }
        isFinished = true
        let last = max(0, lastDuration ?? lastDelta ?? 0)
        guard last <= Int64(UInt32.max) else {
            throw MP4Error.invalid(.invalidArgument, "last sample duration \(last) does not fit stts")
        }
        tables.addDuration(UInt32(last))
        tables.closeChunk()
        presentationEnd = max(presentationEnd, lastPTS &+ last)
        // Composition offsets all above 0 (a reorder delay larger than the stream needs, as a
        // streaming timestamp assigner infers from the DPB size) carry a constant that only
        // delays the presentation: it is taken out, so the offsets are as small as the stream
        // allows and the edit stays within the media (GStreamer presents nothing when it does
        // not).
        let bias = max(0, tables.minimumOffset)
        minComposition &-= bias  // bias <= every offset, so every time stays >= its DTS >= 0
        presentationEnd &-= bias
        compositionBias = bias
        let mediaDuration = UInt64(clock.lastDecodeTime &+ last)  // >= 0
        var track = MovieBoxes.Track(timescale: timescale, mediaDuration: mediaDuration, presentationDuration: mediaDuration,
                                     description: first, editMediaTime: nil, editDuration: 0,
                                     creationTime: options.creationTime, orientation: options.orientation)
        if options.writesEditList, minComposition > 0 {
            track.editMediaTime = minComposition
            track.editDuration = UInt64(max(0, presentationEnd &- minComposition))
            track.presentationDuration = track.editDuration
        }
        try writeMediaDataSize()
        switch options.layout {
        case .mediaFirst:
            try file.append(movie(track, shift: 0))
        case .fastStart:
            var shift: UInt64 = 0
            var moov = movie(track, shift: shift)
            // A bigger moov moves the media further, which may turn stco into co64: iterate to
            // the fixed point (at most two rounds: co64 never turns back).
            while UInt64(moov.count) != shift {
                shift = UInt64(moov.count)
                moov = movie(track, shift: shift)
            }
            try file.moveTail(from: freeOffset, by: shift)
            try file.write(moov[...], at: freeOffset)
        }
    }

    /// Writes the `mdat` size: 32 bits in its header, or a 64-bit header over the `free`
    /// box before it when the box passes 4 GiB - 1 (the data stays where it is).
    private func writeMediaDataSize() throws(MP4Error) {
        let size = mediaBytes &+ 8
        var w = BoxWriter()
        if size <= UInt64(UInt32.max) {
            w.u32(UInt32(size))
            try file.write(w.bytes[...], at: dataOffset &- 8)
        } else {
            w.u32(1)
            w.fourCC(.mdat)
            w.u64(mediaBytes &+ 16)
            try file.write(w.bytes[...], at: freeOffset)
        }
    }

    /// The `moov` box, with chunk offsets moved by `shift`.
    private func movie(_ track: MovieBoxes.Track, shift: UInt64) -> [UInt8] {
        var w = BoxWriter(reservingCapacity: 1024 &+ tables.sampleCount &* 6)
        w.box(.moov) { w in
            MovieBoxes.movieHeader(track, into: &w)
            MovieBoxes.track(track, descriptions: descriptions, into: &w) { w in
                tables.write(into: &w, shift: shift, bias: compositionBias)
            }
        }
        return w.bytes
    }
}
