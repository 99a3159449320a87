/// Random-access bytes an MP4 reader parses: a file on disk (``MP4File``), or bytes in memory
/// (`[UInt8]`, `ArraySlice<UInt8>`, ``MP4MemoryFile``).
///
/// The reader asks for small ranges (box headers, one `moov` or `moof` box, one sample), never
/// for the whole file, so a file source keeps memory proportional to the metadata it reads.
public protocol MP4ByteSource {
    /// The number of bytes.
    var byteCount: UInt64 { get }

    /// `count` bytes at `offset`.
    /// - Throws: ``MP4Error/Code/truncated`` when the range runs past ``byteCount``,
    ///   ``MP4Error/Code/io`` when reading fails.
    func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8>
}

extension ArraySlice: MP4ByteSource where Element == UInt8 {
    public var byteCount: UInt64 { UInt64(count) }

    /// A view of `count` bytes at `offset` (counted from the slice's start), without copying.
    public func read(at offset: UInt64, count n: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard n >= 0, offset <= UInt64(count), UInt64(n) <= UInt64(count) &- offset else {
            throw MP4Error.truncated("\(n) bytes at offset \(offset) run past the end (\(count) bytes)")
        }
        let start = startIndex &+ Int(offset)  // offset <= count
        return self[start..<(start &+ n)]
    }
}

extension Array: MP4ByteSource where Element == UInt8 {
    public var byteCount: UInt64 { UInt64(count) }

    /// A view of `count` bytes at `offset`, without copying.
    public func read(at offset: UInt64, count n: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        try self[...].read(at: offset, count: n)
    }
}
