#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MediaSupport
import Testing

/// The shared file reader and writer: every failed write is an error that names the file, the
/// bytes written before it and the system's reason; reads past the end and opens that fail too.
@Suite struct SystemFileTests {
    /// A new empty directory under the temporary directory.
    static func directory() throws -> String {
        var template = Array("/tmp/systemfile-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return try #require(made.map { String(cString: $0) })
    }

    static let hasDevFull = access("/dev/full", W_OK) == 0

    @Test(.enabled(if: hasDevFull, "no writable /dev/full"))
    func aWriteToAFullDeviceNamesTheFileAndTheReason() throws {
        let file = try SystemFile(creatingAtPath: "/dev/full")
        do throws(FileError) {
            try file.write(Array(repeating: 7, count: 4096))
            Issue.record("a write to /dev/full succeeded")
        } catch {
            #expect(error.operation == .write && error.errorNumber == ENOSPC && error.path == "/dev/full")
            #expect(error.bytesWritten == 0)
            #expect(error.description == "cannot write '/dev/full' after 0 bytes: \(String(cString: strerror(ENOSPC)))")
        }
        do throws(FileError) {
            try file.write([1, 2, 3][...], at: 100)
            Issue.record("a positioned write to /dev/full succeeded")
        } catch {
            #expect(error.operation == .write && error.errorNumber == ENOSPC)
        }
    }

    /// A disk that fills up after some bytes: the descriptor is replaced by /dev/full behind the
    /// file's back, and the error counts what went before.
    @Test(.enabled(if: hasDevFull, "no writable /dev/full"))
    func aFailedWriteCountsTheBytesWrittenBefore() throws {
        let dir = try Self.directory()
        defer { unlink(dir + "/out"); rmdir(dir) }
        let file = try SystemFile(creatingAtPath: dir + "/out", name: "out.h264")
        try file.write(Array(repeating: 1, count: 1000))
        try file.write(Array(repeating: 2, count: 234)[...])
        #expect(file.bytesWritten == 1234)
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        try #require(dup2(full, file.descriptor) == file.descriptor)
        do throws(FileError) {
            try file.write([9, 9, 9])
            Issue.record("a write to a full device succeeded")
        } catch {
            #expect(error.errorNumber == ENOSPC && error.bytesWritten == 1234 && error.path == "out.h264")
            #expect(error.description.hasPrefix("cannot write 'out.h264' after 1234 bytes: "))
        }
    }

    @Test func writtenBytesReadBackWholeAndAtOffsets() throws {
        let dir = try Self.directory()
        defer { unlink(dir + "/f"); rmdir(dir) }
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let file = try SystemFile(creatingAtPath: dir + "/f", readable: true)
        try file.write(bytes)
        try file.write([0xAA, 0xBB][...], at: 10)  // overwrite
        try file.write([0xCC][...], at: 5000)  // extend
        #expect(try file.size() == 5001)
        #expect(try file.read(at: 9, count: 4) == [bytes[9], 0xAA, 0xBB, bytes[12]])
        #expect(try file.read(at: 4999, count: 2) == [bytes[4999], 0xCC])
        #expect(try file.read(at: 0, count: 0) == [])
        do throws(FileError) {
            _ = try file.read(at: 4990, count: 20)
            Issue.record("a read past the end succeeded")
        } catch {
            #expect(error.isEndOfFile && error.operation == .read)
        }
        #expect(file.isRegularFile)
        #expect(file.identity != nil)
        try file.synchronize()
        try file.close()

        let reader = try SystemFile(readingAtPath: dir + "/f")
        var expected = bytes + [0xCC]
        expected[10] = 0xAA
        expected[11] = 0xBB
        #expect(try reader.read(upToCount: 3) == Array(expected.prefix(3)))
        #expect(try reader.readToEnd() == Array(expected.dropFirst(3)))
        #expect(try reader.read(upToCount: 10) == [])
        try reader.seek(to: 4998)
        #expect(try reader.readToEnd() == Array(expected.suffix(3)))
    }

    /// A pipe has no size: read in chunks to its end, across several reads.
    @Test func aPipeIsReadToItsEnd() throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        let writer = SystemFile(borrowing: fds[1], name: "pipe")
        try writer.write(bytes)
        close(fds[1])
        let reader = SystemFile(borrowing: fds[0], name: "pipe")
        #expect(!reader.isRegularFile)
        #expect(try reader.read(upToCount: 1000) == Array(bytes.prefix(1000)))
        #expect(try reader.readToEnd() == Array(bytes.dropFirst(1000)))
        #expect(try reader.readToEnd() == [])
    }

    @Test func anOpenThatFailsNamesTheFile() throws {
        let dir = try Self.directory()
        defer { rmdir(dir) }
        do throws(FileError) {
            _ = try SystemFile(readingAtPath: dir + "/missing")
            Issue.record("opening a missing file succeeded")
        } catch {
            #expect(error.operation == .open && error.errorNumber == ENOENT && error.path == dir + "/missing")
            #expect(error.description == "cannot open '\(dir)/missing': \(String(cString: strerror(ENOENT)))")
        }
        do throws(FileError) {
            _ = try SystemFile(creatingAtPath: dir + "/no/such/dir", name: "out.mp4")
            Issue.record("creating a file in a missing directory succeeded")
        } catch {
            #expect(error.operation == .create && error.path == "out.mp4")
        }
    }

    @Test func aClosedFileFailsItsWrites() throws {
        let dir = try Self.directory()
        defer { unlink(dir + "/c"); rmdir(dir) }
        let file = try SystemFile(creatingAtPath: dir + "/c")
        try file.write([1])
        try file.close()
        try file.close()  // a second close does nothing
        #expect(throws: FileError.self) { try file.write([2]) }
    }
}
