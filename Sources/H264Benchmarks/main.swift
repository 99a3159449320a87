// The benchmark executable (not a product, not the shipped `h264` tool): throughput of the
// core's layers against memcpy, and heap allocations counted by interposing the C allocator
// (CAllocationCounter, linked into this executable only). Run it optimised:
//
//     swift run -c release H264Benchmarks [FILE] [--json] ...
import CommandLineSupport
import Foundation

var arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
if arguments.has("--help") || arguments.has("-h") {
    print(BenchCommand.usage)
    exit(0)
}
do {
    try BenchCommand.run(&arguments)
} catch {
    FileHandle.standardError.write(Data("H264Benchmarks: \(error)\n".utf8))
    exit(1)
}
