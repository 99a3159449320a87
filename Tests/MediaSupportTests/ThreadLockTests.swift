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
            _ = lock.withLock(waitingUntil: nil) { s, _, _ -> Bool? in
                s.waiting = true
                guard s.ready else { return nil }
                s.woke = true
                return true
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
        var runs: [Bool] = []
        #expect(lock.withLock(waitingUntil: .now) { _, _, timedOut -> Int? in runs.append(timedOut); return nil } == nil)
        #expect(runs == [true], "a passed deadline: one run, told it timed out")
        let waiting = try Spawned { () -> Bool in
            let deadline = Deadline.after(.milliseconds(30))
            let result = lock.withLock(waitingUntil: deadline) { _, _, timedOut -> Bool? in timedOut ? true : nil }
            return result == true && deadline.hasPassed
        }
        #expect(waiting.value() == true)
    }

    /// Each run after a wake-up reads the state afresh: a flag set by another thread while the
    /// waiter sleeps is seen (in a release build a value read inside one `inout` access could
    /// be kept in a register across a sleep: the waiter then never saw it).
    @Test func aRunAfterAWakeUpSeesWhatAnotherThreadChanged() throws {
        struct State { var flag = false, runs = 0 }
        let lock = ThreadLock(State())
        let waiting = try Spawned { () -> Int? in
            lock.withLock(waitingUntil: .after(.seconds(30))) { s, _, _ -> Int? in
                s.runs += 1
                return s.flag ? s.runs : nil
            }
        }
        for _ in 0..<10_000 where lock.withLock({ $0.runs }) == 0 {
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
        }
        lock.withLock { $0.flag = true }
        lock.signalAll()
        let runs = waiting.value() ?? nil
        #expect(runs != nil && runs! >= 2, "woke and saw the flag: \(String(describing: runs))")
    }
}
