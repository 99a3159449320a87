// The libFuzzer entry point of every target. One binary serves all targets (a build of the
// whole core takes minutes on a small machine): Tests/Fuzz/run.sh sets FUZZ_TARGET to the name
// of a FuzzBodies.targets entry (Tests/H264Tests/Fuzz/FuzzBodies.swift), whose function is
// shared with the regression tests.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body selected by FUZZ_TARGET, looked up once.
let selectedBody: @Sendable ([UInt8]) -> Void = {
    guard let raw = getenv("FUZZ_TARGET"), let body = FuzzBodies.targets[String(cString: raw)] else {
        let names = FuzzBodies.targets.keys.sorted().joined(separator: ", ")
        fatalError("set FUZZ_TARGET to one of: \(names)")
    }
    return body
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedBody(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
