// In the MP4 fuzz binary, Tests/Fuzz/Targets/Entry.swift looks its body up in FuzzBodies.targets:
// here they are the MP4 bodies (Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift).
enum FuzzBodies {
    static let targets: [String: @Sendable ([UInt8]) -> Void] = MP4FuzzBodies.targets
}
