/// `alternative_transfer_characteristics( payloadSize )`, ITU-T H.264 D.1.32 (payload type 147).
public struct SEIAlternativeTransferCharacteristics: Sendable, Hashable {
    /// `preferred_transfer_characteristics` (Table E-4 values; 18 is HLG).
    public var preferredTransferCharacteristics: UInt8 = 0

    /// Creates the payload.
    public init(preferredTransferCharacteristics: UInt8 = 0) {
        self.preferredTransferCharacteristics = preferredTransferCharacteristics
    }

    /// Reads, writes or traces the payload (D.1.32).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.u(8, &preferredTransferCharacteristics, "preferred_transfer_characteristics")
    }
}
