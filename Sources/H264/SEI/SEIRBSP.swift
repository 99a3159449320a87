/// A whole SEI NAL unit: `sei_rbsp()` (ITU-T H.264 7.3.2.3) with its NAL unit header.
///
/// One or more ``SEIMessage``s followed by `rbsp_trailing_bits()`. Written back through the
/// same syntax description, byte-identically for what was parsed (payload sizes are recomputed
/// from the written payloads; zero bytes after the trailing bits are kept).
public struct SEIRBSP: Sendable, Hashable {
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

    /// Reads, writes or traces the NAL unit: the 8-bit NAL unit header, the messages and the
    /// trailing bits. Reading needs a coder over the RBSP *with* the header byte, and without
    /// trailing zero bytes (see ``SEI/parse(_:context:options:)``).
    ///
    /// - Parameters:
    ///   - context: the SPS facts buffering_period and pic_timing need (unused when writing:
    ///     parsed payloads carry them).
    ///   - options: which payloads to parse and the message cap.
    /// - Throws: ``H264Error/Code/limitExceeded`` past `options.maxMessages`,
    ///   ``H264Error/Code/invalidArgument`` for a NAL unit type other than 6 or no message to
    ///   write, ``H264Error/Code/invalidTrailingBits`` and message errors.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, context: some SEIContext, options: SEIParseOptions = .default) throws(H264Error) {
        var state = SEIContextState(context)
        try code(&c, state: &state, options: options)
    }

    /// ``code(_:context:options:)`` with the context already wrapped.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, state: inout SEIContextState, options: SEIParseOptions = .default) throws(H264Error) {
        var forbidden: UInt8 = 0
        try c.u(1, &forbidden, "forbidden_zero_bit", 0...0)
        try c.u(2, &nalRefIdc, "nal_ref_idc", 0...3)
        var type: UInt8 = 6
        do { try c.u(5, &type, "nal_unit_type", 6...6) } catch where error.code == .valueOutOfRange {
            throw H264Error.invalid(.invalidArgument, "not an SEI NAL unit (nal_unit_type \(type))")
        }
        if c.isReading {
            messages = []
            repeat {
                guard messages.count < options.maxMessages else {
                    throw H264Error.invalid(.limitExceeded, "more than \(options.maxMessages) SEI messages in one NAL unit")
                }
                var message = SEIMessage(.raw(type: SEIPayloadType(0), bytes: []))
                try message.code(&c, context: &state, options: options)
                messages.append(message)
            } while c.moreRBSPData(writerAnswer: false)
        } else {
            guard !messages.isEmpty else { throw H264Error.invalid(.invalidArgument, "an SEI NAL unit needs at least one message") }
            for i in messages.indices { try messages[i].code(&c, context: &state, options: options) }
        }
        try c.trailingBits()
    }

    /// The NAL unit's bytes (header and payload with emulation-prevention bytes), ready for
    /// Annex-B or AVCC framing.
    /// - Throws: writing errors (a value that does not fit its field, a message list that is empty).
    /// - Complexity: O(size of the NAL unit).
    public func write() throws(H264Error) -> [UInt8] {
        var copy = self
        var w = SyntaxWriter()
        try copy.code(&w, context: NoSEIContext())
        var rbsp = w.writer.bytes  // header byte first
        if trailingZeroBytes > 0 { rbsp.append(contentsOf: repeatElement(0, count: trailingZeroBytes)) }
        var out = [rbsp[0]]
        out.reserveCapacity(rbsp.count &+ rbsp.count / 64 &+ 2)
        EmulationPrevention.appendEBSP(of: rbsp[1...], to: &out)
        return out
    }

    /// The written NAL unit.
    public func nalUnit() throws(H264Error) -> NALUnit { try NALUnit(write()) }
}
