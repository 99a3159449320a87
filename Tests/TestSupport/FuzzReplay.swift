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
