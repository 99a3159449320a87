import MediaSupport

/// FLV's mapping of the shared reader's failure (`ByteReader<FLVByteReads>` throws
/// ``FLVError``): bytes missing are ``FLVError/Code/truncated``, a count no read can satisfy is
/// ``FLVError/Code/invalidContainer``.
enum FLVByteReads: ByteReadErrorMapping {
    static func failure(_ error: ByteReadError) -> FLVError {
        switch error.kind {
        case .truncated: FLVError.truncated(error.description)
        case .outOfRange: FLVError.invalid(.invalidContainer, error.description)
        }
    }
}
