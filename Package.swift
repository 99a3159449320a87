// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-h264",
    products: [
        .library(name: "H264", targets: ["H264"]),
        .library(name: "H264Video", targets: ["H264Video"]),
        .library(name: "X264", targets: ["X264"]),
        .library(name: "H264Fixtures", targets: ["H264Fixtures"]),
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "FLV", targets: ["FLV"]),
        .library(name: "RTMP", targets: ["RTMP"]),
        .library(name: "MP4", targets: ["MP4"]),
        .library(name: "MPEGTS", targets: ["MPEGTS"]),
        .library(name: "SRT", targets: ["SRT"]),
        .library(name: "RTSP", targets: ["RTSP"]),
        .library(name: "H264Delivery", targets: ["H264Delivery"]),
        .executable(name: "h264", targets: ["H264CLI"]),
    ],
    targets: [
        // The core: pure Swift, standard library only.
        .target(name: "H264"),
        // Frames and pixels over the core's frame types: Y4M and raw-frame readers, a test
        // pattern, RGB <-> YCbCr conversion, frame sources as async sequences. Standard library,
        // and the C library's threads for the last (the core cannot start a thread).
        .target(name: "H264Video", dependencies: ["H264", "MediaSupport"]),
        // The plumbing every module above the core shares, written once (package access: in no
        // product's API): the lock, the bounded queue, the off-pool thread, the sockets (TCP
        // connect and listen, UDP, multicast) with one deadline type and one interrupt, and
        // what the modules read and write with. The C library only.
        .target(name: "MediaSupport"),
        // libx264, found with pkg-config (Debian: libx264-dev). x264.pc's Cflags carry
        // -DX264_API_IMPORTS, a Windows DLL switch SwiftPM declines with a warning; it means
        // nothing on Linux (why the warning stays: Docs/Encoding.md).
        .systemLibrary(
            name: "CX264",
            pkgConfig: "x264",
            providers: [.apt(["libx264-dev"])]
        ),
        .target(name: "X264", dependencies: ["H264", "H264Video", "CX264", "MediaSupport"]),
        // RTP payload format for H.264 (RFC 6184) and SDP helpers: pure Swift over the core.
        .target(name: "RTP", dependencies: ["H264", "MediaSupport"]),
        // FLV files and AMF0: the H264 core only, no Foundation.
        .target(name: "FLV", dependencies: ["H264", "MediaSupport"]),
        // RTMP publishing over Glibc sockets: FLV and the core, no Foundation.
        .target(name: "RTMP", dependencies: ["FLV", "H264", "MediaSupport"]),
        // MPEG-2 transport streams (ISO/IEC 13818-1): the muxer and the push demuxer, over the
        // core's access units: the H264 core only, no Foundation.
        .target(name: "MPEGTS", dependencies: ["H264", "MediaSupport"]),
        // The RTSP client (RFC 2326, URLs as RFC 7826): the session over MediaSupport's TCP
        // socket, media through RTP's depacketiser and receiver, RTCP feedback: no Foundation.
        .target(name: "RTSP", dependencies: ["RTP", "H264", "MediaSupport"]),
        // libsrt, found with pkg-config (Debian: libsrt-openssl-dev): a module map and one shim
        // header.
        .systemLibrary(
            name: "CSRT",
            pkgConfig: "srt",
            providers: [.apt(["libsrt-openssl-dev"])]
        ),
        // SRT (Secure Reliable Transport) caller and listener over libsrt, and MPEG-TS over it:
        // the only code that sees libsrt's C API.
        .target(name: "SRT", dependencies: ["CSRT", "MPEGTS", "H264", "MediaSupport"]),
        // MP4 and fragmented MP4 (CMAF) files and HLS playlists, with fMP4 or TS segments (the
        // latter written by MPEGTS): no Foundation.
        .target(name: "MP4", dependencies: ["H264", "MPEGTS", "MediaSupport"]),
        // Delivery profiles (WebRTC, RTMP, HLS, RTSP, the strict spec): rules with their clauses,
        // the streaming checker and the fixer that rewrites headers without re-encoding; FLV for
        // the RTMP rules, which need its keyframe flags and sequence headers.
        .target(name: "H264Delivery", dependencies: ["H264", "FLV"]),
        // Test tooling for users' tests: small streams the project owns with their known facts
        // (Foundation), and the stream builder that writes streams no encoder makes (the core's
        // syntax writers). The target lives in Fixtures/ beside the script that regenerates the
        // streams.
        .target(
            name: "H264Fixtures",
            dependencies: ["H264"],
            path: "Fixtures",
            exclude: ["make-fixtures.sh", "fixturetool.py", "README.md"],
            resources: [.copy("Streams"), .copy("manifest.json")]
        ),
        // Argument parsing and the one JSON writer of the command-line programs (package access).
        .target(name: "CommandLineSupport"),
        .executableTarget(
            name: "H264CLI",
            dependencies: ["H264", "H264Video", "X264", "RTP", "RTSP", "FLV", "RTMP", "MP4", "MPEGTS", "SRT", "H264Delivery",
                           "H264Fixtures", "MediaSupport", "CommandLineSupport"]
        ),
        // The benchmark executable (no product: `swift run -c release H264Benchmarks`), and its
        // allocation count: the C allocator's entry points, counted and forwarded, interposed in
        // this executable and the test process only, never in the shipped `h264`.
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "H264Benchmarks",
            dependencies: ["H264", "H264Video", "RTP", "FLV", "RTMP", "MPEGTS", "H264Delivery", "MediaSupport", "CommandLineSupport",
                           "CAllocationCounter"]
        ),
        // Paths, ffmpeg/ffprobe and subprocess helpers shared by the tests, the splitter's drivers
        // the framing tests and the fuzz bodies share, and the allocation count of the allocation
        // suites (the benchmark's counter, linked into the test process).
        .target(name: "TestSupport", dependencies: ["H264", "CAllocationCounter"], path: "Tests/TestSupport"),
        .testTarget(name: "H264Tests", dependencies: ["H264", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "MediaSupportTests", dependencies: ["MediaSupport"]),
        .testTarget(name: "H264VideoTests", dependencies: ["H264Video", "H264", "MediaSupport"]),
        .testTarget(name: "X264Tests", dependencies: ["X264", "H264Video", "H264", "TestSupport"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "H264", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "FLVTests", dependencies: ["FLV", "H264", "TestSupport"]),
        .testTarget(name: "RTMPTests", dependencies: ["RTMP", "FLV", "H264", "X264", "H264Video", "MP4", "MediaSupport", "TestSupport"]),
        .testTarget(name: "MP4Tests", dependencies: ["MP4", "H264", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "RTSPTests", dependencies: ["RTSP", "RTP", "H264", "H264Fixtures", "MediaSupport", "TestSupport"]),
        .testTarget(name: "MPEGTSTests", dependencies: ["MPEGTS", "MP4", "H264", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "SRTTests", dependencies: ["SRT", "MPEGTS", "H264", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "H264DeliveryTests", dependencies: ["H264Delivery", "H264", "H264Fixtures", "FLV", "TestSupport"]),
        .testTarget(name: "H264CLITests", dependencies: ["H264CLI", "CommandLineSupport", "H264", "H264Video", "H264Fixtures", "FLV", "MP4",
                                                      "RTP", "MPEGTS", "SRT", "MediaSupport", "TestSupport"]),
        // Tests across modules: the fuzz bodies of every target but MP4's (compiled into the fuzz
        // binary too, Tests/Fuzz/run.sh) with their kept inputs, the mutation sweep through every
        // entry point, field bugs through RTP.
        .testTarget(name: "IntegrationTests", dependencies: ["H264", "H264Fixtures", "H264Video", "RTP", "FLV", "RTMP", "MPEGTS",
                                                          "RTSP", "TestSupport"]),
        // The benchmark executable's measurements, and the allocation suites that count with it
        // (optimised builds only: `.ci/run` runs them in a release pass).
        // The code the DocC articles show, compiled and run: each article's snippet is a marked
        // region of a test here, and Docs/check-snippets.py checks that the two are the same.
        .testTarget(name: "DocSnippetTests", dependencies: ["H264", "H264Video", "X264", "RTP", "FLV", "RTMP", "MP4", "MPEGTS", "RTSP",
                                                        "H264Delivery", "H264Fixtures", "TestSupport"]),
        .testTarget(name: "H264BenchmarksTests", dependencies: ["H264Benchmarks", "H264", "H264Fixtures", "RTMP", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
