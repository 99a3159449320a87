extension SEIInsertionSchedule {
    /// Adds captions from a caption list: one line per frame number (presentation order), `#`
    /// starts a comment.
    ///
    /// ```
    /// # frame: cc_data constructs, three bytes each in hex (cc_valid/cc_type byte, cc_data_1, cc_data_2)
    /// 0: fc 94 20  fc 94 ae
    /// # frame: "text": CEA-608 characters on field 1 (CC1), two per frame from that frame on,
    /// # with their parity bits
    /// 2: "HELLO"
    /// 5: fc 94 2f
    /// ```
    ///
    /// Constructs for the same frame from several lines are put together in one `cc_data()`
    /// (at most 31 per frame); each frame with constructs gets one ATSC A/53 caption message
    /// (``A53CaptionData``). Control codes (resume caption loading `94 20`, end of caption
    /// `94 2f`, ...) are written as bytes: the text form adds characters only.
    /// - Throws: ``H264Error/Code/invalidArgument`` naming the line of a malformed one (a byte
    ///   count that is not a multiple of 3, a character outside printable ASCII, more than 31
    ///   constructs on one frame, a frame number above 10^9).
    /// - Complexity: O(size of the text).
    public mutating func addCaptions(fromText text: String) throws(H264Error) {
        var frames: [Int: [A53CaptionData.Construct]] = [:]
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber &+= 1  // one per line of the text
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            func bad(_ why: String) -> H264Error {
                H264Error.invalid(.invalidArgument, "caption list line \(lineNumber): \(why)")
            }
            guard let colon = trimmed.firstIndex(of: ":") else { throw bad("expected FRAME: BYTES or FRAME: \"TEXT\"") }
            let number = trimmed[..<colon]
            guard !number.isEmpty, number.count <= 9, number.allSatisfy({ $0.isASCII && $0.isNumber }), let frame = Int(number) else {
                throw bad("'\(number.prefix(16))' is not a frame number")
            }
            let body = trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            if body.first == "\"" {
                let rest = body.dropFirst()
                guard let end = rest.lastIndex(of: "\"") else { throw bad("text without its closing quote") }
                let characters = Array(rest[..<end].utf8)
                guard characters.allSatisfy({ (0x20...0x7E).contains($0) }) else { throw bad("CEA-608 text is printable ASCII") }
                var i = 0
                while i < characters.count {
                    let first = characters[i]
                    let second: UInt8 = i &+ 1 < characters.count ? characters[i &+ 1] : 0
                    frames[frame &+ i / 2, default: []].append(  // frame <= 10^9, i below the text's size
                        .init(type: .ntscField1, data1: A53CaptionData.withOddParity(first), data2: A53CaptionData.withOddParity(second)))
                    i &+= 2
                }
            } else {
                guard let bytes = Self.hexBytes(body) else { throw bad("'\(String(body.prefix(32)))' is not hex bytes") }
                guard !bytes.isEmpty, bytes.count % 3 == 0 else {
                    throw bad("cc_data constructs are three bytes each (got \(bytes.count) bytes)")
                }
                frames[frame, default: []].append(contentsOf: try A53CaptionData(tripleBytes: bytes).constructs)
            }
        }
        for (frame, constructs) in frames.sorted(by: { $0.key < $1.key }) {
            guard constructs.count <= A53CaptionData.maximumConstructCount else {
                throw H264Error.invalid(.invalidArgument,
                    "caption list: frame \(frame) has \(constructs.count) constructs, at most \(A53CaptionData.maximumConstructCount) fit")
            }
            add(try .captions(A53CaptionData(constructs: constructs)), at: frame)
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c &- 0x30
        case 0x41...0x46: return c &- 0x41 &+ 10
        case 0x61...0x66: return c &- 0x61 &+ 10
        default: return nil
        }
    }
}
