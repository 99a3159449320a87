import H264

/// An encoder's output read back with the core's parsers: parameter sets, every slice header
/// (with its access unit) and every SEI message, so tests check the bitstream, not the settings.
struct Bitstream {
    struct Slice {
        let accessUnit: Int
        let nal: NALUnit
        let header: SliceHeader
        /// SliceQPY (7-30): 26 + pic_init_qp_minus26 + slice_qp_delta.
        let qp: Int
        var isIntra: Bool { header.sliceKind == .i }
        var isIDR: Bool { nal.type == .idrSlice }
    }

    var sps: SequenceParameterSet?
    var pps: PictureParameterSet?
    var slices: [Slice] = []
    /// SEI messages by access unit index.
    var sei: [Int: [SEIMessage]] = [:]
    /// NAL unit types by access unit index.
    var types: [[NALUnitType]] = []

    init(_ units: [EncodedFrame]) throws {
        var store = ParameterSetStore()
        for (i, au) in units.enumerated() {
            types.append(au.nalUnits.map(\.type))
            for nal in au.nalUnits {
                switch nal.type {
                case .sps:
                    _ = try store.ingest(nal)
                    sps = try SequenceParameterSet(rbsp: nal.rbsp)
                case .pps:
                    _ = try store.ingest(nal)
                    pps = try PictureParameterSet(rbsp: nal.rbsp, context: store)
                case .sei:
                    sei[i, default: []] += try SEI.parse(nal, context: EmptySyntaxContext()).messages
                case let t where t.isVCL:
                    let header = try SliceHeader.parse(nal, context: store).header
                    let qp = 26 + Int(pps?.picInitQpMinus26 ?? 0) + Int(header.sliceQpDelta)
                    slices.append(Slice(accessUnit: i, nal: nal, header: header, qp: qp))
                default:
                    break
                }
            }
        }
    }

    /// The payloads of one SEI type, in stream order.
    func messages(_ type: SEIPayloadType) -> [SEIPayload] {
        sei.keys.sorted().flatMap { sei[$0]!.filter { $0.payloadType == type }.map(\.payload) }
    }
}
