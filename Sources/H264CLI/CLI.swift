import CommandLineSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import H264
import MediaSupport

/// A subcommand of `h264`.
protocol CLICommand {
    /// The word that selects the command (`nals`).
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var usage: String { get }
    /// Runs the command with the arguments after its name.
    static func run(_ args: inout Arguments) throws
    /// True for a command that runs long and finishes its output on SIGINT or SIGTERM
    /// (``Interruption``); false (the default) leaves the signals' default actions.
    static var finishesOnInterruption: Bool { get }
}

extension CLICommand {
    static var finishesOnInterruption: Bool { false }
}

/// Ends a command with an exit status other than 0 or 1, after its output (`h264 check`: 2
/// when the stream does not conform). Nothing is printed for it.
struct CLIExitStatus: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

extension CLIError {
    /// A failed file operation: its one line (`cannot write 'out.h264' after 65536 bytes: No
    /// space left on device`).
    init(_ error: FileError) { self.init(error.description) }
}

enum CLI {
    static func main(arguments: [String], commands: [any CLICommand.Type]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            print(overview(commands))
            return arguments.isEmpty ? 1 : 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.error("unknown command '\(first)'; see 'h264 --help'")
            return 1
        }
        var args = Arguments(Array(arguments.dropFirst()))
        if args.has("--help") || args.has("-h") {
            print(command.usage)
            return 0
        }
        if command.finishesOnInterruption { Interruption.install() }
        do {
            try command.run(&args)
            try Output.flush()
            if let signal = Interruption.signalName {
                Output.error("stopped by \(signal): the output is finished with what was read before it")
            }
            return 0
        } catch let status as CLIExitStatus {
            do { try Output.flush() } catch {
                Output.error(message(for: error))
                return 1
            }
            return status.code
        } catch {
            do { try Output.flush() } catch let failed { Output.error(message(for: failed)) }
            Output.error(message(for: error))
        }
        return 1
    }

    /// The one line printed for an error: the library's errors (every module's, the family of
    /// `CodedError`) as `code: reason`.
    static func message(for error: any Error) -> String {
        if let error = error as? any CodedError { return "\(error.code): \(error.reason)" }
        return "\(error)"
    }

    static func overview(_ commands: [any CLICommand.Type]) -> String {
        var s = "usage: h264 <command> [options]\n\ncommands:\n"
        var width = 0  // names are never cut
        for c in commands { width = max(width, c.name.count) }
        for c in commands { s += "  " + c.name + String(repeating: " ", count: width - c.name.count + 1) + c.summary + "\n" }
        s += "\n'h264 <command> --help' describes a command."
        return s
    }
}

/// A file, or stdin for `-`, read in chunks: what a command holds of its input is a chunk,
/// whatever the input's size.
///
/// With a ``framing``, every chunk handed over ends where a unit of the input (NAL unit, FLV
/// tag) ends, the bytes of the unit that goes on being kept for the next chunk, and the input
/// stops at an interruption (``Interruption``): at the boundary the last chunk ended on, so a
/// command that then finishes its output finishes it with whole units. A chunk is then at most
/// 2 MiB (1 MiB read after the bytes kept, which are less than 1 MiB and one unit's start).
final class ChunkedInput {
    /// The chunk size: 1 MiB.
    static let chunkSize = 1 << 20

    let path: String
    private let file: SystemFile
    /// True for a regular file, which can be read again from the start (``rewind()``).
    let isRewindable: Bool
    /// Bytes read so far.
    private(set) var bytesRead = 0

    /// The units of the input, set before the first ``read()`` (``peek(_:)`` may come before):
    /// chunks then end on unit boundaries and an interruption stops the input.
    var framing: InputFraming? {
        didSet { boundaries = framing.map(UnitBoundaries.init) }
    }
    private var boundaries: UnitBoundaries?
    /// The bytes read after the last boundary handed over, presented again with the next chunk.
    private var carry: [UInt8] = []
    /// The stream offset of the next byte to hand over.
    private var handed = 0
    /// The last chunk handed over ended on a unit boundary (or nothing was handed yet).
    private var aligned = true
    /// The input stopped at an interruption: ``read()`` returns nil.
    private(set) var stopped = false
    /// After ``rewind()`` of an input that stopped: where it stopped, so that a second pass
    /// reads the same bytes.
    private var limit: Int?

    init(_ path: String) throws {
        self.path = path
        file = try Input.open(path)
        isRewindable = path != "-" && file.isRegularFile
    }

    /// The device and inode of the input file (nil for stdin).
    var fileIdentity: (device: UInt64, inode: UInt64)? {
        path == "-" ? nil : file.identity
    }

    /// The next chunk, or nil at the end (or, with a ``framing``, after an interruption). Its
    /// array is one that nobody else holds: parsers may keep views of a chunk for as long as
    /// they like (value semantics), and the storage of a chunk they have let go of is filled
    /// again instead of a fresh allocation (see ``recycled``).
    func read() throws -> ArraySlice<UInt8>? {
        guard boundaries != nil else {
            if let p = pushedBack {
                pushedBack = nil
                if !p.bytes.isEmpty { return p.bytes[...] }
            }
            return try readRaw(after: []).bytes
        }
        return try readAligned()
    }

    /// How a raw read ended.
    private typealias ReadEnd = Interruption.FillEnd

    /// ``read()`` with a framing: the bytes up to the last unit boundary.
    private func readAligned() throws -> ArraySlice<UInt8>? {
        if stopped { return nil }
        if let limit, handed >= limit {
            stopped = true
            return nil
        }
        // A file is read on to the next boundary when the last chunk ended inside a unit.
        if pushedBack == nil, limit == nil, Interruption.isRequested, aligned || !isRewindable {
            stopped = true
            return nil
        }
        var (chunk, end): (ArraySlice<UInt8>?, ReadEnd)
        if let p = pushedBack {  // the first chunk, read by peek(_:)
            pushedBack = nil
            (chunk, end) = (p.bytes[...], p.end)
        } else {
            (chunk, end) = try readRaw(after: carry)
        }
        guard var chunk, !chunk.isEmpty else { return nil }
        if let limit, handed &+ chunk.count >= limit {
            chunk = chunk.prefix(limit &- handed)  // a boundary: where the first pass stopped
            end = .end
        }
        var cut = chunk.count
        aligned = true
        if end != .end {
            if let boundary = boundaries!.lastBoundary(in: chunk, at: handed) {
                cut = boundary &- handed  // in 1...chunk.count
            } else if end == .interrupted {
                cut = 0  // the unit goes on: nothing more of it
            } else {
                aligned = false  // a unit longer than the chunk
            }
        }
        carry.removeAll(keepingCapacity: true)
        if end == .full { carry.append(contentsOf: chunk[(chunk.startIndex &+ cut)...]) }
        if end == .interrupted || (Interruption.isRequested && limit == nil && aligned) { stopped = true }
        handed &+= cut
        guard cut > 0 else { return nil }
        return chunk.prefix(cut)
    }

    /// The arrays of the last chunks handed out, by reference. Filling one again reuses its
    /// storage when the reader has dropped every view of it, and takes new storage otherwise
    /// (`removeAll(keepingCapacity:)` never writes to shared storage): memory that is already
    /// mapped and in the cache, instead of fresh pages the kernel must fault in and clear for
    /// each chunk (a quarter of `inspect`'s time on small NAL units).
    private var recycled: [[UInt8]] = []
    private var nextRecycled = 0
    /// The number of arrays kept for reuse: a parser holds the chunk it parses and those its
    /// last access units refer to.
    static let recycledCount = 4

    /// Reads up to ``chunkSize`` bytes after `prefix` into one of the ``recycled`` arrays; a
    /// read from a pipe or terminal gives up at an interruption with what it has.
    /// - Returns: the chunk (nil when empty) and how the reading ended.
    private func readRaw(after prefix: [UInt8]) throws -> (bytes: ArraySlice<UInt8>?, end: ReadEnd) {
        var chunk: [UInt8] = []
        if recycled.count == Self.recycledCount {
            swap(&chunk, &recycled[nextRecycled])
            chunk.removeAll(keepingCapacity: true)  // the same storage if nobody else holds it
        }
        // With a framing, room for the bytes kept (under 1 MiB) and a chunk at once, so that the
        // storage is reused whatever their number.
        if boundaries != nil { chunk.reserveCapacity(2 &* Self.chunkSize) }
        chunk.append(contentsOf: prefix)
        var end = ReadEnd.full
        let mayBlock = !isRewindable
        try chunk.append(addingCapacity: Self.chunkSize) { (span: inout OutputSpan<UInt8>) throws in
            try span.withUnsafeMutableBufferPointer { buffer, count in
                let room = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...]))
                do throws(FileError) {
                    let (n, how) = try Interruption.fill(file, room, mayBlock: mayBlock)
                    count += n
                    end = how
                } catch {
                    throw CLIError(error)
                }
            }
        }
        bytesRead += chunk.count &- prefix.count
        if chunk.isEmpty { return (nil, end) }
        if recycled.count < Self.recycledCount {
            recycled.append(chunk)
        } else {
            recycled[nextRecycled] = chunk
            nextRecycled = (nextRecycled + 1) % Self.recycledCount
        }
        return (chunk[...], end)
    }

    /// Starts again from the beginning (regular files only). After an interruption stopped
    /// the input, the second pass stops where the first did.
    func rewind() throws {
        guard isRewindable, (try? file.seek(to: 0)) != nil else { throw CLIError("cannot read '\(path)' again") }
        bytesRead = 0
        pushedBack = nil
        if stopped { limit = handed }
        stopped = false
        handed = 0
        aligned = true
        carry.removeAll(keepingCapacity: true)
        boundaries = framing.map(UnitBoundaries.init)
    }

    /// The first bytes of the input, put back so that ``read()`` returns them again: how a
    /// command looks at a signature without reading a pipe twice.
    func peek(_ count: Int) throws -> [UInt8] {
        if pushedBack == nil {
            let (bytes, end) = try readRaw(after: [])
            pushedBack = (bytes.map(Array.init) ?? [], end)
        }
        return Array(pushedBack!.bytes.prefix(count))
    }
    private var pushedBack: (bytes: [UInt8], end: ReadEnd)?
}

/// A file, a device (`/dev/null`) or stdout for `-`, written as the command goes. A file is
/// written under a temporary name and gets its name at ``close()`` (``StagedPath``): a command
/// that fails before leaves nothing under that name. A device or pipe is opened in place
/// (`open(2)`), never replaced, so a device stays a device.
final class OutputFile {
    let path: String
    private let file: SystemFile
    /// Where the bytes go until ``close()``.
    private let staging: StagedPath
    /// Bytes written so far.
    var bytesWritten: Int { file.bytesWritten }

    /// Opens `path` for writing; `input`, when given, must not be the same file (a command that
    /// streams would overwrite what it has still to read).
    /// - Parameter staged: false writes a file at its name as it goes (a recording that keeps
    ///   what it got if the command fails).
    init(_ path: String, notSameAs input: ChunkedInput? = nil, staged: Bool = true) throws {
        self.path = path
        staging = StagedPath(path, staged: staged)
        if path == "-" {
            try Output.flush()
            file = .standardOutput()
        } else {
            try Self.refuseOverwriting(input?.fileIdentity, with: path)
            do throws(FileError) { file = try SystemFile(creatingAtPath: staging.writingPath, name: path) } catch {
                throw CLIError(error)
            }
        }
    }

    /// Throws when `path` names the file `input` identifies: a command that streams would
    /// overwrite what it has still to read.
    static func refuseOverwriting(_ input: (device: UInt64, inode: UInt64)?, with path: String) throws {
        guard let input, let output = fileIdentity(path) else { return }
        if output == input { throw CLIError("'\(path)' is the input: write the output to another file") }
    }

    /// The device and inode of the file at `path` (nil for `-` or a path that names nothing).
    static func fileIdentity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard path != "-", stat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// True for a path that is, or would be created as, a regular file (not `-`, not a device
    /// or pipe).
    static func isRegularFilePath(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        return stat(path, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Writes all of `bytes`, one whole unit (an access unit, an FLV tag, a line): a write that
    /// fails leaves a file cut back to its last whole unit (``SystemFile/writeUnit(_:)``).
    /// - Throws: ``CLIError`` naming the output, the bytes written before and the reason.
    func write(_ bytes: [UInt8]) throws {
        do throws(FileError) { try file.writeUnit(bytes[...]) } catch { throw CLIError(error) }
    }

    /// Closes the output and gives a file its name.
    func close() throws {
        do throws(FileError) { try file.close() } catch { throw CLIError(error) }
        try staging.commit()
    }

    /// Closes the output and leaves what was written under its temporary name (partial output
    /// kept on purpose, after a failure).
    /// - Returns: that name; nil when the output was not staged (stdout, a device) or is empty.
    func closeKeepingPartial() -> String? {
        try? file.close()  // the output is kept as it is, whatever close says
        guard bytesWritten > 0 else { staging.discard(); return nil }
        return staging.keep()
    }
}

/// Reading inputs; `-` is stdin.
enum Input {
    /// Reads a whole file, or stdin for `-`.
    static func readAll(_ path: String) throws(CLIError) -> [UInt8] {
        let file = try open(path)
        do throws(FileError) { return try file.readToEnd() } catch { throw CLIError(error) }
    }

    /// Opens a file, or stdin for `-`, for reading.
    static func open(_ path: String) throws(CLIError) -> SystemFile {
        guard path != "-" else { return .standardInput() }
        do throws(FileError) { return try SystemFile(readingAtPath: path) } catch { throw CLIError(error) }
    }
}

/// Writing stdout and stderr; ``OutputFile`` writes files.
///
/// Lines for stdout are buffered. A failed write to stdout is never silent: what follows is
/// dropped and ``flush()`` throws it (a ``CLIError``) once (the next flush, or the command's last
/// one when an intermediate flush failed), so the command reports it and exits with status 1.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    /// The first failed write to stdout, and whether ``flush()`` has thrown it.
    nonisolated(unsafe) private static var failure: (error: CLIError, reported: Bool)?
    private static let standardOutput = SystemFile.standardOutput()
    private static let standardError = SystemFile.standardError()

    /// Appends a line to stdout (buffered).
    static func line(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        buffer.append(10)
        flushWhenFull()
    }

    /// Appends a line that `body` writes as UTF-8 bytes (without the newline) to stdout
    /// (buffered): no intermediate array.
    static func appendLine(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        buffer.append(10)
        flushWhenFull()
    }

    /// Appends a line given as UTF-8 bytes to stdout (buffered).
    static func bytesLine(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(10)
        flushWhenFull()
    }

    /// Writes buffered stdout.
    /// - Throws: ``CLIError`` for a failed write to stdout, once (see ``Output``).
    static func flush() throws(CLIError) {
        if let failure {
            buffer.removeAll(keepingCapacity: true)
            guard !failure.reported else { return }
            self.failure = (failure.error, true)
            throw failure.error
        }
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        do throws(FileError) { try standardOutput.write(buffer) } catch {
            failure = (CLIError(error), true)
            throw CLIError(error)
        }
    }

    /// Writes buffered stdout once 64 KiB are held. A failure is kept for the command's last
    /// ``flush()``, which throws it.
    private static func flushWhenFull() {
        guard buffer.count >= 1 << 16 else { return }
        do { try flush() } catch { failure?.reported = false }
    }

    /// Writes `text` to stderr, unbuffered. A failure is dropped: stderr is where it would be
    /// reported.
    static func writeStandardError(_ text: String) {
        if let capture = capturedStandardError {
            capture.withLock { $0 += text }
            return
        }
        try? standardError.write(Array(text.utf8))
    }

    /// When set (`Output.$capturedStandardError.withValue(...)`), what the commands run in that
    /// scope write to stderr is appended here instead: the tests that run a command in their own
    /// process read its notes rather than printing them.
    @TaskLocal static var capturedStandardError: ThreadLock<String>?

    /// Writes a whole file (under a temporary name, then renamed: ``OutputFile``), or stdout
    /// for `-`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try OutputFile(path)
        try file.write(bytes)
        try file.close()
    }

    /// One line on stderr: `h264: message`.
    static func error(_ message: String) {
        writeStandardError("h264: \(message)\n")
    }
}
