import MediaSupport

extension RTMPError {
    /// The socket layer's failure as an RTMP error: the one place RTMP maps it. The kinds keep
    /// their names (a timeout, a cancellation, a refused or closed connection, a bad argument);
    /// any other system failure is ``Code/io``. The reason is the socket's.
    init(_ error: SocketError, file: String = #fileID, line: Int = #line) {
        let code: Code
        switch error.kind {
        case .timedOut: code = .timedOut
        case .cancelled: code = .cancelled
        case .connectionRefused: code = .connectionRefused
        case .connectionClosed: code = .connectionClosed
        case .invalidArgument: code = .invalidArgument
        case .system: code = .io
        }
        self.init(code, error.reason, file: file, line: line)
    }

    /// Runs a socket operation, its failure mapped by ``init(_:file:line:)``.
    static func mapping<T>(file: String = #fileID, line: Int = #line,
                           _ body: () throws(SocketError) -> T) throws(RTMPError) -> T {
        do {
            return try body()
        } catch {
            throw RTMPError(error, file: file, line: line)
        }
    }
}
