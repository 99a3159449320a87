import H264

extension StreamBuilder {
    /// The cap on pictures in one script.
    public static let maxScriptPictures = 4096

    /// Parses a picture script: pictures in decoding order separated by spaces, each a slice kind
    /// (`I`, `P`, `B`, `SP`, `SI`) followed by any of these modifiers:
    ///
    /// | modifier | meaning |
    /// |---|---|
    /// | `!` | IDR picture |
    /// | `~` | recovery-point SEI (`recovery_frame_cnt` 0) |
    /// | `@N` | picture order count N (may be negative: `@-2`) |
    /// | `^N` | `nal_ref_idc` N |
    /// | `#N` | `frame_num` N |
    /// | `xN` | N slices |
    /// | `/t`, `/b` | top or bottom field |
    /// | `*` | `slice_type` + 5 (every slice of the picture has this type) |
    ///
    /// For example `"I! P@6 B@2^0 B@4 P@12"`, or field pairs `"I!/t P/b P/t P/b"`.
    /// - Throws: ``H264Error/Code/invalidArgument`` naming the token that does not parse.
    /// - Complexity: O(n) in the script's length.
    public static func pictures(script: String) throws(H264Error) -> [Picture] {
        var out: [Picture] = []
        for token in script.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "," }) {
            guard out.count < maxScriptPictures else {
                throw H264Error.invalid(.limitExceeded, "more than \(maxScriptPictures) pictures in a script")
            }
            out.append(try picture(token: Array(token.utf8)))
        }
        return out
    }

    private static func picture(token: [UInt8]) throws(H264Error) -> Picture {
        let text = String(decoding: token, as: UTF8.self)
        func bad() -> H264Error { H264Error.invalid(.invalidArgument, "picture '\(text)': expected I/P/B/SP/SI and !~@^#x/t/b* modifiers") }
        var i = 0
        let kind: SliceKind
        if token.starts(with: Array("SP".utf8)) { kind = .sp; i = 2 }
        else if token.starts(with: Array("SI".utf8)) { kind = .si; i = 2 }
        else if let c = token.first, let k = [UInt8(ascii: "I"): SliceKind.i, UInt8(ascii: "P"): .p, UInt8(ascii: "B"): .b][c] { kind = k; i = 1 }
        else { throw bad() }
        var p = Picture(kind)
        func number() throws(H264Error) -> Int64 {
            var negative = false
            if i < token.count && token[i] == UInt8(ascii: "-") { negative = true; i &+= 1 }
            var value: Int64 = 0
            var digits = 0
            while i < token.count, token[i] >= 48, token[i] <= 57, digits < 9 {  // 9 digits: no overflow
                value = value &* 10 &+ Int64(token[i] &- 48)
                i &+= 1
                digits &+= 1
            }
            guard digits > 0 else { throw bad() }
            return negative ? -value : value
        }
        while i < token.count {
            let c = token[i]
            i &+= 1
            switch c {
            case UInt8(ascii: "!"): p.idr = true
            case UInt8(ascii: "~"): p.recoveryPoint = SEIRecoveryPoint()
            case UInt8(ascii: "*"): p.sliceTypeAllSame = true
            case UInt8(ascii: "@"): p.poc = try number()
            case UInt8(ascii: "^"):
                guard let n = UInt8(exactly: try number()), n <= 3 else { throw bad() }
                p.nalRefIdc = n
            case UInt8(ascii: "#"):
                guard let n = UInt32(exactly: try number()) else { throw bad() }
                p.frameNum = n
            case UInt8(ascii: "x"):
                guard let n = Int(exactly: try number()), n >= 1 else { throw bad() }
                p.sliceCount = n
            case UInt8(ascii: "/"):
                guard i < token.count else { throw bad() }
                if token[i] == UInt8(ascii: "t") { p.structure = .topField } else if token[i] == UInt8(ascii: "b") { p.structure = .bottomField } else { throw bad() }
                i &+= 1
            default:
                throw bad()
            }
        }
        return p
    }

    /// Appends every picture of a script (see ``pictures(script:)``).
    public mutating func append(script: String) throws(H264Error) {
        for p in try Self.pictures(script: script) { try append(p) }
    }
}
