/// Where the progressive writer puts a file: bytes appended at the end as samples come, a few
/// bytes overwritten in place (the `mdat` size), and, for a fast-start file, the media moved
/// later to make room for `moov` at the front.
///
/// ``MP4File`` writes to disk; ``MP4MemoryFile`` keeps the bytes in memory.
public protocol MP4WritableFile: AnyObject, MP4ByteSource {
    /// Appends bytes at the end of the file.
    func append(_ bytes: ArraySlice<UInt8>) throws(MP4Error)

    /// Overwrites bytes at `offset` (the range may run past the end, which extends the file).
    func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error)

    /// Moves the bytes from `offset` to the end of the file `distance` bytes later (a fast-start
    /// file's media, to make room for `moov`); the bytes at `offset ..< offset + distance` are
    /// then overwritten by the caller. The default copies blocks of 1 MiB from the last back;
    /// a file that can do better (a file system that inserts a range) may override it.
    func moveTail(from offset: UInt64, by distance: UInt64) throws(MP4Error)
}

extension MP4WritableFile {
    /// Appends an array.
    public func append(_ bytes: [UInt8]) throws(MP4Error) { try append(bytes[...]) }

    /// Moves the bytes from `offset` to the end of the file `distance` bytes later, in blocks of
    /// 1 MiB (from the last block back, so nothing is overwritten before it is read). The bytes
    /// at `offset ..< offset + distance` are left as they were.
    /// - Complexity: O(bytes moved) time, O(1 MiB) memory.
    public func moveTail(from offset: UInt64, by distance: UInt64) throws(MP4Error) {
        let blockSize = 1 << 20
        var end = byteCount
        guard offset < end, distance > 0 else { return }
        while end > offset {
            let n = Int(min(UInt64(blockSize), end &- offset))  // <= blockSize
            let start = end &- UInt64(n)  // >= offset
            let block = Array(try read(at: start, count: n))
            try write(block[...], at: start &+ distance)
            end = start
        }
    }
}

/// A file held in memory, for tests and for small outputs a caller sends elsewhere.
public final class MP4MemoryFile: MP4TruncatableFile {
    /// The file's bytes.
    public private(set) var bytes: [UInt8]

    /// Creates an empty file, or one holding `bytes`.
    public init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    public var byteCount: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        try bytes.read(at: offset, count: count)
    }

    public func append(_ more: ArraySlice<UInt8>) throws(MP4Error) { bytes.append(contentsOf: more) }

    public func write(_ more: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
        guard let start = Int(exactly: offset), start <= Int.max &- more.count else {
            throw MP4Error.invalid(.io, "offset \(offset) is outside a memory file")
        }
        let end = start &+ more.count
        if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end &- bytes.count)) }
        bytes.replaceSubrange(start..<end, with: more)
    }

    public func truncate(to byteCount: UInt64) throws(MP4Error) {
        guard byteCount < UInt64(bytes.count) else { return }
        bytes.removeSubrange(Int(byteCount)...)
    }
}

/// A writable file that can be cut back (``MP4File``, ``MP4MemoryFile``): after a failed write
/// (a full disk, a file-size limit), ``MP4FragmentedFileWriter`` cuts the file back to its last
/// whole fragment, so that what is on disk plays to its end without a broken box. A file that is
/// not truncatable keeps the bytes of the failed write.
public protocol MP4TruncatableFile: MP4WritableFile {
    /// Cuts the file to its first `byteCount` bytes (nothing happens when it is not longer).
    func truncate(to byteCount: UInt64) throws(MP4Error)
}
