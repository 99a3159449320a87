#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file on disk, read and written at explicit offsets (`pread`/`pwrite`), without Foundation.
///
/// Open one for reading with ``init(readingAtPath:)`` and hand it to ``MP4Reader``, or create
/// one with ``init(creatingAtPath:)`` and hand it to ``MP4Writer``. The descriptor closes with
/// ``close()`` or when the object goes away.
public final class MP4File: MP4WritableFile {
    /// The path the file was opened with.
    public let path: String
    private var descriptor: Int32
    private var size: UInt64

    /// Opens an existing file for reading.
    /// - Throws: ``MP4Error/Code/io`` when it cannot be opened.
    public init(readingAtPath path: String) throws(MP4Error) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("cannot open", path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = Self.failure("cannot stat", path)
            closeDescriptor(descriptor)
            throw error
        }
        size = UInt64(max(0, info.st_size))
    }

    /// Creates (or truncates) a file for writing; it can be read back too.
    /// - Throws: ``MP4Error/Code/io`` when it cannot be created.
    public init(creatingAtPath path: String) throws(MP4Error) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("cannot create", path) }
        size = 0
    }

    deinit { if descriptor >= 0 { closeDescriptor(descriptor) } }

    /// Closes the descriptor; later reads and writes fail with ``MP4Error/Code/io``.
    public func close() {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = -1
    }

    public var byteCount: UInt64 { size }

    public func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard count >= 0, offset <= size, UInt64(count) <= size &- offset else {
            throw MP4Error.truncated("\(count) bytes at offset \(offset) run past the end of '\(path)' (\(size) bytes)")
        }
        guard count > 0 else { return [] }
        var failure: MP4Error?
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let n = pread(descriptor, buffer.baseAddress! + initialized, count &- initialized,
                              off_t(offset &+ UInt64(initialized)))
                if n > 0 { initialized &+= n; continue }
                if n < 0 && errno == EINTR { continue }
                failure = n == 0 ? MP4Error.truncated("'\(path)' ended early") : Self.failure("cannot read", path)
                return
            }
        }
        if let failure { throw failure }
        return out[...]
    }

    public func append(_ bytes: ArraySlice<UInt8>) throws(MP4Error) {
        try write(bytes, at: size)
    }

    public func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
        guard offset <= UInt64(Int64.max) &- UInt64(bytes.count) else {
            throw MP4Error.invalid(.io, "offset \(offset) is outside a file")
        }
        var failure: MP4Error?
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pwrite(descriptor, raw.baseAddress! + done, raw.count &- done, off_t(offset &+ UInt64(done)))
                if n > 0 { done &+= n; continue }
                if n < 0 && errno == EINTR { continue }
                failure = Self.failure("cannot write", path)
                return
            }
        }
        if let failure { throw failure }
        size = max(size, offset &+ UInt64(bytes.count))  // checked above: no overflow
    }

    /// Asks the system to put what was written on the disk (`fsync`).
    public func synchronize() throws(MP4Error) {
        guard fsync(descriptor) == 0 else { throw Self.failure("cannot sync", path) }
    }

    @inline(never)
    private static func failure(_ what: String, _ path: String) -> MP4Error {
        MP4Error.invalid(.io, "\(what) '\(path)': \(String(cString: strerror(errno)))")
    }
}

/// `close(2)`, out of reach of ``MP4File/close()``'s name.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
