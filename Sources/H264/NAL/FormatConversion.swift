/// Conversion between the two framings of an H.264 stream: Annex-B (start codes, parameter
/// sets in band) and AVCC (length prefixes, parameter sets in an ``AVCDecoderConfigurationRecord``).
public enum FormatConversion {
    /// Where Annex-B -> AVCC conversion puts the parameter sets.
    public enum ParameterSetPlacement: Sendable, Hashable {
        /// Into the avcC record only: in-band copies of the record's parameter sets are removed;
        /// a parameter set that differs from all of them (a change mid-stream) stays in band.
        case outOfBand
        /// Into the avcC record and also left in band where they were.
        case inBand
    }

    /// An AVCC stream: length-prefixed NAL units and the record that goes with them.
    public struct AVCCStream: Sendable {
        /// The length-prefixed NAL units (one after another, no sample boundaries).
        public var bytes: [UInt8]
        /// The decoder configuration record (the `avcC` box payload).
        public var configuration: AVCDecoderConfigurationRecord
    }

    // MARK: - Annex-B to AVCC

    /// Converts an Annex-B stream to length-prefixed NAL units and an avcC record: the one
    /// call for a whole stream in memory. For NAL units that arrive one by one (a stream read
    /// in chunks through an ``AnnexBStreamParser``), use ``AVCCWriter``.
    ///
    /// The record holds the distinct parameter sets (SPS, PPS, SPS extension) that come before
    /// the first slice (more are taken until the record has an SPS).
    /// - Parameters:
    ///   - stream: the Annex-B stream.
    ///   - lengthSize: the size of the length prefixes.
    ///   - placement: whether parameter sets also stay in band.
    ///   - leadingData: the policy for bytes before the first start code.
    /// - Throws: the splitter's errors, ``H264Error/Code/nalUnitTooLarge`` for a NAL unit the
    ///   length size cannot hold, ``H264Error/Code/missingParameterSet`` when the stream has no
    ///   SPS, and the record's errors.
    /// - Complexity: O(n): one pass that scans and copies.
    public static func annexBToAVCC(_ stream: ArraySlice<UInt8>, lengthSize: AVCC.LengthSize = .four,
                                    placement: ParameterSetPlacement = .outOfBand,
                                    leadingData: AnnexB.LeadingDataPolicy = .reject) throws(H264Error) -> AVCCStream {
        var failure: H264Error?
        var configuration: AVCDecoderConfigurationRecord?
        let bytes = [UInt8](unsafeUninitializedCapacity: avccCapacity(forAnnexBByteCount: stream.count)) { buffer, count in
            do throws(H264Error) {
                let result = try annexBToAVCC(stream, into: UnsafeMutableRawBufferPointer(buffer), lengthSize: lengthSize,
                                              placement: placement, leadingData: leadingData)
                count = result.byteCount
                configuration = result.configuration
            } catch {
                count = 0
                failure = error
            }
        }
        if let failure { throw failure }
        guard let configuration else { throw H264Error.invalid(.missingParameterSet, "no configuration") }
        return AVCCStream(bytes: bytes, configuration: configuration)
    }

    /// The room ``annexBToAVCC(_:into:lengthSize:placement:leadingData:)`` needs for an Annex-B
    /// stream of `count` bytes: the output is at most 5/4 of the input (a NAL unit with a 3-byte
    /// start code and a 4-byte length), plus a margin.
    package static func avccCapacity(forAnnexBByteCount count: Int) -> Int {
        count &+ count / 3 &+ 64  // an in-memory byte count is far below Int.max / 2
    }

    /// Converts an Annex-B stream to length-prefixed NAL units written into `buffer`, in one
    /// pass: each NAL unit is copied by the same SIMD scan that finds its end, so the input is
    /// read from memory once. Reuse one buffer across calls to avoid allocating.
    ///
    /// The engine of ``annexBToAVCC(_:lengthSize:placement:leadingData:)``; `package` so that
    /// the benchmark measures it without the array's allocation (not a second public path).
    ///
    /// See ``annexBToAVCC(_:lengthSize:placement:leadingData:)`` for the record and the errors.
    /// - Parameters:
    ///   - stream: the Annex-B stream.
    ///   - buffer: at least ``avccCapacity(forAnnexBByteCount:)`` bytes, else
    ///     ``H264Error/Code/invalidArgument``. Bytes past `byteCount` are scratch.
    ///   - lengthSize: the size of the length prefixes written.
    ///   - placement: where the parameter sets go.
    ///   - leadingData: the policy for bytes before the first start code.
    /// - Returns: the number of bytes written and the avcC record.
    /// - Complexity: O(n), one pass.
    package static func annexBToAVCC(_ stream: ArraySlice<UInt8>, into buffer: UnsafeMutableRawBufferPointer,
                                    lengthSize: AVCC.LengthSize = .four, placement: ParameterSetPlacement = .outOfBand,
                                    leadingData: AnnexB.LeadingDataPolicy = .reject)
    throws(H264Error) -> (byteCount: Int, configuration: AVCDecoderConfigurationRecord) {
        let n = stream.count
        guard buffer.count >= avccCapacity(forAnnexBByteCount: n), let out = buffer.baseAddress else {
            throw H264Error.invalid(.invalidArgument, "output buffer of \(buffer.count) bytes; \(avccCapacity(forAnnexBByteCount: n)) needed")
        }
        var collector = ParameterSetCollector()
        let fieldSize = lengthSize.byteCount
        let maximum = lengthSize.maximumNALUnitSize
        let base = stream.startIndex
        var written = 0
        try stream.withUnsafeBufferPointer { (src: UnsafeBufferPointer<UInt8>) throws(H264Error) in
            guard let p = src.baseAddress else { return }
            // Bytes before the first start code, as AnnexB.Splitter treats them.
            let first = StartCodeScanner.find(p, from: 0, count: n)
            if leadingData == .reject {
                var k = 0
                let leadEnd = first ?? n
                while k < leadEnd {
                    if p[k] != 0 { throw H264Error.invalid(.missingStartCode, "bytes before the first start code") }
                    k &+= 1
                }
            }
            guard let first else { return }
            var pos = first &+ 3
            while pos < n {
                // Room: every NAL unit written so far took at least 4 input bytes (start code and
                // header) and grew by at most 1, so written <= pos * 5 / 4, and
                // written + fieldSize + (n - pos) <= n * 5 / 4 + 4 <= the capacity checked above.
                let payload = out + (written &+ fieldSize)
                // One pass that scans and copies: a copy after the scan would write its output
                // with cache-line reads for ownership, which cost more than the second read
                // saves (measured).
                let (match, copiedEnd) = StartCodeScanner.scan(p, from: pos, count: n, third: 1, copyingTo: payload)
                var end = match ?? n
                while end > pos && p[end &- 1] == 0 { end &-= 1 }  // trailing_zero_8bits
                let start = pos
                pos = match.map { $0 &+ 3 } ?? n  // match + 3 <= n
                guard end > start else { continue }
                if copiedEnd < end {
                    (payload + (copiedEnd &- start)).copyMemory(from: p + copiedEnd, byteCount: end &- copiedEnd)
                }
                // The NAL unit's checks, without making one (a view retains the stream) unless
                // it is a parameter set.
                try NALUnit.checkHeader(p[start], count: end &- start)
                let type = NALUnitType(rawValue: p[start] & 0x1F)
                if type.isVCL {
                    collector.noteSlice()
                } else if type.isParameterSet {
                    let unit = NALUnit(unchecked: stream[(base &+ start)..<(base &+ end)])
                    if collector.offer(unit) && placement == .outOfBand { continue }
                }
                let length = end &- start
                guard length <= maximum else {
                    throw H264Error.invalid(.nalUnitTooLarge, "NAL unit of \(length) bytes does not fit a \(fieldSize)-byte length")
                }
                var shift = (fieldSize &- 1) &* 8
                for k in 0..<fieldSize {
                    out.storeBytes(of: UInt8(truncatingIfNeeded: length &>> shift), toByteOffset: written &+ k, as: UInt8.self)
                    shift &-= 8
                }
                written &+= fieldSize &+ length
            }
        }
        return (written, try AVCDecoderConfigurationRecord(parameterSets: collector.record, lengthSize: lengthSize))
    }

    /// Converts an Annex-B stream to length-prefixed NAL units appended to `out`, and returns
    /// the avcC record: an ``AnnexB/Splitter`` feeding an ``AVCCWriter``.
    @available(*, deprecated, message: "use annexBToAVCC(_:lengthSize:placement:leadingData:) for a whole stream, or AVCCWriter.add(_:to:) for NAL units one by one")
    public static func annexBToAVCC(_ stream: ArraySlice<UInt8>, appendingTo out: inout [UInt8],
                                    lengthSize: AVCC.LengthSize = .four, placement: ParameterSetPlacement = .outOfBand,
                                    leadingData: AnnexB.LeadingDataPolicy = .reject) throws(H264Error) -> AVCDecoderConfigurationRecord {
        var splitter = AnnexB.Splitter(stream, leadingData: leadingData)
        var writer = AVCCWriter(lengthSize: lengthSize, placement: placement)
        while let unit = try splitter.next() { try writer.add(unit, to: &out) }
        return try writer.configuration()
    }

    /// Chooses the record's parameter sets while the stream goes by: at most what an avcC
    /// record holds (31 SPS, 255 PPS, 255 SPS extensions); more stay in band.
    struct ParameterSetCollector: Sendable {
        /// A slice: once the record has an SPS, it takes no more parameter sets.
        mutating func noteSlice() {
            if counts.sps > 0 { open = false }
        }

        private(set) var record: [NALUnit] = []
        private var open = true
        private var counts = (sps: 0, pps: 0, extensions: 0)

        /// Offers a parameter set or slice; true when `unit` is a parameter set the record holds
        /// (so it may be dropped from the stream).
        /// - Complexity: O(size of the record), at most 541 parameter sets.
        mutating func offer(_ unit: NALUnit) -> Bool {
            let type = unit.type
            if type.isVCL {
                noteSlice()
                return false
            }
            guard type == .sps || type == .pps || type == .spsExtension else { return false }  // subset SPS stays in band
            if record.contains(unit) { return true }
            guard open else { return false }
            switch type {
            case .sps:
                guard counts.sps < 31 else { return false }
                counts.sps &+= 1
            case .pps:
                guard counts.pps < 255 else { return false }
                counts.pps &+= 1
            default:
                guard counts.extensions < 255 else { return false }
                counts.extensions &+= 1
            }
            record.append(unit)
            return true
        }
    }

    /// Converts Annex-B NAL units that arrive one by one to length-prefixed NAL units, and
    /// collects the avcC record (the distinct parameter sets before the first slice, as
    /// ``annexBToAVCC(_:lengthSize:placement:leadingData:)`` does): the streaming form, for a
    /// stream that is not in memory at once. A whole stream in memory is one call,
    /// ``annexBToAVCC(_:lengthSize:placement:leadingData:)``, which is faster (one pass that
    /// scans and copies).
    ///
    /// A stream read in chunks, written out in chunks (memory: one NAL unit, one chunk of
    /// output and the record):
    ///
    /// ```swift
    /// var parser = AnnexBStreamParser()
    /// var writer = FormatConversion.AVCCWriter(lengthSize: .four)
    /// var out: [UInt8] = []
    /// while let chunk = try read() {
    ///     parser.append(chunk)
    ///     while let unit = try parser.next() { try writer.add(unit, to: &out) }
    ///     try write(out); out.removeAll(keepingCapacity: true)
    /// }
    /// parser.finish()
    /// while let unit = try parser.next() { try writer.add(unit, to: &out) }
    /// try write(out)
    /// let record = try writer.configuration()   // known once the stream has ended
    /// ```
    ///
    /// Memory: the record's parameter sets (views), at most 541; nothing per NAL unit.
    public struct AVCCWriter: Sendable {
        /// The size of the length prefixes.
        public let lengthSize: AVCC.LengthSize
        /// Whether parameter sets also stay in band.
        public let placement: ParameterSetPlacement
        private var collector = ParameterSetCollector()

        /// Creates a writer.
        public init(lengthSize: AVCC.LengthSize = .four, placement: ParameterSetPlacement = .outOfBand) {
            self.lengthSize = lengthSize
            self.placement = placement
        }

        /// Appends `unit` to `out` with its length prefix (unless it is a parameter set that
        /// goes into the record only).
        /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when it does not fit the length size.
        public mutating func add(_ unit: NALUnit, to out: inout [UInt8]) throws(H264Error) {
            if unit.type.isParameterSet || unit.type.isVCL {
                if collector.offer(unit) && placement == .outOfBand { return }
            }
            try AVCC.append(unit, lengthSize: lengthSize, to: &out)
        }

        /// The avcC record for what was added.
        /// - Throws: ``H264Error/Code/missingParameterSet`` without an SPS, and the record's errors.
        public func configuration() throws(H264Error) -> AVCDecoderConfigurationRecord {
            try AVCDecoderConfigurationRecord(parameterSets: collector.record, lengthSize: lengthSize)
        }
    }

    // MARK: - AVCC to Annex-B

    /// Converts length-prefixed NAL units to an Annex-B stream with 4-byte start codes.
    ///
    /// The record's parameter sets go into the stream where a decoder needs them
    /// (``ParameterSetInserter``): before each random access point (IDR or recovery point) that
    /// does not carry them, the SPS and PPS its slices refer to, at the start of the access
    /// unit (after an access unit delimiter, before any SEI). FFmpeg's `h264_mp4toannexb` puts
    /// them right before the slice, after the SEI, which leaves a buffering-period SEI referring
    /// to an SPS not yet seen; and it inserts every set of the record, where this inserts the
    /// ones the picture uses.
    ///
    /// Whatever the record holds, the parameter sets inserted are at most as many bytes as the
    /// input (samples and record) plus ``ParameterSetInserter/defaultMaximumBytesPerAccessUnit``;
    /// the rest of the output is the input's NAL units behind start codes.
    /// - Parameters:
    ///   - bytes: the length-prefixed NAL units.
    ///   - configuration: the avcC record.
    ///   - lengthSize: the size of the length prefixes; by default the record's.
    /// - Throws: the errors of ``AVCC/Reader/next()``, and
    ///   ``H264Error/Code/limitExceeded`` for an access unit past ``AccessUnitLimits``.
    /// - Complexity: O(n).
    public static func avccToAnnexB(_ bytes: ArraySlice<UInt8>, configuration: AVCDecoderConfigurationRecord,
                                    lengthSize: AVCC.LengthSize? = nil) throws(H264Error) -> [UInt8] {
        var reader = AVCC.Reader(bytes, lengthSize: lengthSize ?? configuration.nalUnitLengthSize)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count &+ bytes.count / 64 &+ 64)
        var writer = AnnexBWriter(configuration: configuration)
        while let unit = try reader.next() { try writer.add(unit, to: &out) }
        writer.finish(to: &out)
        return out
    }

    /// Writes NAL units that arrive one by one (from AVCC samples, in decoding order) as an
    /// Annex-B stream, one access unit at a time: access units are found by the access-unit
    /// layer (7.4.1.2.4) with the record's parameter sets known from the start, and the
    /// parameter sets a picture needs are inserted by a ``ParameterSetInserter``.
    ///
    /// ```swift
    /// var writer = FormatConversion.AnnexBWriter(configuration: record)
    /// var out: [UInt8] = []
    /// for unit in units { try writer.add(unit, to: &out); flushIfLarge(&out) }
    /// writer.finish(to: &out)
    /// ```
    ///
    /// Memory: the access unit being assembled (at most ``AccessUnitLimits``) and the
    /// parameter sets by id; independent of the stream's length.
    public struct AnnexBWriter: Sendable {
        private var assembler: AccessUnitAssembler
        /// The parameter-set insertion, with its counts.
        public private(set) var inserter: ParameterSetInserter

        /// Creates a writer for the NAL units that go with `configuration`.
        /// - Parameters:
        ///   - configuration: the avcC record whose parameter sets the NAL units use.
        ///   - maximumInsertedBytesPerAccessUnit: see ``ParameterSetInserter``.
        public init(configuration: AVCDecoderConfigurationRecord,
                    maximumInsertedBytesPerAccessUnit: Int = ParameterSetInserter.defaultMaximumBytesPerAccessUnit) {
            self.init(parameterSets: configuration.parameterSets, maximumInsertedBytesPerAccessUnit: maximumInsertedBytesPerAccessUnit)
        }

        /// Creates a writer for NAL units whose parameter sets are `parameterSets` (known from
        /// out of band) or arrive in band (an Annex-B stream re-written with its parameter sets
        /// repeated before every random access point).
        /// - Parameters:
        ///   - parameterSets: SPS, PPS and SPS extensions known before the first NAL unit.
        ///   - maximumInsertedBytesPerAccessUnit: see ``ParameterSetInserter``.
        public init(parameterSets: [NALUnit] = [],
                    maximumInsertedBytesPerAccessUnit: Int = ParameterSetInserter.defaultMaximumBytesPerAccessUnit) {
            assembler = AccessUnitAssembler(parameterSets: parameterSets)
            inserter = ParameterSetInserter(parameterSets: parameterSets, maximumBytesPerAccessUnit: maximumInsertedBytesPerAccessUnit)
        }

        /// Adds the next NAL unit; appends to `out` the access unit it completes, if any.
        /// - Throws: ``H264Error/Code/limitExceeded`` for an access unit past the assembler's
        ///   limits (it is dropped; the writer goes on with the next NAL unit).
        public mutating func add(_ unit: NALUnit, to out: inout [UInt8]) throws(H264Error) {
            if let au = try assembler.push(unit) { write(au, to: &out) }
        }

        /// Appends the last access unit.
        public mutating func finish(to out: inout [UInt8]) {
            if let au = assembler.finish() { write(au, to: &out) }
        }

        private mutating func write(_ au: AccessUnit, to out: inout [UInt8]) {
            for unit in inserter.inserting(into: au.nalUnits, isRandomAccess: au.isRandomAccessPoint) { AnnexB.append(unit, to: &out) }
        }
    }
}
