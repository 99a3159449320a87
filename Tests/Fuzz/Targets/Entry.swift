// The libFuzzer entry point of every target. One binary serves all targets: Tests/Fuzz/run.sh
// sets FUZZ_TARGET to the name of an entry of FuzzBodies.targets (Tests/IntegrationTests/Fuzz/FuzzBodies.swift)
// or MP4FuzzBodies.targets (Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift), whose function is shared
// with the regression tests. With FUZZ_MAKE_SEEDS=DIR the binary instead writes the target's
// derived seeds (FuzzSeeds.swift, MP4FuzzBodies.seeds) from the Annex-B files named on its command
// line into DIR, and exits.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every target's body, by name.
let allTargets = FuzzBodies.targets.merging(MP4FuzzBodies.targets) { first, _ in first }

/// The body selected by FUZZ_TARGET, looked up once.
let selectedBody: @Sendable ([UInt8]) -> Void = {
    guard let raw = getenv("FUZZ_TARGET"), let body = allTargets[String(cString: raw)] else {
        let names = allTargets.keys.sorted().joined(separator: ", ")
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
    let seeds = MP4FuzzBodies.targets[name] != nil
        ? MP4FuzzBodies.seeds(target: name, streams).map { Array($0.prefix(maximum)) }
        : FuzzSeeds.make(target: name, streams: streams, maximumLength: maximum)
    for (i, seed) in seeds.enumerated() {
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
