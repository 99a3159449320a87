/// Entry points for SEI NAL units (`nal_unit_type` 6): parse, write, trace, remove messages.
public enum SEI {
    /// Parses an SEI NAL unit.
    ///
    /// buffering_period looks its SPS up by `seq_parameter_set_id` in `context`; pic_timing and
    /// dec_ref_pic_marking_repetition use the SPS activated by an earlier buffering_period of the
    /// same NAL unit, else `context.activeSEITimingInfo`. Without the SPS they are kept raw and
    /// ``SEIMessage/rawReason`` says why. `context` is not changed.
    /// - Throws: ``H264Error/Code/invalidArgument`` for another NAL unit type; framing, payload
    ///   and trailing-bit errors (never a trap).
    /// - Complexity: O(size of the NAL unit).
    public static func parse(_ unit: NALUnit, context: some SyntaxContext, options: SEIParseOptions = .default) throws(H264Error) -> SEINALUnit {
        try parseUnit(unit, context: context, options: options)
    }

    /// Parses an SEI NAL unit with a stream's parameter sets as its context, like the variant
    /// that takes any ``SyntaxContext`` (same result and errors), with the reading specialised
    /// for the store: a reader in another module does not run the generic code.
    /// - Complexity: O(size of the NAL unit).
    public static func parse(_ unit: NALUnit, context: ParameterSetStore, options: SEIParseOptions = .default) throws(H264Error) -> SEINALUnit {
        try parseUnit(unit, context: context, options: options)
    }

    static func parseUnit<Context: SyntaxContext>(_ unit: NALUnit, context: Context, options: SEIParseOptions) throws(H264Error) -> SEINALUnit {
        guard unit.type == .sei else { throw H264Error.invalid(.invalidArgument, "not an SEI NAL unit (type \(unit.type.rawValue))") }
        let (rbsp, zeros) = strippedRBSP(unit)
        var sei = try rbsp.dropFirst().withUnsafeSyntaxReader { (c: inout UnsafeSyntaxReader) throws(H264Error) in  // the header byte is the unit's
            var sei = SEINALUnit()
            sei.nalRefIdc = unit.nalRefIdc
            try sei.code(&c, context: context, options: options)
            return sei
        }
        sei.trailingZeroBytes = zeros
        return sei
    }

    /// Traces an SEI NAL unit: one element per syntax element, with bit positions counted from
    /// the NAL unit header's first bit after emulation-prevention removal, names and values as
    /// FFmpeg's `trace_headers` prints them (with ``SEIParseOptions/ffmpegTrace``, the default).
    /// Byte payloads (user data, raw payloads) are one run element each (``TraceElement/run``).
    ///
    /// Elements are appended to `elements` as they are read, so on error the caller still has
    /// the trace up to the failure.
    public static func trace(_ unit: NALUnit, context: some SyntaxContext, options: SEIParseOptions = .ffmpegTrace,
                             into elements: inout [TraceElement]) throws(H264Error) {
        try trace(unit, context: context, options: options, sink: { elements.append($0) })
    }

    /// Traces an SEI NAL unit (see ``trace(_:context:options:into:)``), handing each element to
    /// `sink` as it is read: nothing is kept per element.
    /// - Returns: the NAL unit read.
    @discardableResult
    public static func trace(_ unit: NALUnit, context: some SyntaxContext, options: SEIParseOptions = .ffmpegTrace,
                             sink: (TraceElement) -> Void) throws(H264Error) -> SEINALUnit {
        guard unit.type == .sei else { throw H264Error.invalid(.invalidArgument, "not an SEI NAL unit (type \(unit.type.rawValue))") }
        let (rbsp, zeros) = strippedRBSP(unit)
        let result: Result<SEINALUnit, H264Error> = withoutActuallyEscaping(sink) { sink in
            var tracer = SyntaxTracer(rbsp, sink: sink)
            var header = NALUnitHeader()
            var sei = SEINALUnit()
            do throws(H264Error) {
                try header.code(&tracer, context: context)
                sei.nalRefIdc = header.nalRefIdc
                try sei.code(&tracer, context: context, options: options)
                sei.trailingZeroBytes = zeros
                return .success(sei)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Traces an SEI NAL unit (see ``trace(_:context:options:into:)``).
    public static func trace(_ unit: NALUnit, context: some SyntaxContext, options: SEIParseOptions = .ffmpegTrace) throws(H264Error) -> [TraceElement] {
        var elements: [TraceElement] = []
        try trace(unit, context: context, options: options, into: &elements)
        return elements
    }

    /// Removes the messages for which `shouldRemove` is true from an SEI NAL unit, touching
    /// nothing else: only the framing is parsed, the other payloads are copied as bytes.
    /// - Returns: the new NAL unit's bytes, the unit's own bytes unchanged when nothing matched,
    ///   or nil when no message remains (drop the NAL unit).
    public static func removingMessages(from unit: NALUnit, where shouldRemove: (SEIMessage) -> Bool) throws(H264Error) -> [UInt8]? {
        var sei = try parse(unit, context: .empty, options: .framingOnly)
        let before = sei.messages.count
        sei.messages.removeAll(where: shouldRemove)
        if sei.messages.isEmpty { return nil }
        if sei.messages.count == before { return Array(unit.bytes) }
        return try sei.write()
    }

    /// Removes every message of payload type `type` (for example
    /// `SEIPayloadType(name: "user_data_unregistered")`, x264's settings).
    /// - Returns: see ``removingMessages(from:where:)``.
    public static func removingMessages(ofType type: SEIPayloadType, from unit: NALUnit) throws(H264Error) -> [UInt8]? {
        try removingMessages(from: unit) { $0.payloadType == type }
    }

    /// The RBSP with the header byte, without trailing zero bytes, and how many were removed.
    static func strippedRBSP(_ unit: NALUnit) -> (ArraySlice<UInt8>, Int) {
        var rbsp = unit.rbspWithHeader
        var zeros = 0
        while rbsp.count > 1, rbsp.last == 0 {
            rbsp = rbsp.dropLast()
            zeros &+= 1  // at most the NAL unit's size
        }
        return (rbsp, zeros)
    }
}
