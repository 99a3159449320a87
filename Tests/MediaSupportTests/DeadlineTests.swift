import Testing
import MediaSupport

/// The one deadline type and its one conversion to `poll` milliseconds.
@Suite struct DeadlineTests {
    @Test func pollTimeoutRoundsUpAndClamps() {
        #expect(Deadline.pollTimeout(nil) == -1)
        #expect(Deadline.pollTimeout(.now) == 0)
        #expect(Deadline.pollTimeout(.after(.seconds(-5))) == 0)
        // A wait never ends before its deadline: a remainder below a millisecond is a whole one.
        let hour = Deadline.pollTimeout(.after(.seconds(3600)))
        #expect(hour > 3_590_000 && hour <= 3_600_000)
        #expect(Deadline.pollTimeout(.after(.seconds(10_000_000))) == Int32.max)
    }

    @Test func aPassedDeadlineIsPastAndHasNothingLeft() {
        let passed = Deadline.after(.zero)
        #expect(passed.hasPassed)
        #expect(passed.remaining == .zero)
        let later = Deadline.after(.seconds(60))
        #expect(!later.hasPassed)
        #expect(later.remaining > .seconds(59))
        #expect(later.capped(at: .seconds(1)) < later)
        #expect(passed < later)
    }
}
