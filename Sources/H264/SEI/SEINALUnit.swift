/// A whole SEI NAL unit: its NAL unit header (`nal_ref_idc`) and `sei_rbsp()` (ITU-T H.264
/// 7.3.2.3).
///
/// One or more ``SEIMessage``s followed by `rbsp_trailing_bits()`. Written back through the
/// same syntax description, byte-identically for what was parsed (payload sizes are recomputed
/// from the written payloads; zero bytes after the trailing bits are kept).
public struct SEINALUnit: SyntaxStructure, Hashable {
    /// `nal_ref_idc` of the NAL unit header (0 for SEI in conforming streams).
    public var nalRefIdc: UInt8
    /// The messages, in order (at least one to be written).
    public var messages: [SEIMessage]
    /// Zero bytes that followed `rbsp_trailing_bits()` in the RBSP (written back as read).
    public var trailingZeroBytes: Int

    /// Creates an SEI NAL unit.
    public init(nalRefIdc: UInt8 = 0, messages: [SEIMessage], trailingZeroBytes: Int = 0) {
        self.nalRefIdc = nalRefIdc
        self.messages = messages
        self.trailingZeroBytes = trailingZeroBytes
    }

    /// Creates an SEI NAL unit without messages (to be read into).
    public init() { self.init(messages: []) }

    /// `sei_rbsp()` with the default ``SEIParseOptions``: see ``code(_:context:options:)``.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try code(&c, context: context, options: .default)
    }

    /// Reads, writes or traces `sei_rbsp()`: the messages and the trailing bits (the NAL unit
    /// header is not coded here: ``SEI``'s `parse(_:context:options:)` reads it). Reading needs a
    /// coder over an RBSP without the zero bytes that may follow the trailing bits.
    ///
    /// - Parameters:
    ///   - c: the coder that reads, writes or traces the messages.
    ///   - context: the SPS facts buffering_period and pic_timing need (unused when writing:
    ///     parsed payloads carry them). A buffering_period makes the SPS it names the one in
    ///     force for the messages after it in the same NAL unit, as in FFmpeg.
    ///   - options: which payloads to parse and the message cap.
    /// - Throws: ``H264Error/Code/limitExceeded`` past `options.maxMessages`,
    ///   ``H264Error/Code/invalidArgument`` for no message to write,
    ///   ``H264Error/Code/invalidTrailingBits`` and message errors.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context, options: SEIParseOptions) throws(H264Error) {
        if c.isReading {
            messages = []
            var activated: Int? = nil
            repeat {
                guard messages.count < options.maxMessages else {
                    throw H264Error.invalid(.limitExceeded, "more than \(options.maxMessages) SEI messages in one NAL unit")
                }
                var message = SEIMessage(.raw(type: SEIPayloadType(0), bytes: []))
                try message.code(&c, context: SEIMessageContext(base: context, activatedSPS: activated), options: options)
                if case .bufferingPeriod(let period) = message.payload { activated = period.seqParameterSetID }
                messages.append(message)
            } while c.moreRBSPData(writerAnswer: false)
        } else {
            guard !messages.isEmpty else { throw H264Error.invalid(.invalidArgument, "an SEI NAL unit needs at least one message") }
            for i in messages.indices { try messages[i].code(&c, context: context, options: options) }
        }
        try c.trailingBits()
    }

    /// The NAL unit's bytes (header and payload with emulation-prevention bytes), ready for
    /// Annex-B or AVCC framing.
    /// - Throws: writing errors (a value that does not fit its field, a message list that is empty).
    /// - Complexity: O(size of the NAL unit).
    public func write() throws(H264Error) -> [UInt8] { Array(try nalUnit().bytes) }

    /// The written NAL unit.
    /// - Throws: see ``write()``.
    public func nalUnit() throws(H264Error) -> NALUnit {
        var rbsp = try rbsp(context: .empty)
        if trailingZeroBytes > 0 { rbsp.append(contentsOf: repeatElement(0, count: trailingZeroBytes)) }
        return try NALUnit(header: NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: .sei), rbsp: rbsp)
    }
}

/// The context of one message of an SEI NAL unit: the caller's, except that a buffering_period
/// earlier in the same NAL unit has made the SPS it names the one in force.
struct SEIMessageContext<Base: SyntaxContext>: SyntaxContext {
    let base: Base
    let activatedSPS: Int?

    func sps(id: Int) -> SequenceParameterSet? { base.sps(id: id) }
    func subsetSPS(id: Int) -> SubsetSequenceParameterSet? { base.subsetSPS(id: id) }
    func pps(id: Int) -> PictureParameterSet? { base.pps(id: id) }
    var activeSPSID: Int? { activatedSPS ?? base.activeSPSID }
    func sliceHeaderContext(ppsID: Int, subset: Bool) -> SliceHeaderContext? { base.sliceHeaderContext(ppsID: ppsID, subset: subset) }
    func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { base.seiTimingInfo(forSPS: id) }
    var activeSEITimingInfo: SEITimingInfo? {
        if let id = activatedSPS, let t = base.seiTimingInfo(forSPS: id) { return t }
        return base.activeSEITimingInfo
    }
}
