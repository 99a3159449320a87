/// Finds the recovery point SEI (D.1.7) of an access unit.
enum RecoveryPointLookup {
    /// Only the recovery point payload is decoded; every other payload stays raw bytes.
    static let options: SEIParseOptions = {
        var o = SEIParseOptions.framingOnly
        o.keepAllPayloadsRaw = false
        o.rawPayloadTypes = Set((0...255).map { SEIPayloadType(rawValue: $0) }).subtracting([.recoveryPoint])
        return o
    }()

    /// `recovery_frame_cnt` of the first recovery point SEI message in `unit`, if any.
    static func recoveryFrameCount(in unit: NALUnit, context: some SyntaxContext) -> Int? {
        guard unit.type == .sei, let sei = try? SEI.parse(unit, context: context, options: options) else { return nil }
        for message in sei.messages {
            if case .recoveryPoint(let point) = message.payload { return Int(point.recoveryFrameCount) }
        }
        return nil
    }
}
