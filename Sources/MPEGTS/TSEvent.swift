import H264

/// What the demuxer (``TSParser``) hands out, in stream order.
public enum TSEvent: Sendable {
    /// A program's PMT, the first time and whenever it changes (a new version or new contents).
    case programMap(TSProgramMap)
    /// An H.264 access unit (stream type 0x1B), with the times of the PES it began in.
    case accessUnit(TSAccessUnit)
    /// A PES packet of another elementary stream of the chosen programs, as it is.
    case elementaryStreamPacket(TSElementaryStreamPacket)
    /// A PCR in an adaptation field of a PID the parser follows.
    case programClockReference(TSProgramClockReference)
    /// A packet of `pid` arrived with `found` as its `continuity_counter` where `expected`
    /// was due: packets were lost in between (the PES they belonged to is marked incomplete).
    case continuityError(pid: UInt16, expected: UInt8, found: UInt8)
    /// A packet of `pid` has `discontinuity_indicator` set (2.4.3.5): its continuity counter,
    /// and on a PCR PID the program's time base, start again.
    case discontinuity(pid: UInt16)
    /// Sync was lost: `skippedBytes` bytes that did not begin a packet were skipped until
    /// packets lined up again.
    case syncLost(skippedBytes: Int)
    /// A problem in the stream that was stepped over (a section whose CRC does not match, a
    /// PES whose length lies, a limit, H.264 data the core rejects); parsing goes on.
    case problem(TSError)
}

/// A program clock reference (ISO/IEC 13818-1 2.4.3.5): the encoder's 27 MHz clock at the
/// byte that carries it.
public struct TSProgramClockReference: Sendable, Hashable {
    /// The PID whose adaptation field carried it.
    public var pid: UInt16
    /// `program_clock_reference_base`: 33 bits of the 90 kHz clock, as written (not unrolled).
    public var base: Int64
    /// `program_clock_reference_extension`: 0...299 of the 27 MHz clock.
    public var extensionValue: UInt16
    /// True when its packet had `discontinuity_indicator` set.
    public var isDiscontinuity: Bool

    /// Creates a PCR.
    public init(pid: UInt16, base: Int64, extensionValue: UInt16, isDiscontinuity: Bool = false) {
        self.pid = pid
        self.base = base
        self.extensionValue = extensionValue
        self.isDiscontinuity = isDiscontinuity
    }

    /// The value in 27 MHz ticks: `base` × 300 + `extensionValue`.
    public var value: Int64 { base &* 300 &+ Int64(extensionValue) }  // base < 2^33
}

/// An H.264 access unit taken out of a transport stream: the core's access unit, and the
/// times of the PES packet it began in on the 90 kHz clock, unrolled past the 33-bit wrap.
///
/// It is an `AccessUnitSample`, so the library's writers take it as it is (`MP4Recorder`,
/// `FLVSampleBuilder`, an `RTPPacketizer`, a ``TSWriter``).
public struct TSAccessUnit: AccessUnitSample {
    /// The access unit as the core's assembler made it (NAL units, flags, slice types).
    public var accessUnit: AccessUnit
    /// The PID it came on.
    public var pid: UInt16
    /// The program it belongs to.
    public var programNumber: UInt16
    /// PTS and DTS (equal when the PES had no DTS) on the 90 kHz clock, unrolled (see
    /// ``TSParser``); nil when the access unit did not begin in a PES with a PTS (a second
    /// access unit in one PES packet).
    public var timestamps: SampleTimestamps?
    /// True when packets were lost inside it, or right after it where its end may have been
    /// (a continuity gap, a transport error): it may be damaged.
    public var mayBeIncomplete: Bool

    /// Creates an access unit.
    public init(accessUnit: AccessUnit, pid: UInt16, programNumber: UInt16, timestamps: SampleTimestamps?,
                mayBeIncomplete: Bool = false) {
        self.accessUnit = accessUnit
        self.pid = pid
        self.programNumber = programNumber
        self.timestamps = timestamps
        self.mayBeIncomplete = mayBeIncomplete
    }

    /// The NAL units in decoding order.
    public var nalUnits: [NALUnit] { accessUnit.nalUnits }
    /// The flags the core derived from the NAL units.
    public var flags: AccessUnitFlags { accessUnit.flags }

    /// The core's access unit with ``timestamps`` as its `pts`, `dts` and `timeBase` (1/90000
    /// s), for writers that read them from an `AccessUnit` (`FLVConversion.accessUnitsToFLV`)
    /// or look at its `formatChange` (the HLS segmenters' discontinuities); without times, the
    /// access unit as it is.
    public var timedAccessUnit: AccessUnit {
        var au = accessUnit
        guard let t = timestamps else { return au }
        au.pts = t.pts
        au.dts = t.dts
        au.duration = t.duration
        au.timeBase = t.timeBase
        return au
    }
}
