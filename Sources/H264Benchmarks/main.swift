// The benchmark executable (not a product, not the shipped `h264` tool): throughput of the
// core's layers against memcpy, and heap allocations counted by interposing the C allocator
// (CAllocationCounter, linked into this executable only). Run it optimised:
//
//     swift run -c release H264Benchmarks [FILE] [--json] ...
//     swift run -c release H264Benchmarks rtmp-load --url rtmp://127.0.0.1:PORT/live --input FILE ...
import CommandLineSupport
import Foundation

var arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
// `rtmp-load ...`: the RTMP server benchmark's load generator (RTMPLoad.swift).
let load = CommandLine.arguments.dropFirst().first == "rtmp-load"
if load { arguments = Arguments(Array(CommandLine.arguments.dropFirst(2))) }
if arguments.has("--help") || arguments.has("-h") {
    print(load ? RTMPLoadCommand.usage : BenchCommand.usage)
    exit(0)
}
do {
    if load { try RTMPLoadCommand.run(&arguments) } else { try BenchCommand.run(&arguments) }
} catch let behind as RTMPLoadCommand.LoadFellBehind {
    FileHandle.standardError.write(Data("H264Benchmarks: \(behind)\n".utf8))
    exit(3)
} catch {
    FileHandle.standardError.write(Data("H264Benchmarks: \(error)\n".utf8))
    exit(1)
}
