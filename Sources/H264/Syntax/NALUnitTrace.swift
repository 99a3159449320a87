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
                try header.code(&t)
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
        do throws(H264Error) {
            try SEI.trace(nal, context: store, sink: sink)
        } catch {
            return error
        }
        if let sei = try? SEI.parse(nal, context: store) {
            for m in sei.messages {
                if case .bufferingPeriod(let bp) = m.payload { try? store.activateSPS(id: bp.seqParameterSetID) }
            }
        }
        return nil
    }

    /// Codes the RBSP of a NAL unit whose header is `header`, storing parameter sets.
    static func codePayload<C: SyntaxCoder>(_ c: inout C, header: NALUnitHeader, store: inout ParameterSetStore) throws(H264Error) {
        switch header.nalUnitType {
        case 1, 5:
            var s = SliceHeader()
            try s.code(&c, nalUnitType: header.nalUnitType, nalRefIdc: header.nalRefIdc,
                       idrPicFlag: header.nalUnitType == 5, store: &store)
        case 20:
            guard !header.extensionFlag else { return }  // SVC slice: not described here
            var s = SliceHeader()
            let nonIDR = (header.extensionBits >> 22) & 1 == 1
            try s.code(&c, nalUnitType: 20, nalRefIdc: header.nalRefIdc, idrPicFlag: !nonIDR, store: &store)
        case 7:
            var sps = SequenceParameterSet()
            try sps.code(&c)
            store.insert(sps)
        case 8:
            var pps = PictureParameterSet()
            try pps.code(&c, sps: store.spsLookup)
            store.insert(pps)
        case 9:
            var aud = AccessUnitDelimiter()
            try aud.code(&c)
        case 10:
            var e = EndOfSequence()
            try e.code(&c)
        case 11:
            var e = EndOfStream()
            try e.code(&c)
        case 12:
            var f = FillerData()
            try f.code(&c)
        case 13:
            var ext = SequenceParameterSetExtension()
            try ext.code(&c)
        case 15:
            var subset = SubsetSequenceParameterSet()
            try subset.code(&c)
            store.insert(subset)
        default:
            break
        }
    }
}
