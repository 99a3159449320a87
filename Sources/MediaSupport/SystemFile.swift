#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``SystemFile`` operation failed: the operation, the file's name, the system's error
/// (`errno` and its text), and for a write the bytes of the file written before it. Each
/// module maps it to its own error (`MP4Error.io`, the CLI's one line).
package struct FileError: Error, Sendable, CustomStringConvertible {
    /// The operations.
    package enum Operation: String, Sendable {
        case open, create, read, write, stat, seek, sync, truncate, close
    }

    /// What failed.
    package var operation: Operation
    /// The file's name, as the caller gave it.
    package var path: String
    /// The system's error number (`errno`); 0 when the file ended before the bytes asked for
    /// (a positioned read past its end, ``isEndOfFile``).
    package var errorNumber: Int32
    /// Bytes written to the file by this object before the failure (every write counts them).
    package var bytesWritten: Int
    /// The file was cut back to ``bytesWritten`` after the failure: it ends with a whole unit
    /// (``SystemFile/writeUnit(_:)``).
    package var keptWholeUnits = false

    /// Creates a failure.
    package init(_ operation: Operation, path: String, errorNumber: Int32, bytesWritten: Int = 0) {
        self.operation = operation
        self.path = path
        self.errorNumber = errorNumber
        self.bytesWritten = bytesWritten
    }

    /// True when a read met the file's end before the bytes asked for.
    package var isEndOfFile: Bool { errorNumber == 0 }

    /// The system's text for ``errorNumber`` (`strerror`).
    package var reason: String {
        isEndOfFile ? "the file ended early" : String(cString: strerror(errorNumber))
    }

    /// `cannot write 'out.h264' after 65536 bytes: No space left on device`.
    package var description: String {
        switch operation {
        case .write where keptWholeUnits:
            "cannot write '\(path)' after \(bytesWritten) bytes: \(reason) (the file keeps them, ending with a whole unit)"
        case .write, .sync, .close:
            "cannot \(operation.rawValue) '\(path)' after \(bytesWritten) bytes: \(reason)"
        default:
            "cannot \(operation.rawValue) '\(path)': \(reason)"
        }
    }
}

/// A file (or a descriptor the process was given: stdin, stdout, stderr), read and written with
/// the system calls, without Foundation: the one file reader and writer of the package (MP4's
/// ``MP4File``, the `h264` tool's inputs and outputs).
///
/// Every write writes all its bytes or throws a ``FileError`` that names the file, the bytes
/// written before it and the system's reason (`ENOSPC`, `EIO`, `EPIPE`): no write fails
/// silently. `EINTR` is retried everywhere but in ``readSome(into:)``, which reports it to a
/// caller that waits for an interruption.
///
/// One thread uses a file at a time (it may move between threads): it is `Sendable` as a file
/// handle is, and does no locking of its own.
///
/// Memory: the object and its name; reads allocate what they return.
package final class SystemFile: @unchecked Sendable {
    /// The file's name in errors.
    package let path: String
    /// The descriptor; -1 after ``close()``. Private, with `written`, so that the compiler sees
    /// every access and checks exclusivity at compile time: a `package` stored property costs a
    /// `swift_beginAccess` call per access (about 75 instructions, 1% of reading a fragmented MP4).
    private var fd: Int32
    /// False for a descriptor the process was given (stdin, stdout, stderr): not closed here.
    private let ownsDescriptor: Bool
    /// Bytes written so far.
    private var written = 0

    /// The descriptor; -1 after ``close()``.
    package var descriptor: Int32 { fd }
    /// Bytes written so far, by the `write` methods.
    package var bytesWritten: Int { written }

    /// Opens an existing file for reading.
    /// - Parameter name: the name errors give (`path` by default).
    /// - Throws: ``FileError`` (``FileError/Operation/open``).
    package init(readingAtPath path: String, name: String? = nil) throws(FileError) {
        self.path = name ?? path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        ownsDescriptor = true
        guard fd >= 0 else { throw FileError(.open, path: name ?? path, errorNumber: errno) }
    }

    /// Creates (or truncates) a file for writing, and for reading back when `readable`.
    /// - Parameter name: the name errors give (`path` by default: a file written under a
    ///   temporary name reports the name it will have).
    /// - Throws: ``FileError`` (``FileError/Operation/create``).
    package init(creatingAtPath path: String, readable: Bool = false, name: String? = nil) throws(FileError) {
        self.path = name ?? path
        fd = open(path, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        ownsDescriptor = true
        guard fd >= 0 else { throw FileError(.create, path: name ?? path, errorNumber: errno) }
    }

    /// A descriptor the process was given, which this object never closes.
    package init(borrowing descriptor: Int32, name: String) {
        path = name
        fd = descriptor
        ownsDescriptor = false
    }

    /// Standard input (descriptor 0), named `name` in errors.
    package static func standardInput(name: String = "stdin") -> SystemFile { SystemFile(borrowing: 0, name: name) }
    /// Standard output (descriptor 1), named `name` in errors.
    package static func standardOutput(name: String = "stdout") -> SystemFile { SystemFile(borrowing: 1, name: name) }
    /// Standard error (descriptor 2).
    package static func standardError() -> SystemFile { SystemFile(borrowing: 2, name: "stderr") }

    deinit {
        if ownsDescriptor && fd >= 0 { _ = closeDescriptor(fd) }
    }

    /// Closes the descriptor (a borrowed one is only forgotten); later operations fail with
    /// `EBADF`. A failed `close(2)` (a network file system reporting a write it deferred) throws.
    package func close() throws(FileError) {
        let closing = fd
        fd = -1
        guard ownsDescriptor, closing >= 0 else { return }
        guard closeDescriptor(closing) == 0 else { throw failure(.close) }
    }

    @inline(never)
    private func failure(_ operation: FileError.Operation, _ number: Int32 = errno) -> FileError {
        FileError(operation, path: path, errorNumber: number, bytesWritten: written)
    }

    // MARK: Facts

    private func status() throws(FileError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(.stat) }
        return info
    }

    /// The file's size in bytes (`fstat`).
    package func size() throws(FileError) -> UInt64 {
        UInt64(max(0, try status().st_size))
    }

    /// True for a regular file (which a read never blocks on and which can be read again from
    /// the start); false for a pipe, a terminal, a socket, a device, or when `fstat` fails.
    package var isRegularFile: Bool {
        guard let info = try? status() else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The device and inode (`fstat`); nil when `fstat` fails.
    package var identity: (device: UInt64, inode: UInt64)? {
        guard let info = try? status() else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Moves the read and write position to `offset` from the start (`lseek`).
    package func seek(to offset: UInt64) throws(FileError) {
        guard let o = off_t(exactly: offset), lseek(fd, o, SEEK_SET) == o else { throw failure(.seek) }
    }

    // MARK: Sequential reads and writes

    /// One `read(2)` into `buffer`.
    /// - Returns: the bytes read (0 at the end); nil when the call was interrupted by a signal
    ///   (`EINTR`) or found nothing on a non-blocking descriptor (`EAGAIN`): a caller that waits
    ///   for an interruption looks at it before calling again.
    /// - Throws: ``FileError`` (``FileError/Operation/read``).
    package func readSome(into buffer: UnsafeMutableRawBufferPointer) throws(FileError) -> Int? {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let n = Self.systemRead(fd, base, buffer.count)
        if n >= 0 { return n }
        let e = errno
        if e == EINTR || e == EAGAIN || e == EWOULDBLOCK { return nil }
        throw failure(.read, e)
    }

    /// Reads until `buffer` is full or the input ends (`EINTR` retried).
    /// - Returns: the bytes read: fewer than `buffer.count` only at the end.
    /// - Throws: ``FileError`` (``FileError/Operation/read``).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileError) -> Int {
        var done = 0
        while done < buffer.count {
            guard let n = try readSome(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...])) else { continue }
            if n == 0 { break }
            done &+= n  // n <= buffer.count - done
        }
        return done
    }

    /// Up to `count` bytes, straight into a new array (one copy from the kernel); fewer only
    /// at the end of the input, none there.
    /// - Throws: ``FileError`` (``FileError/Operation/read``).
    package func read(upToCount count: Int) throws(FileError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failed: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(FileError) { initialized = try read(into: UnsafeMutableRawBufferPointer(buffer)) } catch {
                initialized = 0
                failed = error
            }
        }
        if let failed { throw failed }
        return bytes
    }

    /// Everything from the current position to the end: a regular file's size read at once
    /// into one array (one copy from the kernel), then chunks of 1 MiB for what is left (a pipe,
    /// or a file that grew).
    /// - Throws: ``FileError`` (``FileError/Operation/read``).
    /// - Complexity: O(bytes); memory: the bytes read.
    package func readToEnd() throws(FileError) -> [UInt8] {
        var out: [UInt8] = []
        if isRegularFile, let size = try? size(), let n = Int(exactly: size), n > 0 {
            out = try read(upToCount: n)
            if out.count < n { return out }  // the end came first
        }
        while true {
            let chunk = try read(upToCount: 1 << 20)
            if chunk.isEmpty { return out }
            out.append(contentsOf: chunk)
        }
    }

    /// Writes all of `bytes` at the current position (`EINTR` retried).
    /// - Throws: ``FileError`` (``FileError/Operation/write``) with the bytes written before.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        var done = 0
        while done < bytes.count {
            let n = Self.systemWrite(fd, bytes.baseAddress! + done, bytes.count &- done)
            if n > 0 {
                done &+= n  // n <= count - done
                written &+= n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            throw failure(.write, n == 0 ? EIO : errno)  // no progress and no reason: the device's
        }
    }

    /// Writes all of `bytes` at the current position.
    /// - Throws: ``FileError`` (``FileError/Operation/write``) with the bytes written before.
    package func write(_ bytes: [UInt8]) throws(FileError) {
        try write(bytes[...])
    }

    /// Writes all of `bytes` at the current position.
    package func write(_ bytes: ArraySlice<UInt8>) throws(FileError) {
        var failed: FileError?
        bytes.withUnsafeBytes { raw in
            do throws(FileError) { try write(raw) } catch { failed = error }
        }
        if let failed { throw failed }
    }

    /// Writes one whole unit (an access unit, an FLV tag) at the current position, or none of
    /// it: after a failed write (a full disk, a file-size limit) a regular file is cut back to
    /// where it was before this unit, so that it ends with the last whole one, and the error's
    /// ``FileError/bytesWritten`` is what the file keeps (``FileError/keptWholeUnits``). A file
    /// that cannot be cut back (a pipe, a device) keeps the part written, as ``write(_:)-([UInt8])``.
    /// - Throws: ``FileError`` (``FileError/Operation/write``).
    package func writeUnit(_ bytes: ArraySlice<UInt8>) throws(FileError) {
        let start = lseek(fd, 0, SEEK_CUR)  // -1 for a pipe or a terminal: nothing to cut back
        let before = written
        do throws(FileError) { try write(bytes) } catch {
            guard start >= 0, written != before, ftruncate(fd, start) == 0, lseek(fd, start, SEEK_SET) == start else {
                throw error
            }
            written = before
            var cut = error
            cut.bytesWritten = before
            cut.keptWholeUnits = true
            throw cut
        }
    }

    // MARK: Positioned reads and writes

    /// `count` bytes at `offset` (`pread`), the position unchanged.
    /// - Throws: ``FileError`` (``FileError/Operation/read``); with ``FileError/isEndOfFile``
    ///   when the file ends first.
    package func read(at offset: UInt64, count: Int) throws(FileError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= UInt64(Int64.max) &- UInt64(count) else { throw failure(.read, EINVAL) }
        var failed: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                // offset + count <= Int64.max, checked above
                let n = pread(fd, buffer.baseAddress! + initialized, count &- initialized,
                              off_t(offset &+ UInt64(initialized)))
                if n > 0 { initialized &+= n; continue }
                if n < 0 && errno == EINTR { continue }
                failed = failure(.read, n == 0 ? 0 : errno)
                return
            }
        }
        if let failed { throw failed }
        return bytes
    }

    /// Writes all of `bytes` at `offset` (`pwrite`), the position unchanged; a range past the
    /// end extends the file.
    /// - Throws: ``FileError`` (``FileError/Operation/write``) with the bytes written before.
    package func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(FileError) {
        guard offset <= UInt64(Int64.max) &- UInt64(bytes.count) else { throw failure(.write, EINVAL) }
        var failed: FileError?
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                // offset + count <= Int64.max, checked above
                let n = pwrite(fd, raw.baseAddress! + done, raw.count &- done, off_t(offset &+ UInt64(done)))
                if n > 0 {
                    done &+= n
                    written &+= n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                failed = failure(.write, n == 0 ? EIO : errno)
                return
            }
        }
        if let failed { throw failed }
    }

    /// Asks the system to put what was written on the disk (`fsync`).
    /// - Throws: ``FileError`` (``FileError/Operation/sync``): a write the system had deferred
    ///   failed.
    package func synchronize() throws(FileError) {
        guard fsync(fd) == 0 else { throw failure(.sync) }
    }

    /// Cuts the file to `size` bytes (`ftruncate`): what a writer does after a failed write to
    /// keep only whole units. Shrinking needs no space, so it works on a full disk.
    /// - Throws: ``FileError`` (``FileError/Operation/truncate``).
    package func truncate(to size: UInt64) throws(FileError) {
        guard size <= UInt64(Int64.max) else { throw failure(.truncate, EINVAL) }
        while ftruncate(fd, off_t(size)) != 0 {
            if errno != EINTR { throw failure(.truncate) }
        }
    }

    /// `read(2)`, out of reach of the methods' name.
    private static func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, p, n)
        #else
        Darwin.read(fd, p, n)
        #endif
    }

    /// `write(2)`, out of reach of the methods' name.
    private static func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, p, n)
        #else
        Darwin.write(fd, p, n)
        #endif
    }
}

/// `close(2)`, out of reach of ``SystemFile/close()``'s name.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
