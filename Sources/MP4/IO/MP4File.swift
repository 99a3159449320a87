import MediaSupport

/// A file on disk, read and written at explicit offsets (`pread`/`pwrite`), without Foundation.
///
/// Open one for reading with ``init(readingAtPath:)`` and hand it to ``MP4Reader``, or create
/// one with ``init(creatingAtPath:)`` and hand it to ``MP4Writer``. The descriptor closes with
/// ``close()`` or when the object goes away. Every failed read or write is an
/// ``MP4Error/Code/io`` that names the file, the system's reason and, for a write, the bytes
/// written before it.
public final class MP4File: MP4TruncatableFile {
    /// The path the file was opened with.
    public let path: String
    private let file: SystemFile
    private var size: UInt64

    /// Opens an existing file for reading.
    /// - Throws: ``MP4Error/Code/io`` when it cannot be opened.
    public init(readingAtPath path: String) throws(MP4Error) {
        self.path = path
        do throws(FileError) {
            file = try SystemFile(readingAtPath: path)
            size = try file.size()
        } catch {
            throw Self.failure(error)
        }
    }

    /// Creates (or truncates) a file for writing; it can be read back too.
    /// - Throws: ``MP4Error/Code/io`` when it cannot be created.
    public init(creatingAtPath path: String) throws(MP4Error) {
        self.path = path
        do throws(FileError) { file = try SystemFile(creatingAtPath: path, readable: true) } catch { throw Self.failure(error) }
        size = 0
    }

    /// Closes the descriptor; later reads and writes fail with ``MP4Error/Code/io``.
    public func close() {
        // Every write was checked when made; what close(2) could add is reported by
        // synchronize(), which a caller that needs the bytes on the disk calls first.
        try? file.close()
    }

    public var byteCount: UInt64 { size }

    public func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard count >= 0, offset <= size, UInt64(count) <= size &- offset else {
            throw MP4Error.truncated("\(count) bytes at offset \(offset) run past the end of '\(path)' (\(size) bytes)")
        }
        do throws(FileError) { return try file.read(at: offset, count: count)[...] } catch { throw Self.failure(error) }
    }

    public func append(_ bytes: ArraySlice<UInt8>) throws(MP4Error) {
        try write(bytes, at: size)
    }

    public func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
        do throws(FileError) { try file.write(bytes, at: offset) } catch { throw Self.failure(error) }
        size = max(size, offset &+ UInt64(bytes.count))  // the write checked offset + count <= Int64.max
    }

    /// Cuts the file to its first `byteCount` bytes (`ftruncate`; shrinking needs no space, so
    /// it works on a full disk), nothing when it is not longer than that. After a failed write
    /// the file may hold some of its bytes beyond ``byteCount``: this cuts them too.
    public func truncate(to byteCount: UInt64) throws(MP4Error) {
        do throws(FileError) { try file.truncate(to: min(byteCount, size)) } catch { throw Self.failure(error) }
        size = min(byteCount, size)
    }

    /// Asks the system to put what was written on the disk (`fsync`).
    public func synchronize() throws(MP4Error) {
        do throws(FileError) { try file.synchronize() } catch { throw Self.failure(error) }
    }

    /// MP4's mapping of a file failure: the file ended early is ``MP4Error/Code/truncated``,
    /// any other ``MP4Error/Code/io``.
    @inline(never)
    private static func failure(_ error: FileError) -> MP4Error {
        error.isEndOfFile ? MP4Error.truncated(error.description) : MP4Error.invalid(.io, error.description)
    }
}
