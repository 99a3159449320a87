#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-way switch that wakes, from any thread, every wait of the sockets given it: the one way
/// to cancel a blocked connect, accept, send or receive, whatever the peer does, or a read of a
/// pipe or terminal (``waitUntilReadable(_:deadline:)``).
///
/// It is a pipe whose read end every `poll` of those sockets watches beside the socket itself;
/// ``fire()`` writes one byte, which is never read, so from then on every wait returns at once
/// and the operation throws ``SocketError/Kind/cancelled``. ``fire()`` only sets an atomic flag
/// and writes to a non-blocking pipe, so it is safe even from a signal handler.
///
/// A name lookup (`getaddrinfo`) cannot be interrupted: it finishes first, then the connect
/// throws. Connect by numeric address where that matters.
///
/// Memory: two file descriptors, closed when it is released.
package final class Interrupt: Sendable {
    /// The end `poll` watches (-1 when the pipe could not be made: then only the flag is
    /// checked, between waits, and a wait ends no later than its deadline).
    package let readEnd: Int32
    private let writeEnd: Int32
    private let fired = Atomic<Bool>(false)

    package init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// True once ``fire()`` was called.
    package var isFired: Bool { fired.load(ordering: .acquiring) }

    /// Wakes every present and future wait (idempotent, from any thread).
    package func fire() {
        guard fired.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        var byte: UInt8 = 1
        if writeEnd >= 0 { _ = write(writeEnd, &byte, 1) }
    }

    /// Waits until `fd` (a socket, a pipe, a terminal) has bytes to read, or its end or an error
    /// to report, or `deadline` passes (nil: without a limit), or this interrupt fires: a read
    /// that cannot outlive a cancellation (a signal handler that fires the interrupt, say).
    /// - Returns: true when `fd` is ready (the read that follows reports what it found); false
    ///   when the interrupt fired or the deadline passed first.
    package func waitUntilReadable(_ fd: Int32, deadline: Deadline? = nil) -> Bool {
        do {
            _ = try SocketSystem.wait((fd, nil), events: Int16(POLLIN), deadline: deadline, interrupt: self, "read")
            return true
        } catch {
            return error.kind != .timedOut && error.kind != .cancelled  // poll failed: let the read report
        }
    }

    /// Throws ``SocketError/Kind/cancelled`` once fired.
    package func check(_ what: @autoclosure () -> String) throws(SocketError) {
        if isFired { throw SocketError.cancelled(what()) }
    }
}
