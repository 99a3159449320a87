/// Traces whole NAL units: every syntax element with its bit position, as FFmpeg's
/// `trace_headers` bitstream filter prints them.
///
/// Positions count from the first bit of the NAL unit header, in the RBSP (after removing
/// emulation-prevention bytes). Each trace starts with `forbidden_zero_bit`, `nal_ref_idc`
/// and `nal_unit_type`. Slices stop after the header (and CABAC alignment bits), as FFmpeg's
/// does. SEI NAL units are traced by ``SEI``; types without a structure here yield the header only.
public enum NALUnitTrace {
    /// The result of tracing one NAL unit.
    public struct Result: Sendable {
        /// The elements traced, in bitstream order; when `error` is set, those before it.
        public var elements: [TraceElement]
        /// Why tracing stopped early, if it did.
        public var error: H264Error?
    }

    /// Traces `nal`, updating `store` with the parameter sets it defines and the active SPS
    /// and PPS slices select.
    ///
    /// Memory: the elements, a fixed size each (byte payloads are one run element); use
    /// ``trace(_:store:sink:)`` to keep none.
    /// - Complexity: O(n) in the NAL unit's size (one emulation-prevention pass).
    public static func trace(_ nal: NALUnit, store: inout ParameterSetStore) -> Result {
        var elements: [TraceElement] = []
        let error = trace(nal, store: &store, sink: { elements.append($0) })
        return Result(elements: elements, error: error)
    }

    /// Traces `nal` like ``trace(_:store:)``, handing each element to `sink` as it is read
    /// (nothing is kept per element: a trace printed as it goes needs no memory per element).
    /// - Returns: why tracing stopped early, if it did (the elements before the problem have
    ///   been handed over).
    public static func trace(_ nal: NALUnit, store: inout ParameterSetStore, sink: (TraceElement) -> Void) -> H264Error? {
        if nal.type == .sei { return traceSEI(nal, store: &store, sink: sink) }
        return withoutActuallyEscaping(sink) { sink in
            var t = SyntaxTracer(nal.rbspWithHeader, sink: sink)
            var header = NALUnitHeader()
            do throws(H264Error) {
                try header.code(&t, context: store)
                try codePayload(&t, header: header, store: &store)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Stores every SPS and PPS that comes before the first slice of `units`, as FFmpeg does
    /// when it takes them into its extradata: an SEI buffering_period that precedes its SPS in
    /// the first access unit then finds it, in traces as in FFmpeg's.
    /// - Complexity: O(n) up to the first slice.
    public static func preload(_ store: inout ParameterSetStore, from units: some Sequence<NALUnit>) {
        for unit in units {
            if unit.type.isVCL || unit.type == .sliceExtension { return }
            _ = try? store.ingest(unit)
        }
    }

    /// SEI NAL units go through ``SEI/trace(_:context:options:sink:)``; a buffering_period
    /// then makes the SPS it names the active one, as FFmpeg's coded-bitstream layer does.
    static func traceSEI(_ nal: NALUnit, store: inout ParameterSetStore, sink: (TraceElement) -> Void) -> H264Error? {
        let sei: SEINALUnit
        do throws(H264Error) {
            sei = try SEI.trace(nal, context: store, sink: sink)
        } catch {
            return error
        }
        for m in sei.messages {
            if case .bufferingPeriod(let bp) = m.payload { try? store.activateSPS(id: bp.seqParameterSetID) }
        }
        return nil
    }

    /// Codes the RBSP of a NAL unit whose header is `header`: the structure its type names,
    /// with `store` as its context. Then, as FFmpeg's coded-bitstream layer does, a parameter
    /// set is stored and a slice makes its PPS and SPS the active ones (from the moment its
    /// `pic_parameter_set_id` has been read, even if the rest of the header fails).
    static func codePayload<C: SyntaxCoder>(_ c: inout C, header: NALUnitHeader, store: inout ParameterSetStore) throws(H264Error) {
        switch header.nalUnitType {
        case .slice, .idrSlice, .sliceExtension:
            guard !(header.nalUnitType == .sliceExtension && header.extensionFlag) else { return }  // SVC: not described here
            var s = SliceHeader(nalUnitHeader: header)
            var progress = 0
            try s.codeLeadingElements(&c, progress: &progress)
            try store.activate(s)
            try s.code(remainderOf: &c, context: store)
        case .sps:
            try store.insert(SequenceParameterSet.code(&c, context: store))
        case .pps:
            try store.insert(PictureParameterSet.code(&c, context: store))
        case .accessUnitDelimiter:
            try AccessUnitDelimiter.code(&c, context: store)
        case .endOfSequence:
            try EndOfSequence.code(&c, context: store)
        case .endOfStream:
            try EndOfStream.code(&c, context: store)
        case .fillerData:
            try FillerData.code(&c, context: store)
        case .spsExtension:
            try SequenceParameterSetExtension.code(&c, context: store)
        case .subsetSPS:
            try store.insert(SubsetSequenceParameterSet.code(&c, context: store))
        default:
            break
        }
    }
}

extension SyntaxStructure {
    /// A new value coded with `c` (read or traced).
    @discardableResult
    static func code<C: SyntaxCoder>(_ c: inout C, context: some SyntaxContext) throws(H264Error) -> Self {
        var value = Self()
        try value.code(&c, context: context)
        return value
    }
}
