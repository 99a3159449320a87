/// The moment by which an operation must end, on the monotonic clock (`ContinuousClock`): the
/// one deadline type of every wait in the package (a socket's connect, accept, send and
/// receive, a queue's push and pop, a lock's timed wait).
///
/// An operation that loops (reading a message that arrives in pieces, sending what the peer
/// reads slowly) checks the same deadline each time round, so a peer that keeps sending a
/// little, or reading a little, cannot hold it past its time. Where a wait takes no deadline
/// (`nil`), it lasts until what it waits for happens or it is cancelled.
///
/// The conversion to the milliseconds of `poll(2)` is ``pollTimeout(_:)``, written once here.
package struct Deadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The moment on `ContinuousClock`.
    package let instant: ContinuousClock.Instant

    /// The deadline at `instant`.
    package init(_ instant: ContinuousClock.Instant) { self.instant = instant }

    /// The deadline `duration` from now; a negative duration is taken as zero (the deadline has
    /// passed: an operation does only what needs no waiting).
    package static func after(_ duration: Duration) -> Deadline {
        Deadline(ContinuousClock.now.advanced(by: max(duration, .zero)))
    }

    /// A deadline that has passed already: the operation does only what needs no waiting.
    package static var now: Deadline { Deadline(ContinuousClock.now) }

    /// True once the deadline has passed.
    package var hasPassed: Bool { ContinuousClock.now >= instant }

    /// The time left; zero once the deadline has passed.
    package var remaining: Duration { max(ContinuousClock.now.duration(to: instant), .zero) }

    /// The earlier of this deadline and the one `duration` from now (a bounded slice of a
    /// longer wait).
    package func capped(at duration: Duration) -> Deadline { min(self, .after(duration)) }

    /// The timeout argument of `poll(2)` for a wait until `deadline`: the milliseconds left,
    /// rounded up (a wait never ends before its deadline), at most `Int32.max` (a longer wait
    /// polls again), 0 once it has passed, and -1 (no limit) for `nil`.
    package static func pollTimeout(_ deadline: Deadline?) -> Int32 {
        guard let deadline else { return -1 }
        let (seconds, attoseconds) = deadline.remaining.components
        // remaining >= 0, so seconds >= 0 and attoseconds in 0..<10^18; seconds is clamped
        // below 2^31 / 1000 before it is multiplied, so the sum cannot overflow.
        let milliseconds = min(seconds, Int64(Int32.max / 1000)) &* 1000
            &+ (attoseconds &+ 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.instant < rhs.instant }

    package var description: String { "deadline in \(ContinuousClock.now.duration(to: instant))" }
}
