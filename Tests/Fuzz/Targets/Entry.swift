// The libFuzzer entry point of every target. One binary serves all targets: Tests/Fuzz/run.sh
// sets FUZZ_TARGET to the name of a FuzzBodies.targets entry (Tests/H264Tests/Fuzz/FuzzBodies.swift),
// whose function is shared with the regression tests. With FUZZ_MAKE_SEEDS=DIR the binary instead
// writes the target's derived seeds (FuzzSeeds.swift) from the Annex-B files named on its command
// line into DIR, and exits.
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

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    guard let dir = getenv("FUZZ_MAKE_SEEDS"), let target = getenv("FUZZ_TARGET") else { return 0 }
    let maximum = getenv("FUZZ_MAX_LEN").flatMap { Int(String(cString: $0)) } ?? 4096
    var streams: [[UInt8]] = []
    for i in 1..<Int(argc.pointee) {
        guard let path = argv.pointee[i], let file = fopen(path, "rb") else { continue }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        fclose(file)
        streams.append(bytes)
    }
    let name = String(cString: target)
    for (i, seed) in FuzzSeeds.make(target: name, streams: streams, maximumLength: maximum).enumerated() {
        let path = String(cString: dir) + "/derived-\(i)"
        guard let file = fopen(path, "wb") else { continue }
        _ = seed.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedBody(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
