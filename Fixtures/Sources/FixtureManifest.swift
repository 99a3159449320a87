import Foundation

/// The fixture manifest (`Fixtures/manifest.json`): the facts of every stream and the versions
/// of the tools that made and measured them.
public struct FixtureManifest: Sendable, Decodable {
    /// The versions of x264 and FFmpeg used by `make-fixtures.sh`, by tool name.
    public let tools: [String: String]
    /// One entry per stream, in file-name order.
    public let fixtures: [FixtureFacts]

    /// The manifest shipped in this module's resource bundle.
    ///
    /// A missing or unreadable manifest means a broken installation and stops the program.
    public static let shared: FixtureManifest = {
        guard let url = Bundle.module.url(forResource: "manifest", withExtension: "json"),
              let data = FileManager.default.contents(atPath: url.path) else {
            preconditionFailure("the H264Fixtures resource bundle has no manifest.json")
        }
        do {
            return try JSONDecoder().decode(FixtureManifest.self, from: data)
        } catch {
            preconditionFailure("manifest.json does not decode: \(error)")
        }
    }()

    /// The facts of the stream named `file`, or nil when the manifest does not list it.
    /// - Complexity: O(n) in the number of fixtures (a few dozen).
    public func facts(for file: String) -> FixtureFacts? {
        fixtures.first { $0.file == file }
    }
}
