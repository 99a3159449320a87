import Testing
import MediaSupport

/// The one bounded queue: each overflow policy, back-pressure that blocks and wakes, the
/// memory bound, the end and cancellation, from threads and from tasks.
@Suite struct BoundedQueueTests {
    /// Takes what waits without waiting.
    static func drain<T>(_ queue: BoundedQueue<T>) -> [T] {
        var out: [T] = []
        while case .element(let e) = queue.pop(deadline: .now) { out.append(e) }
        return out
    }

    @Test func firstInFirstOutThenTheEnd() {
        let queue = BoundedQueue<Int>(capacity: 4, overflow: .block)
        for i in 1...3 { #expect(queue.push(i) == .queued) }
        queue.close()
        #expect(queue.push(4) == .closed)
        #expect(Self.drain(queue) == [1, 2, 3])
        guard case .ended(nil) = queue.pop() else { Issue.record("expected the end"); return }
        guard case .ended(nil) = queue.pop(deadline: .now) else { Issue.record("the end stays"); return }
    }

    struct Failure: Error, Equatable {}

    @Test func theErrorOfCloseComesOnceAfterTheElements() {
        let queue = BoundedQueue<Int>(capacity: 4, overflow: .block)
        queue.push(1)
        queue.close(Failure())
        queue.close()  // ignored: the queue has ended
        guard case .element(1) = queue.pop() else { Issue.record("expected 1"); return }
        guard case .ended(let error?) = queue.pop() else { Issue.record("expected the error"); return }
        #expect(error as? Failure == Failure())
        guard case .ended(nil) = queue.pop() else { Issue.record("expected the plain end"); return }
    }

    @Test func blockWaitsForRoomAndDropsAtItsDeadline() throws {
        let queue = BoundedQueue<Int>(capacity: 2, overflow: .block)
        queue.push(1)
        queue.push(2)
        #expect(queue.push(3, deadline: .now) == .dropped)
        #expect(queue.push(3, deadline: .after(.milliseconds(50))) == .dropped)
        #expect(queue.statistics.dropped == 2)
        // A producer without a deadline sleeps until a consumer makes room.
        let producer = try Spawned { queue.push(4) }
        pause(.milliseconds(50))
        #expect(!producer.hasReturned)
        #expect(queue.statistics.count == 2)
        guard case .element(1) = queue.pop() else { Issue.record("expected 1"); return }
        #expect(producer.value() == .queued)
        #expect(Self.drain(queue) == [2, 4])
    }

    @Test func aConsumerSleepsUntilAProducerPushes() throws {
        let queue = BoundedQueue<Int>(capacity: 2, overflow: .block)
        guard case .timedOut = queue.pop(deadline: .after(.milliseconds(20))) else { Issue.record("expected a timeout"); return }
        let consumer = try Spawned { () -> Int? in
            if case .element(let e) = queue.pop() { return e }
            return nil
        }
        pause(.milliseconds(50))
        #expect(!consumer.hasReturned)
        queue.push(7)
        #expect(consumer.value() == 7)
    }

    @Test func cancelWakesAWaitingProducerAndConsumer() throws {
        let full = BoundedQueue<Int>(capacity: 1, overflow: .block)
        full.push(1)
        let producer = try Spawned { full.push(2) }
        let empty = BoundedQueue<Int>(capacity: 1, overflow: .block)
        let consumer = try Spawned { () -> Bool in
            if case .cancelled = empty.pop() { return true }
            return false
        }
        pause(.milliseconds(50))
        full.cancel()
        empty.cancel()
        #expect(producer.value() == .closed)
        #expect(consumer.value() == true)
        #expect(full.statistics.count == 0)  // what waited was released
    }

    @Test func dropOldestKeepsTheNewest() {
        let queue = BoundedQueue<Int>(capacity: 3, overflow: .dropOldest)
        for i in 1...5 { #expect(queue.push(i) == .queued) }
        #expect(queue.statistics.dropped == 2)
        #expect(Self.drain(queue) == [3, 4, 5])
    }

    @Test func dropNewestDropsTheRestOfTheGroup() {
        let queue = BoundedQueue<String>(capacity: 2, overflow: .dropNewest)
        #expect(queue.push("a", group: 1) == .queued)
        #expect(queue.push("b", group: 1) == .queued)
        #expect(queue.push("c", group: 1) == .dropped)
        #expect(queue.push("d", group: 1) == .dropped)  // depends on c: dropped though room may come
        #expect(queue.push("e", group: 2) == .dropped)  // still full
        guard case .element("a") = queue.pop() else { Issue.record("expected a"); return }
        #expect(queue.push("f", group: 2) == .dropped)  // room now, but e was dropped
        #expect(queue.push("g", group: 3) == .queued)
        #expect(queue.push("h") == .dropped)            // no group: only itself
        guard case .element("b") = queue.pop() else { Issue.record("expected b"); return }
        #expect(queue.push("i") == .queued)
        #expect(queue.statistics.dropped == 5)
        #expect(Self.drain(queue) == ["g", "i"])
    }

    @Test func dropOldestGroupDropsWholeGroups() {
        let queue = BoundedQueue<String>(capacity: 4, overflow: .dropOldestGroup)
        for (e, g) in [("a", 1), ("b", 1), ("c", 2), ("d", 2)] { queue.push(e, group: UInt64(g)) }
        #expect(queue.push("e", group: 3) == .queued)  // group 1 goes
        #expect(queue.statistics.dropped == 2)
        queue.push("f", group: 3)
        #expect(queue.push("g", group: 3) == .queued)  // group 2 goes
        queue.push("h", group: 3)
        #expect(Array(Self.peekAll(queue)) == ["e", "f", "g", "h"])
        // The only group waiting is the new element's own: the new one goes, and its group's rest.
        #expect(queue.push("i", group: 3) == .dropped)
        #expect(queue.push("j", group: 3) == .dropped)
        #expect(queue.push("k", group: 4) == .queued)  // group 3 goes whole
        #expect(queue.statistics.dropped == 4 + 2 + 4)
        #expect(Self.drain(queue) == ["k"])
    }

    /// Reads what waits by draining a copy's worth and pushing it back (test helper).
    static func peekAll(_ queue: BoundedQueue<String>) -> [String] {
        let all = drain(queue)
        for e in all { queue.push(e, group: 3) }
        return all
    }

    @Test func exemptElementsAreNeitherCountedNorDropped() {
        let queue = BoundedQueue<String>(capacity: 1, overflow: .dropOldest)
        queue.push("header", exempt: true)
        queue.push("1")
        queue.push("2")
        queue.push("trailer", exempt: true)
        #expect(queue.statistics.count == 1)
        #expect(queue.statistics.exemptCount == 2)
        #expect(queue.statistics.dropped == 1)
        #expect(Self.drain(queue) == ["header", "2", "trailer"])
        let grouped = BoundedQueue<String>(capacity: 2, overflow: .dropOldestGroup)
        grouped.push("x", group: 1)
        grouped.push("sequence header", exempt: true)
        grouped.push("y", group: 1)
        grouped.push("z", group: 2)  // drops group 1 around the exempt element
        #expect(Self.drain(grouped) == ["sequence header", "z"])
    }

    @Test func theByteBoundHolds() {
        let queue = BoundedQueue<Int>(capacity: 100, maximumBytes: 1000, overflow: .dropOldest)
        for i in 0..<10 {
            queue.push(i, bytes: 300)
            #expect(queue.statistics.bytes <= 1000)
        }
        #expect(Self.drain(queue) == [7, 8, 9])
        // An element larger than the bound alone is taken when nothing else waits.
        queue.push(10, bytes: 300)
        queue.push(11, bytes: 5000)
        #expect(queue.statistics.count == 1)
        #expect(Self.drain(queue) == [11])
        let blocking = BoundedQueue<Int>(capacity: 100, maximumBytes: 1000, overflow: .block)
        #expect(blocking.push(1, bytes: 600) == .queued)
        #expect(blocking.push(2, bytes: 600, deadline: .now) == .dropped)
        #expect(blocking.push(3, bytes: 400, deadline: .now) == .queued)
    }

    /// Elements that count their own lives: a queue that kept dropped ones, or its storage's
    /// old slots, would hold more of them alive than its capacity.
    final class Tracked: Sendable {
        static let alive = ThreadLock(0)
        let payload = [UInt8](repeating: 1, count: 1024)
        init() { Self.alive.withLock { $0 += 1 } }
        deinit { Self.alive.withLock { $0 -= 1 } }
    }

    @Test func memoryStaysBoundedUnderEveryDroppingPolicy() {
        for overflow in [BoundedQueue<Tracked>.Overflow.dropOldest, .dropNewest, .dropOldestGroup] {
            let before = Tracked.alive.withLock { $0 }
            var most = 0
            do {
                let queue = BoundedQueue<Tracked>(capacity: 8, overflow: overflow)
                for i in 0..<5000 {
                    queue.push(Tracked(), bytes: 1024, group: UInt64(i / 30))
                    if i % 7 == 0 { _ = queue.pop(deadline: .now) }
                    most = max(most, Tracked.alive.withLock { $0 } - before)
                }
                #expect(queue.statistics.count <= 8)
            }
            #expect(most <= 8, "\(overflow)")
            #expect(Tracked.alive.withLock { $0 } == before, "\(overflow): the queue released everything")
        }
    }

    // MARK: From tasks

    @Test func aTaskTakesElementsAndTheEnd() async throws {
        let queue = BoundedQueue<Int>(capacity: 2, overflow: .block)
        let producer = try Spawned { () -> Bool in
            for i in 0..<100 where queue.push(i) != .queued { return false }
            queue.close(Failure())
            return true
        }
        var got: [Int] = []
        do {
            while let e = try await queue.next() { got.append(e) }
            Issue.record("expected the producer's error")
        } catch {
            #expect(error is Failure)
        }
        #expect(got == Array(0..<100))
        #expect(producer.value() == true)
        #expect(try await queue.next() == nil)
    }

    @Test func cancellingTheConsumingTaskCancelsTheQueue() async throws {
        let queue = BoundedQueue<Int>(capacity: 1, overflow: .block)
        let consumer = Task { try await queue.next() }
        try await Task.sleep(for: .milliseconds(20))  // suspended in next() by now, or cancelled before: the same end
        consumer.cancel()
        await #expect(throws: CancellationError.self) { _ = try await consumer.value }
        #expect(queue.push(1) == .closed)
        #expect(!queue.isOpen)
    }
}
