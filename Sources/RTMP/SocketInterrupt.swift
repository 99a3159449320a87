#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MediaSupport

/// A one-way switch that wakes every wait of a socket at once, from any thread: the way an
/// ``RTMPPublisher`` is cancelled whatever the server does.
///
/// It is a pipe whose read end every `poll` of the socket watches beside the socket itself;
/// ``fire()`` writes one byte, which is never read, so from then on every wait returns at once
/// and the operation throws ``RTMPError/Code/cancelled``. Two file descriptors per publisher,
/// closed when it is released.
final class SocketInterrupt: Sendable {
    /// The end `poll` watches (-1 when the pipe could not be made: then only the flag is
    /// checked, between waits).
    let readEnd: Int32
    private let writeEnd: Int32
    private let fired = ThreadLock(false)

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// True once ``fire()`` was called.
    var isFired: Bool { fired.withLock { $0 } }

    /// Wakes every present and future wait (idempotent).
    func fire() {
        let first = fired.withLock { f -> Bool in
            defer { f = true }
            return !f
        }
        guard first else { return }
        var byte: UInt8 = 1
        if writeEnd >= 0 { _ = write(writeEnd, &byte, 1) }
    }

    /// Throws ``RTMPError/Code/cancelled`` once fired.
    func check(_ what: @autoclosure () -> String) throws(RTMPError) {
        if isFired { throw RTMPError.invalid(.cancelled, "\(what()) was cancelled") }
    }
}
