import H264
import MediaSupport

/// The RTP module's mapping of the shared reader's failure (`ByteReader<RTPByteReads>` throws
/// the error the module throws): bytes missing are `truncated`, a count no read can satisfy is
/// `lengthPastEnd`.
@usableFromInline
enum RTPByteReads: ByteReadErrorMapping {
    @usableFromInline
    static func failure(_ error: ByteReadError) -> H264Error {
        switch error.kind {
        case .truncated: H264Error.truncated(error.description)
        case .outOfRange: H264Error.invalid(.lengthPastEnd, error.description)
        }
    }
}
