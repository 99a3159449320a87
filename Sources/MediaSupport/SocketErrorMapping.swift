/// The codes of a module's error that the socket layer's failures map to, by name: a module
/// whose error has these codes maps every ``SocketError`` the same way (``SocketErrorMapping``),
/// as ``ByteReadErrorMapping`` does for byte reads.
package protocol SocketErrorCodes {
    /// ``SocketError/Kind/timedOut``.
    static var timedOut: Self { get }
    /// ``SocketError/Kind/cancelled``.
    static var cancelled: Self { get }
    /// ``SocketError/Kind/connectionRefused``.
    static var connectionRefused: Self { get }
    /// ``SocketError/Kind/connectionClosed``.
    static var connectionClosed: Self { get }
    /// ``SocketError/Kind/invalidArgument``.
    static var invalidArgument: Self { get }
    /// ``SocketError/Kind/system``: any other failure of the system.
    static var io: Self { get }
}

/// A module's error made from the socket layer's failure at the module's edge: the kinds keep
/// their names (a timeout, a cancellation, a refused or closed connection, a bad argument), any
/// other system failure is `io`, and the reason is the socket's.
package protocol SocketErrorMapping: Error {
    /// The module's codes.
    associatedtype SocketErrorCode: SocketErrorCodes
    /// The module's error of `code` with `reason`, raised at `file` and `line`.
    init(socketErrorCode code: SocketErrorCode, reason: String, file: String, line: Int)
}

extension SocketErrorMapping {
    /// The socket layer's failure as the module's error: the one place it is mapped.
    package init(_ error: SocketError, file: String = #fileID, line: Int = #line) {
        let code: SocketErrorCode
        switch error.kind {
        case .timedOut: code = .timedOut
        case .cancelled: code = .cancelled
        case .connectionRefused: code = .connectionRefused
        case .connectionClosed: code = .connectionClosed
        case .invalidArgument: code = .invalidArgument
        case .system: code = .io
        }
        self.init(socketErrorCode: code, reason: error.reason, file: file, line: line)
    }

    /// Runs a socket operation, its failure mapped by ``init(_:file:line:)``.
    package static func mapping<T>(file: String = #fileID, line: Int = #line,
                                   _ body: () throws(SocketError) -> T) throws(Self) -> T {
        do {
            return try body()
        } catch {
            throw Self(error, file: file, line: line)
        }
    }
}
