// swift-tools-version:6.0
import PackageDescription

// The repository is three folders up. A path dependency's package identity is its folder's name
// (swift-h264 in a clone named so, something else in a worktree), so it is computed here; in your
// own package write `.package(url: "https://…/swift-h264.git", from: "…")` with
// `package: "swift-h264"`, or `.package(path: "…/swift-h264")` with the folder's name.
let repository = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/"))
let identity = String(repository.split(separator: "/").last!).lowercased()

let package = Package(
    name: "IngestToHLS",
    dependencies: [.package(path: repository)],
    targets: [
        .executableTarget(name: "IngestToHLS", dependencies: [.product(name: "H264", package: identity), .product(name: "H264Video", package: identity), .product(name: "X264", package: identity), .product(name: "FLV", package: identity), .product(name: "RTMP", package: identity), .product(name: "MP4", package: identity)])
    ],
    swiftLanguageModes: [.v6]
)
