import H264
import MediaSupport

/// Parses an FLV file that arrives in chunks (a file read piece by piece, a pipe): the header,
/// then tag by tag or, for the H.264 video, event by event, as ``FLVReader`` does for a file in
/// memory.
///
/// ```swift
/// var parser = FLVStreamParser()
/// for chunk in chunks {
///     parser.append(chunk)
///     while let event = try parser.nextVideoEvent() { handle(event) }
/// }
/// try parser.finish()
/// ```
///
/// Tag bodies are views into the parser's buffer, valid as long as the caller keeps them (the
/// buffer is copy-on-write).
///
/// Memory: one tag (at most ``FLVReader/Options/maximumTagSize`` plus its header) and the last
/// chunk, whatever the file's length.
public struct FLVStreamParser: Sendable {
    /// Limits and strictness.
    public let options: FLVReader.Options
    /// The file header, once read.
    public private(set) var header: FLVHeader?
    /// Bytes consumed so far (the file offset of the next tag).
    public private(set) var position = 0

    private var buffer: [UInt8] = []
    private var readOffset = 0

    /// Creates a parser.
    public init(options: FLVReader.Options = FLVReader.Options()) {
        self.options = options
    }

    /// Hands over the next chunk of the file (copied into the parser's buffer).
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        if readOffset > 0 && readOffset >= buffer.count / 2 {
            buffer.removeSubrange(0..<readOffset)
            readOffset = 0
        }
        buffer.append(contentsOf: chunk)
    }

    /// Checks that the file did not end inside its header or a tag.
    /// - Throws: ``FLVError/Code/truncated`` when bytes of an incomplete header or tag remain.
    public func finish() throws(FLVError) {
        if header == nil { throw FLVError.truncated("the FLV file ends inside its header (\(buffer.count) bytes)") }
        if readOffset < buffer.count {
            throw FLVError.truncated("the FLV file ends inside a tag (\(buffer.count &- readOffset) bytes left)")
        }
    }

    /// The next tag, or nil when more bytes are needed.
    /// - Throws: the errors of ``FLVReader/nextTag()`` (a tag above the limit, reserved bits, a
    ///   wrong `PreviousTagSize`) and of the header. The parser does not move past a tag that
    ///   throws: a malformed file stays malformed.
    public mutating func nextTag() throws(FLVError) -> FLVTag? {
        if header == nil {
            var c = ByteReader<FLVByteReads>(buffer[readOffset...])
            do {
                header = try FLVHeader.read(&c)
            } catch where error.code == .truncated {
                return nil
            }
            consume(to: c.position)
        }
        var c = ByteReader<FLVByteReads>(buffer[readOffset...])
        do {
            let tag = try FLVTag.read(&c, maximumBodySize: min(options.maximumTagSize, FLVTag.maximumBodySize),
                                      checkPreviousTagSize: options.checkPreviousTagSize)
            consume(to: c.position)
            return tag
        } catch where error.code == .truncated {
            return nil  // the tag's header says how long it is: wait for the rest
        }
    }

    /// The next video event (see ``FLVReader/nextVideoEvent()``), or nil when more bytes are
    /// needed.
    public mutating func nextVideoEvent() throws(FLVError) -> FLVVideoEvent? {
        while let tag = try nextTag() {
            if let event = try FLVReader.event(tag) { return event }
        }
        return nil
    }

    private mutating func consume(to index: Int) {
        position &+= index &- readOffset  // bytes of the file: no overflow
        readOffset = index
    }
}

/// The push parser for FLV files, now ``FLVStreamParser``.
@available(*, deprecated, renamed: "FLVStreamParser")
public typealias FLVStreamReader = FLVStreamParser
