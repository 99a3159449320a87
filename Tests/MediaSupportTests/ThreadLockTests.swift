import Dispatch
import Testing
import MediaSupport

/// The lock that frame sources and the RTMP publisher share state behind.
@Suite struct ThreadLockTests {
    @Test func incrementsFromTwoThreadsAreNotLost() {
        let lock = ThreadLock(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50_000 { lock.withLock { $0 += 1 } }
        }
        #expect(lock.withLock { $0 } == 200_000)
    }

    @Test func aWaiterSleepsWithoutTheLockAndWakesOnSignal() {
        struct State { var ready = false, waiting = false, woke = false }
        let lock = ThreadLock(State())
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            lock.withLock { s, waiter in
                s.waiting = true
                while !s.ready { waiter.wait() }
                s.woke = true
            }
            done.signal()
        }
        // The waiter must release the lock while it sleeps, or this loop could never see it waiting.
        var sawWaiting = false
        for _ in 0..<10_000 where !sawWaiting {
            sawWaiting = lock.withLock { $0.waiting }
            if !sawWaiting { usleepShort() }
        }
        #expect(sawWaiting)
        #expect(lock.withLock { $0.woke } == false)
        lock.withLock { $0.ready = true }
        lock.signalAll()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(lock.withLock { $0.woke })
    }

    private func usleepShort() {
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
    }
}

extension ThreadLockTests {
    /// Without a signal, a timed wait ends at its deadline (a wait that ignored it would never end).
    @Test func aTimedWaitEndsAtItsDeadlineWithoutASignal() throws {
        let lock = ThreadLock(0)
        #expect(lock.withLock { _, waiter in waiter.wait(until: .now) } == false)
        let waiting = try Spawned { () -> Bool in
            let deadline = Deadline.after(.milliseconds(30))
            return lock.withLock { _, waiter -> Bool in
                while !deadline.hasPassed { waiter.wait(until: deadline) }
                return true
            }
        }
        #expect(waiting.value() == true)
    }
}
