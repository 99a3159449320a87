import MediaSupport

/// A four-character code: a box type (`moov`), a brand (`isom`), a sample entry format (`avc1`)
/// or a handler type (`vide`), stored as its 32-bit big-endian value.
public struct MP4FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The code as a big-endian 32-bit number (`moov` is 0x6D6F6F76).
    public let rawValue: UInt32

    /// Creates a code from its 32-bit value.
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a code from four ASCII characters; other strings give the code of their first
    /// four UTF-8 bytes, padded with spaces.
    public init(_ text: String) {
        var v: UInt32 = 0
        var n = 0
        for b in text.utf8.prefix(4) {
            v = v << 8 | UInt32(b)
            n &+= 1
        }
        while n < 4 {
            v = v << 8 | 0x20
            n &+= 1
        }
        rawValue = v
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The four bytes, most significant first.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4)
        out.writeUInt32(rawValue)
        return out
    }

    /// The code as text; bytes outside printable ASCII are shown as `\xNN`.
    public var description: String {
        var s = ""
        for b in bytes {
            if b >= 0x20 && b < 0x7F {
                s.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16)
                s += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return s
    }
}

extension MP4FourCC {
    // Boxes this module writes or reads, by their names in ISO/IEC 14496-12 and -15.
    static let ftyp: MP4FourCC = "ftyp", styp: MP4FourCC = "styp", moov: MP4FourCC = "moov", mvhd: MP4FourCC = "mvhd"
    static let trak: MP4FourCC = "trak", tkhd: MP4FourCC = "tkhd", edts: MP4FourCC = "edts", elst: MP4FourCC = "elst"
    static let mdia: MP4FourCC = "mdia", mdhd: MP4FourCC = "mdhd", hdlr: MP4FourCC = "hdlr", minf: MP4FourCC = "minf"
    static let vmhd: MP4FourCC = "vmhd", dinf: MP4FourCC = "dinf", dref: MP4FourCC = "dref", url: MP4FourCC = "url "
    static let stbl: MP4FourCC = "stbl", stsd: MP4FourCC = "stsd", stts: MP4FourCC = "stts", ctts: MP4FourCC = "ctts"
    static let stss: MP4FourCC = "stss", sdtp: MP4FourCC = "sdtp", stsz: MP4FourCC = "stsz", stz2: MP4FourCC = "stz2"
    static let stsc: MP4FourCC = "stsc", stco: MP4FourCC = "stco", co64: MP4FourCC = "co64", mdat: MP4FourCC = "mdat"
    static let free: MP4FourCC = "free", skip: MP4FourCC = "skip", mvex: MP4FourCC = "mvex", trex: MP4FourCC = "trex"
    static let mehd: MP4FourCC = "mehd", moof: MP4FourCC = "moof", mfhd: MP4FourCC = "mfhd", traf: MP4FourCC = "traf"
    static let tfhd: MP4FourCC = "tfhd", tfdt: MP4FourCC = "tfdt", trun: MP4FourCC = "trun", sidx: MP4FourCC = "sidx"
    static let avc1: MP4FourCC = "avc1", avc3: MP4FourCC = "avc3", avcC: MP4FourCC = "avcC", pasp: MP4FourCC = "pasp"
    static let colr: MP4FourCC = "colr", btrt: MP4FourCC = "btrt", encv: MP4FourCC = "encv", sinf: MP4FourCC = "sinf"
    static let frma: MP4FourCC = "frma", vide: MP4FourCC = "vide", nclx: MP4FourCC = "nclx", udta: MP4FourCC = "udta"
    static let mfra: MP4FourCC = "mfra", meta: MP4FourCC = "meta", uuid: MP4FourCC = "uuid"
}
