import Testing

extension FuzzProperty {
    /// Runs a fuzz body on `bytes` inside a test: a violated property becomes a recorded issue
    /// (naming `label` and the property) instead of a trap, and the run goes on.
    public static func replay(_ body: ([UInt8]) -> Void, _ bytes: [UInt8], label: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        recordingViolations({ message in
            Issue.record("\(label): fuzz property violated: \(message)", sourceLocation: sourceLocation)
        }) {
            body(bytes)
        }
    }
}

/// A trait for suites and tests that call fuzz bodies or their helpers directly: inside them a
/// violated property is a recorded issue, not a trap.
public struct RecordingFuzzViolations: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await FuzzProperty.$onViolation.withValue({ message in
            Issue.record("fuzz property violated: \(message)")
        }) {
            try await function()
        }
    }
}

extension Trait where Self == RecordingFuzzViolations {
    /// Fuzz properties violated inside the test are recorded issues (see ``FuzzProperty``).
    public static var recordingFuzzViolations: Self { RecordingFuzzViolations() }
}
