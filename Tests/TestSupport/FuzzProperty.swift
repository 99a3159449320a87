// Compiled into TestSupport, for the tests that replay fuzz bodies, and into the libFuzzer binary
// (Tests/Fuzz/run.sh lists this file with the bodies): no Foundation here.

/// Where a fuzz body reports a broken promise of the library.
///
/// In the libFuzzer binary a violation traps, so that libFuzzer saves the input. In the tests
/// (regressions, mutations) the bodies run inside ``recordingViolations(_:_:)``, which turns each
/// violation into a recorded issue: the test fails, names the property, and the rest of the run
/// goes on.
public enum FuzzProperty {
    /// What a violation does in the current task: trap by default.
    @TaskLocal public static var onViolation: @Sendable (String) -> Void = { message in
        fatalError("fuzz property violated: \(message)")
    }

    /// Reports a violation when `condition` is false.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { onViolation(message()) }
    }

    /// Reports a violation.
    public static func violated(_ message: String) {
        onViolation(message)
    }

    /// Runs `body` with violations handed to `report` instead of trapping.
    public static func recordingViolations<R>(_ report: @escaping @Sendable (String) -> Void,
                                              _ body: () throws -> R) rethrows -> R {
        try $onViolation.withValue(report) { try body() }
    }
}
