import MediaSupport

/// The RTP module's mapping of the shared reader's failure (`ByteReader<RTPByteReads>` throws
/// ``RTPError``): bytes missing are ``RTPError/Code/truncated``, a count no read can satisfy is
/// ``RTPError/Code/invalidPacket``.
@usableFromInline
enum RTPByteReads: ByteReadErrorMapping {
    @usableFromInline
    static func failure(_ error: ByteReadError) -> RTPError {
        switch error.kind {
        case .truncated: RTPError.invalid(.truncated, error.description)
        case .outOfRange: RTPError.invalid(.invalidPacket, error.description)
        }
    }
}
