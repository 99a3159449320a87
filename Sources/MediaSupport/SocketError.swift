#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a socket operation failed: the neutral failure of the socket layer, which each module
/// maps to its own error at its edge (RTMP to `RTMPError`, RTP to its error), keeping the
/// ``reason``.
package struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    package enum Kind: Sendable, Hashable {
        /// The operation's ``Deadline`` passed first.
        case timedOut
        /// The socket's ``Interrupt`` fired.
        case cancelled
        /// The peer refused the connection (nothing listens on the port).
        case connectionRefused
        /// The peer closed or reset the connection, or the socket is closed.
        case connectionClosed
        /// A caller's argument is wrong: a port out of range, an address that is not numeric
        /// where one must be, an operation the socket cannot do.
        case invalidArgument
        /// Anything else the system reported (a name that does not resolve, a port in use, a
        /// thread that cannot start): ``SocketError/systemError`` has the `errno` when there
        /// is one.
        case system
    }

    /// The kind of failure.
    package let kind: Kind
    /// What was being done and what went wrong, for a person ("connect to 127.0.0.1:1935:
    /// Connection refused").
    package let reason: String
    /// The system's `errno` (0 when the failure is not a system call's).
    package let systemError: Int32

    package init(_ kind: Kind, _ reason: String, systemError: Int32 = 0) {
        self.kind = kind
        self.reason = reason
        self.systemError = systemError
    }

    /// The one mapping from `errno` to a kind: `ECONNREFUSED` is a refusal; `EPIPE`,
    /// `ECONNRESET`, `ENOTCONN` and `ESHUTDOWN` a closed connection; `ETIMEDOUT` a timeout (the
    /// kernel's own, of a connect); anything else ``Kind/system``.
    /// - Parameters:
    ///   - code: the `errno`.
    ///   - what: the operation, for ``reason`` ("connect to 127.0.0.1:1935").
    @inline(never)
    package init(errno code: Int32, while what: @autoclosure () -> String) {
        let kind: Kind
        switch code {
        case ECONNREFUSED: kind = .connectionRefused
        case EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN: kind = .connectionClosed
        case ETIMEDOUT: kind = .timedOut
        default: kind = .system
        }
        self.init(kind, "\(what()): \(String(cString: strerror(code)))", systemError: code)
    }

    /// The deadline of `what` passed.
    @inline(never)
    package static func timedOut(_ what: @autoclosure () -> String) -> SocketError {
        SocketError(.timedOut, "\(what()) timed out", systemError: ETIMEDOUT)
    }

    /// `what` was cancelled by the socket's interrupt.
    @inline(never)
    package static func cancelled(_ what: @autoclosure () -> String) -> SocketError {
        SocketError(.cancelled, "\(what()) was cancelled")
    }

    package var description: String { "SocketError.\(kind): \(reason)" }

    /// Equal when the kinds are (the reason is for people).
    package static func == (lhs: SocketError, rhs: SocketError) -> Bool { lhs.kind == rhs.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
