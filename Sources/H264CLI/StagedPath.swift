import CommandLineSupport
import Glibc

/// An output file written under a temporary name in its directory (`.NAME.partial-PID`) and
/// renamed to its name by ``commit()`` once it is finished: a command that fails leaves no
/// file under the output's name that looks complete (the temporary file is removed when the
/// object goes away uncommitted), and a reader of the name never sees half a file. A process
/// killed outright (SIGKILL, or a fourth Ctrl-C) leaves the temporary file, whose name says
/// what it is.
///
/// `-` (stdout) and a path that names something other than a regular file (`/dev/null`, a
/// pipe) are written in place: there is nothing to rename. A symbolic link to a file is
/// followed: the file it names is replaced, the link stays.
final class StagedPath {
    /// The name the output has when finished.
    let path: String
    /// Where the output is written until then: the temporary name, or ``path`` itself when
    /// it is not staged.
    let writingPath: String
    /// True while the output is under its temporary name.
    private(set) var isPending: Bool

    /// - Parameters:
    ///   - path: the output's name.
    ///   - staged: false writes at `path` directly (a recording that keeps what it got).
    init(_ path: String, staged: Bool = true) {
        self.path = path
        guard staged, OutputFile.isRegularFilePath(path) else {
            writingPath = path
            isPending = false
            return
        }
        let target = Self.resolvedLink(path) ?? path
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        writingPath = directory + "." + name + ".partial-\(getpid())"
        finalPath = target
        isPending = true
    }

    /// The file the rename replaces: ``path``, or the file a link at ``path`` names.
    private var finalPath: String?

    /// Gives the finished output its name (`rename(2)`, atomic within the directory).
    /// - Throws: ``CLIError`` when the rename fails (the temporary file is then removed).
    func commit() throws {
        guard isPending, let finalPath else { return }
        guard rename(writingPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            throw CLIError("cannot rename '\(writingPath)' to '\(path)': \(reason)")
        }
        isPending = false
    }

    /// Leaves the output under its temporary name (partial output a command keeps on purpose).
    /// - Returns: that name, or nil when the output was not staged or is already committed.
    func keep() -> String? {
        guard isPending else { return nil }
        isPending = false
        return writingPath
    }

    /// Removes the temporary file now (also done when the object goes away uncommitted).
    func discard() {
        guard isPending else { return }
        isPending = false
        unlink(writingPath)
    }

    deinit { discard() }

    /// The path a symbolic link at `path` resolves to, when it is one and its target exists.
    private static func resolvedLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
              let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
