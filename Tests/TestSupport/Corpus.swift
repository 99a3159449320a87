import Foundation

/// The shared public test corpus (`../shared/corpus` next to the package root, or one level
/// further up for a git worktree in a subfolder): the one locator every test target uses.
///
/// The corpus is absent on a fresh clone: tests that use it are enabled with
/// `.enabled(if: Corpus.isPresent, ...)`, so they skip with a reason, and the lists below are
/// empty then.
public enum Corpus {
    /// The corpus folder (where it would be when absent).
    public static let root: String = {
        let candidates = [Support.root + "/../shared/corpus", Support.root + "/../../shared/corpus"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") } ?? candidates[0]
    }()

    /// Whether the corpus is there.
    public static let isPresent: Bool = FileManager.default.fileExists(atPath: root + "/README.md")

    /// A corpus file's full path.
    public static func path(_ relative: String) -> String { root + "/" + relative }

    /// A corpus file's bytes.
    /// - Throws: when the file cannot be read (a test that reaches this with the corpus
    ///   present fails; it never sees an empty file instead).
    public static func read(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// The Annex-B elementary streams (`openh264/BA_MW_D.264`, ...), sorted; every file of the
    /// four stream folders (`mp4ff/*.264` are length-prefixed, not Annex B).
    public static let annexBStreams: [String] = files(in: ["openh264", "hibernia", "fate-frext", "cros-codecs"],
                                                      extensions: ["264", "h264", "jsv", "avc", "26l", "jvt"])

    /// The MP4 files (`mp4ff/mp4__prog_8s.mp4`, ...), sorted.
    public static let mp4Files: [String] = files(in: ["mp4ff", "mp4parse-rust"], extensions: ["mp4", "m4s"])

    static func files(in folders: [String], extensions: Set<String>) -> [String] {
        guard isPresent else { return [] }
        var out: [String] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
            for name in names.sorted() where extensions.contains((name as NSString).pathExtension.lowercased()) {
                out.append(folder + "/" + name)
            }
        }
        return out
    }
}
