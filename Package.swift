// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-h264",
    products: [
        .library(name: "H264", targets: ["H264"]),
        .library(name: "X264", targets: ["X264"]),
        .library(name: "RTP", targets: ["RTP"]),
        .executable(name: "h264", targets: ["H264CLI"]),
    ],
    targets: [
        // The core: pure Swift, standard library only.
        .target(name: "H264"),
        // libx264, found with pkg-config (Debian: libx264-dev).
        .systemLibrary(
            name: "CX264",
            pkgConfig: "x264",
            providers: [.apt(["libx264-dev"])]
        ),
        .target(name: "X264", dependencies: ["H264", "CX264"]),
        // RTP payload format for H.264 (RFC 6184) and SDP helpers: pure Swift over the core.
        .target(name: "RTP", dependencies: ["H264"]),
        .executableTarget(name: "H264CLI", dependencies: ["H264", "X264", "RTP"]),
        .testTarget(name: "H264Tests", dependencies: ["H264"]),
        .testTarget(name: "X264Tests", dependencies: ["X264", "H264"]),
        .testTarget(name: "H264CLITests", dependencies: ["H264CLI"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "H264"]),
    ],
    swiftLanguageModes: [.v6]
)
