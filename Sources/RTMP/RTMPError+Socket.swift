import MediaSupport

/// RTMP's codes for the socket layer's failures (a timeout, a cancellation, a refused or
/// closed connection, a bad argument; any other system failure is ``RTMPError/Code/io``).
extension RTMPError.Code: SocketErrorCodes {}

extension RTMPError: SocketErrorMapping {
    /// The socket layer's failure mapped by MediaSupport's one mapping (`RTMPError(error)`,
    /// `RTMPError.mapping { ... }`), the reason the socket's.
    package init(socketErrorCode code: Code, reason: String, file: String, line: Int) {
        self.init(code, reason, file: file, line: line)
    }
}
