import Foundation

/// The files of the shared test corpus (`../shared/corpus`, located by ``Support``) by kind,
/// as paths relative to it; empty when the corpus is absent (tests that use them are enabled
/// only when it is present).
public enum CorpusStreams {
    /// The Annex-B elementary streams (`openh264/BA_MW_D.264`, ...), sorted.
    public static let annexB: [String] = files(in: ["openh264", "hibernia", "fate-frext", "cros-codecs"],
                                                extensions: ["264", "h264", "jsv", "avc", "26l", "jvt"])

    /// The MP4 files (`mp4ff/mp4__prog_8s.mp4`, ...), sorted.
    public static let mp4: [String] = files(in: ["mp4ff", "mp4parse-rust"], extensions: ["mp4", "m4s"])

    /// A corpus file's full path.
    public static func path(_ relative: String) -> String { Support.corpus + "/" + relative }

    static func files(in folders: [String], extensions: Set<String>) -> [String] {
        var out: [String] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: Support.corpus + "/" + folder)) ?? []
            for name in names.sorted() where extensions.contains((name as NSString).pathExtension.lowercased()) {
                out.append(folder + "/" + name)
            }
        }
        return out
    }
}
