/// One encoded access unit: the NAL units of one picture, in decoding order, held in a single
/// buffer, with its timestamps and the sample flags the core derives from the bitstream.
///
/// An ``AccessUnitSample``, as a parsed ``AccessUnit`` is: ``AccessUnitSample/isSyncSample``,
/// ``AccessUnitSample/isRandomAccessPoint``, and AVCC or Annex-B samples with or without
/// parameter sets (``AccessUnitSample/annexBSample(includeParameterSets:parameterSets:)`` puts
/// the encoder's SPS/PPS before each IDR).
public struct EncodedFrame: AccessUnitSample {
    /// The NAL units, each a view into one shared buffer (no start codes, no length prefixes).
    public let nalUnits: [NALUnit]
    /// Presentation timestamp, in units of 1/``timescale`` seconds.
    public var pts: Int64
    /// Decoding timestamp, in units of 1/``timescale`` seconds; <= ``pts``, and may be
    /// negative at the start of a stream with frame reordering.
    public var dts: Int64
    /// Units per second of ``pts`` and ``dts`` (the frames' `VideoFrame/timescale`).
    public var timescale: Int32
    /// Flags derived from the NAL units (see ``AccessUnitFlags/init(accessUnit:)``).
    public let flags: AccessUnitFlags

    /// True when the access unit holds an IDR picture: the same as
    /// ``AccessUnitSample/isSyncSample`` (not ``AccessUnitSample/isRandomAccessPoint``, which
    /// is what `AccessUnit.isKeyframe` meant).
    @available(*, deprecated, renamed: "isSyncSample", message: "means IDR only: use isSyncSample")
    @inlinable public var isKeyframe: Bool { flags.isSync }

    /// Creates an access unit by copying `units` into one buffer.
    ///
    /// - Complexity: O(total bytes).
    public init<C: Collection>(nalUnits units: C, pts: Int64, dts: Int64, timescale: Int32)
    where C.Element == NALUnit {
        var storage: [UInt8] = []
        storage.reserveCapacity(units.reduce(0) { $0 &+ $1.count })
        var ranges: [Range<Int>] = []
        for unit in units {
            let start = storage.count
            storage.append(contentsOf: unit.bytes)
            ranges.append(start..<storage.count)
        }
        self.init(units: ranges.map { NALUnit(unchecked: storage[$0]) }, pts: pts, dts: dts, timescale: timescale)
    }

    /// Creates an access unit over a buffer holding its NAL units at `ranges`, without copying.
    ///
    /// - Throws: ``H264Error/Code/invalidArgument`` for a range outside `storage`, and the
    ///   errors of ``NALUnit/init(_:)-(ArraySlice<UInt8>)`` for a range that is not a NAL unit.
    public init(storage: [UInt8], ranges: [Range<Int>], pts: Int64, dts: Int64, timescale: Int32) throws(H264Error) {
        var units: [NALUnit] = []
        units.reserveCapacity(ranges.count)
        for r in ranges {
            guard r.lowerBound >= 0, r.upperBound <= storage.count else {
                throw H264Error.invalid(.invalidArgument, "NAL unit range \(r) is outside a buffer of \(storage.count) bytes")
            }
            units.append(try NALUnit(storage[r]))
        }
        self.init(units: units, pts: pts, dts: dts, timescale: timescale)
    }

    private init(units: [NALUnit], pts: Int64, dts: Int64, timescale: Int32) {
        self.nalUnits = units
        self.pts = pts
        self.dts = dts
        self.timescale = timescale
        self.flags = AccessUnitFlags(accessUnit: units)
    }

    /// ``pts`` and ``dts`` on a clock of ``timescale`` units per second, the model every
    /// ``AccessUnitSample`` shares; never nil on encoder output (no duration: the next frame
    /// has not come yet).
    public var timestamps: SampleTimestamps? {
        SampleTimestamps(pts: pts, dts: dts, timescale: Int64(timescale))
    }

    /// Total size of the NAL units in bytes (no framing).
    public var byteCount: Int { nalUnits.reduce(0) { $0 &+ $1.count } }

    /// The access unit as an Annex-B byte stream: each NAL unit after a 4-byte start code.
    @available(*, deprecated, renamed: "annexBSample(includeParameterSets:parameterSets:)",
               message: "use annexBSample(), the rendering every AccessUnitSample shares")
    public func annexB() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount &+ 4 &* nalUnits.count)
        for unit in nalUnits { AnnexB.append(unit, to: &out) }
        return out
    }

    /// The access unit as an AVCC sample: each NAL unit after a big-endian length of
    /// `lengthSize` bytes (the avcC's `lengthSizeMinusOne` + 1).
    ///
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when a NAL unit does not fit the length field.
    @available(*, deprecated, renamed: "avccSample(lengthSize:includeParameterSets:)",
               message: "use avccSample(), the rendering every AccessUnitSample shares")
    public func avcc(lengthSize: AVCC.LengthSize = .four) throws(H264Error) -> [UInt8] {
        try AVCC.write(nalUnits, lengthSize: lengthSize)
    }
}
