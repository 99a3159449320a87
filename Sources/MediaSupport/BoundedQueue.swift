/// A first-in first-out queue between threads and tasks, bounded in elements and optionally in
/// bytes, with back-pressure or a drop policy when it is full: the one hand-off of the package
/// (a frame source's frames to their consumer, an RTMP publisher's messages to its sender
/// thread, a job list of a ``BlockingWorker``).
///
/// **Producers** call ``push(_:bytes:group:exempt:deadline:)``; when ``capacity`` counted
/// elements wait (or ``maximumBytes`` of them), the ``Overflow`` policy decides:
/// - ``Overflow/block``: the producer's thread sleeps until a consumer takes an element or its
///   deadline passes; then the element is dropped as under ``Overflow/dropNewest``.
/// - ``Overflow/dropOldest``: the oldest counted element is dropped to make room.
/// - ``Overflow/dropNewest``: the new element is dropped, and, when it has a group, every later
///   element of that group (they depend on it) until an element of another group comes.
/// - ``Overflow/dropOldestGroup``: every element of the oldest group waiting is dropped (a GOP,
///   whose pictures are useless without its first); when the only group waiting is the new
///   element's own, the new element is dropped as under ``Overflow/dropNewest``.
///
/// Groups are keys the caller gives (a GOP counter: the key changes at each keyframe);
/// elements without one are their own group. An *exempt* element (an RTMP sequence header, a
/// job) is never dropped and does not count against the bounds.
///
/// **Consumers** take elements with ``pop(deadline:)`` from a thread (waiting until a deadline)
/// or with ``next()`` from a task (suspending, never blocking a thread of the cooperative
/// pool; one task at a time). An element pushed while a task waits goes to it directly.
///
/// **The end.** ``close(_:)`` ends the queue from either side: later pushes are refused, the
/// consumer takes what waits, then the end (or the error given). ``cancel()`` ends it at once:
/// what waits is released, producers waiting for room wake and are refused, a waiting consumer
/// gets ``PopResult/cancelled`` (``next()`` throws `CancellationError`).
///
/// Memory: at most ``capacity`` counted elements, whose declared bytes stay within
/// ``maximumBytes`` (or one element, alone, larger than it), plus the exempt elements the
/// caller pushes; the storage is at most twice what waits.
package final class BoundedQueue<Element: Sendable>: Sendable {
    /// What a push does when the queue is full.
    package enum Overflow: Sendable, Hashable {
        /// The producer waits for room until its deadline, then the element is dropped as
        /// under ``dropNewest``.
        case block
        /// The oldest counted element is dropped.
        case dropOldest
        /// The new element is dropped, and with it the rest of its group.
        case dropNewest
        /// The oldest group waiting is dropped whole.
        case dropOldestGroup
    }

    /// What became of a pushed element.
    package enum PushResult: Sendable, Hashable {
        /// It waits in the queue, or went straight to a waiting consumer.
        case queued
        /// The overflow policy dropped it (counted in ``Statistics/dropped``).
        case dropped
        /// The queue was closed or cancelled: nobody will take it.
        case closed
    }

    /// What ``pop(deadline:)`` got.
    package enum PopResult {
        /// The oldest element.
        case element(Element)
        /// The deadline passed with nothing to take.
        case timedOut
        /// The queue was closed and is empty; the error given to ``close(_:)``, if any (once:
        /// later pops end with nil).
        case ended((any Error)?)
        /// The queue was cancelled.
        case cancelled
    }

    /// Counters, read together.
    package struct Statistics: Sendable, Hashable {
        /// Counted elements waiting.
        package var count = 0
        /// Their declared bytes.
        package var bytes = 0
        /// Exempt elements waiting.
        package var exemptCount = 0
        /// Elements the overflow policy dropped so far (pushed and dropped, or dropped to make
        /// room).
        package var dropped = 0
    }

    private struct Entry {
        var element: Element?
        let bytes: Int
        let group: UInt64?
        let exempt: Bool
    }

    private enum Phase {
        case open
        case closed((any Error)?)
        case cancelled
    }

    private struct State {
        var entries: [Entry] = []
        /// Index of the oldest entry still waiting in `entries`.
        var head = 0
        var statistics = Statistics()
        var phase = Phase.open
        /// The end (or the cancellation) has been handed to a consumer.
        var endTaken = false
        /// The group whose later elements are dropped (the rest of a dropped element's group).
        var droppingGroup: UInt64?
        /// A task suspended in `next()` (the queue is then empty).
        var consumer: UnsafeContinuation<Element?, any Error>?

        var isOpen: Bool {
            if case .open = phase { return true }
            return false
        }

        mutating func append(_ entry: Entry) {
            entries.append(entry)
            if entry.exempt {
                statistics.exemptCount &+= 1  // below the number of entries
            } else {
                statistics.count &+= 1
                statistics.bytes &+= entry.bytes  // the bytes waiting stay below maximumBytes plus one element's
            }
        }

        mutating func popFirst() -> Element? {
            guard head < entries.count else { return nil }
            let entry = entries[head]
            entries[head].element = nil
            head &+= 1  // head < entries.count
            forget(entry)
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32 && head &* 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return entry.element
        }

        mutating func forget(_ entry: Entry) {
            if entry.exempt {
                statistics.exemptCount &-= 1
            } else {
                statistics.count &-= 1
                statistics.bytes &-= entry.bytes
            }
        }

        /// Removes the waiting counted entries that `drop` selects; returns how many.
        mutating func removeCounted(where drop: (Entry) -> Bool) -> Int {
            let before = statistics.count
            var kept: [Entry] = []
            kept.reserveCapacity(entries.count &- head)
            for entry in entries[head...] {
                if !entry.exempt && drop(entry) { forget(entry) } else { kept.append(entry) }
            }
            entries = kept
            head = 0
            return before &- statistics.count
        }

        /// Removes the oldest counted entry; returns 1, or 0 when none waits.
        mutating func removeFirstCounted() -> Int {
            guard let index = entries[head...].firstIndex(where: { !$0.exempt }) else { return 0 }
            if index == head {
                _ = popFirst()
            } else {
                forget(entries[index])
                entries.remove(at: index)
            }
            return 1
        }

        /// Releases everything waiting.
        mutating func removeAll() {
            entries = []
            head = 0
            statistics.count = 0
            statistics.bytes = 0
            statistics.exemptCount = 0
        }
    }

    /// The most counted elements that wait (at least 1).
    package let capacity: Int
    /// The most declared bytes of counted elements that wait (nil: no byte bound).
    package let maximumBytes: Int?
    /// What a push does when the queue is full.
    package let overflow: Overflow
    private let lock = ThreadLock(State())

    /// An empty queue.
    /// - Parameters:
    ///   - capacity: the most counted elements that wait; below 1 is taken as 1.
    ///   - maximumBytes: the most declared bytes they hold (nil: no byte bound).
    ///   - overflow: what a push does when the queue is full.
    package init(capacity: Int, maximumBytes: Int? = nil, overflow: Overflow) {
        self.capacity = max(1, capacity)
        self.maximumBytes = maximumBytes.map { max(0, $0) }
        self.overflow = overflow
    }

    /// The counters.
    package var statistics: Statistics { lock.withLock { $0.statistics } }

    /// True until ``close(_:)`` or ``cancel()``.
    package var isOpen: Bool { lock.withLock { $0.isOpen } }

    // MARK: Producers

    /// Adds `element` at the end, or applies the overflow policy when the queue is full.
    /// - Parameters:
    ///   - element: the element.
    ///   - bytes: its size for ``maximumBytes`` (0 when only elements are counted).
    ///   - group: the key of the group it belongs to (nil: its own group).
    ///   - exempt: never dropped, not counted against the bounds (a control message).
    ///   - deadline: under ``Overflow/block``, the longest wait for room (nil: without a limit;
    ///     ``Deadline/now``: none).
    /// - Returns: whether it was queued, dropped, or refused because the queue has ended.
    /// - Complexity: O(1) amortised; O(waiting elements) when a drop removes an element other
    ///   than the oldest (an oldest group, an oldest counted element behind exempt ones).
    @discardableResult
    package func push(_ element: Element, bytes: Int = 0, group: UInt64? = nil, exempt: Bool = false,
                      deadline: Deadline? = nil) -> PushResult {
        let entry = Entry(element: element, bytes: max(0, bytes), group: group, exempt: exempt)
        var groupChecked = false
        let outcome = lock.withLock(waitingUntil: deadline) { s, waiter, timedOut -> (PushResult, UnsafeContinuation<Element?, any Error>?)? in
            guard s.isOpen else { return (.closed, nil) }
            if !groupChecked {  // once per push, not again after a wait
                groupChecked = true
                if !exempt, let group {
                    if s.droppingGroup == group {
                        s.statistics.dropped &+= 1  // one per push: cannot reach Int.max
                        return (.dropped, nil)
                    }
                    s.droppingGroup = nil  // another group has begun
                }
            }
            while true {
                // A waiting task means nothing waits (checked again after each sleep: the
                // consumer may have emptied the queue meanwhile): hand the element over.
                if let consumer = s.consumer {
                    s.consumer = nil
                    return (.queued, consumer)
                }
                if exempt || fits(entry.bytes, s.statistics) {
                    s.append(entry)
                    waiter.signalAll()
                    return (.queued, nil)
                }
                switch overflow {
                case .block:
                    return timedOut ? (dropNewest(&s, group), nil) : nil  // nil: sleep until room or the deadline
                case .dropNewest:
                    return (dropNewest(&s, group), nil)
                case .dropOldest:
                    s.statistics.dropped &+= s.removeFirstCounted()
                case .dropOldestGroup:
                    // Full means at least one counted element waits.
                    let oldest = s.entries[s.head...].first { !$0.exempt }!
                    if let key = oldest.group, key == group { return (dropNewest(&s, group), nil) }
                    if let key = oldest.group {
                        s.statistics.dropped &+= s.removeCounted { $0.group == key }
                    } else {
                        s.statistics.dropped &+= s.removeFirstCounted()
                    }
                }
            }
        }
        // The last run (timed out) always returns a value: a .block push drops then.
        let (result, consumer) = outcome ?? (.dropped, nil)
        consumer?.resume(returning: element)
        return result
    }

    private func fits(_ bytes: Int, _ statistics: Statistics) -> Bool {
        guard statistics.count < capacity else { return false }
        guard let maximumBytes, statistics.count > 0 else { return true }
        return bytes <= maximumBytes &- statistics.bytes  // statistics.bytes <= maximumBytes while count > 0
    }

    private func dropNewest(_ s: inout State, _ group: UInt64?) -> PushResult {
        s.statistics.dropped &+= 1
        s.droppingGroup = group
        return .dropped
    }

    // MARK: Consumers

    /// Takes the oldest element, waiting until `deadline` (nil: without a limit) for one.
    /// - Returns: the element; ``PopResult/timedOut``; the end once the queue is closed and
    ///   empty; ``PopResult/cancelled``.
    package func pop(deadline: Deadline? = nil) -> PopResult {
        let result = lock.withLock(waitingUntil: deadline) { s, waiter, timedOut -> PopResult? in
            if let element = s.popFirst() {
                waiter.signalAll()  // a producer waiting for room
                return .element(element)
            }
            switch s.phase {
            case .open:
                return timedOut ? .timedOut : nil  // nil: sleep until an element, the end or the deadline
            case .closed(let error):
                defer { s.endTaken = true }
                return .ended(s.endTaken ? nil : error)
            case .cancelled:
                return .cancelled
            }
        }
        return result ?? .timedOut
    }

    /// Takes the oldest element from a task, suspending while none waits (one task at a time).
    /// When the task is cancelled, the queue is cancelled (``cancel()``).
    /// - Returns: the element; nil after the end.
    /// - Throws: the error given to ``close(_:)``, once, after the elements; `CancellationError`
    ///   once the queue is cancelled (once: later calls return nil).
    package func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Element?, any Error>) in
                let outcome = lock.withLock { s, waiter -> Result<Element?, any Error>? in
                    if let element = s.popFirst() {
                        waiter.signalAll()
                        return .success(element)
                    }
                    switch s.phase {
                    case .open:
                        s.consumer = continuation
                        return nil
                    case .closed(let error):
                        defer { s.endTaken = true }
                        if !s.endTaken, let error { return .failure(error) }
                        return .success(nil)
                    case .cancelled:
                        defer { s.endTaken = true }
                        return s.endTaken ? .success(nil) : .failure(CancellationError())
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    // MARK: Ending

    /// Ends the queue: later pushes are refused, producers waiting for room wake and are
    /// refused, and the consumer gets what waits, then the end with `error` (ignored once the
    /// queue has ended).
    package func close(_ error: (any Error)? = nil) {
        let consumer = lock.withLock { s, waiter -> UnsafeContinuation<Element?, any Error>? in
            guard s.isOpen else { return nil }
            s.phase = .closed(error)
            waiter.signalAll()
            guard let consumer = s.consumer else { return nil }
            s.consumer = nil
            s.endTaken = true
            return consumer
        }
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
    }

    /// Ends the queue at once: what waits is released, producers waiting for room are refused,
    /// a waiting consumer gets ``PopResult/cancelled`` (or `CancellationError`). Idempotent; a
    /// queue whose end was already taken stays ended.
    package func cancel() {
        let consumer = lock.withLock { s, waiter -> UnsafeContinuation<Element?, any Error>? in
            s.removeAll()
            if case .closed = s.phase, s.endTaken { return nil }
            s.phase = .cancelled
            waiter.signalAll()
            guard let consumer = s.consumer else { return nil }
            s.consumer = nil
            s.endTaken = true
            return consumer
        }
        consumer?.resume(throwing: CancellationError())
    }
}
