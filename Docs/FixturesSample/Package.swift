// swift-tools-version:6.0
// A package that tests its H.264 handling with H264Fixtures: the sample of the DocC article
// "Testing your bitstream code with H264Fixtures". It depends on swift-h264 by path.
import PackageDescription

let package = Package(
    name: "FixturesSample",
    dependencies: [
        // In your package: .package(url: "https://.../swift-h264.git", from: "...").
        // `name:` because a path dependency is otherwise named after its directory.
        .package(name: "swift-h264", path: "../.."),
    ],
    targets: [
        .testTarget(
            name: "FixturesSampleTests",
            dependencies: [
                .product(name: "H264", package: "swift-h264"),
                .product(name: "H264Fixtures", package: "swift-h264"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
