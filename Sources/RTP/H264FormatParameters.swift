import H264

/// The H.264 format parameters of an SDP `a=fmtp` line (RFC 6184 8.1):
/// `packetization-mode`, `profile-level-id` and `sprop-parameter-sets`.
public struct H264FormatParameters: Hashable, Sendable, CustomStringConvertible {
    /// `packetization-mode`: 0 single NAL unit, 1 non-interleaved (what ``RTPPacketizer`` sends),
    /// 2 interleaved.
    public var packetizationMode: Int
    /// `profile-level-id`, when present.
    public var profileLevelID: ProfileLevel?
    /// `sprop-parameter-sets`: the SPS and PPS NAL units (header included, as carried).
    public var parameterSets: [[UInt8]]
    /// Other parameters as `name=value`, kept in order.
    public var otherParameters: [String]

    /// Largest number of parameter sets accepted from `sprop-parameter-sets`.
    public static let maximumParameterSets = 64

    /// Creates format parameters.
    public init(packetizationMode: Int = 1, profileLevelID: ProfileLevel? = nil, parameterSets: [[UInt8]] = [],
                otherParameters: [String] = []) {
        self.packetizationMode = packetizationMode
        self.profileLevelID = profileLevelID
        self.parameterSets = parameterSets
        self.otherParameters = otherParameters
    }

    /// Format parameters for packetization-mode 1 describing a stream's parameter sets:
    /// `profile-level-id` from the first SPS, `sprop-parameter-sets` from every SPS and PPS given.
    /// - Throws: ``RTPError/Code/missingParameterSet`` when no SPS is given;
    ///   ``RTPError/Code/h264`` with the error of `ProfileLevel(sps:)` for an SPS that does
    ///   not parse.
    public init(parameterSets units: [NALUnit]) throws(RTPError) {
        guard let sps = units.first(where: { $0.type == .sps }) else {
            throw RTPError.invalid(.missingParameterSet, "no SPS for profile-level-id")
        }
        self.init(profileLevelID: try RTPError.catchingH264("profile-level-id") { () throws(H264Error) in try ProfileLevel(sps: sps) },
                  parameterSets: units.filter { $0.type == .sps || $0.type == .pps }.map { Array($0.bytes) })
    }

    /// Format parameters for packetization-mode 1 describing a stream by the parameter sets a
    /// receiver needs first: the first SPS, and the distinct PPSs before the first slice (or
    /// the first PPS anywhere when none comes before), at most ``maximumParameterSets``.
    /// - Parameter units: the stream's NAL units in order (Annex-B split); only those up to the
    ///   first slice after a PPS are looked at.
    /// - Throws: as ``init(parameterSets:)``: ``RTPError/Code/missingParameterSet`` without an
    ///   SPS.
    public init(stream units: [NALUnit]) throws(RTPError) {
        var sets: [NALUnit] = []
        var hasSPS = false, hasPPS = false
        for u in units {
            if u.type.isVCL && hasPPS { break }
            if u.type == .sps {
                if hasSPS { continue }
                hasSPS = true
            }
            if u.type == .pps { hasPPS = true }
            if (u.type == .sps || u.type == .pps) && !sets.contains(u) { sets.append(u) }
            if sets.count >= Self.maximumParameterSets { break }
        }
        try self.init(parameterSets: sets)
    }

    /// Parses the parameters of an fmtp line: `a=fmtp:96 name=value;...` or just `name=value;...`.
    /// - Throws: ``RTPError/Code/invalidArgument`` for a malformed parameter, a bad
    ///   `profile-level-id` (with the core's error) or Base64; ``RTPError/Code/limitExceeded``
    ///   for more than ``maximumParameterSets`` parameter sets; ``RTPError/Code/h264`` for a
    ///   parameter set whose NAL unit header the core refuses.
    public init<S: StringProtocol>(parsing text: S) throws(RTPError) {
        self.init(packetizationMode: 0)  // RFC 6184 8.1: absent means 0
        var body = Substring(text)
        if body.hasPrefix("a=fmtp:") || body.hasPrefix("fmtp:") {
            guard let space = body.firstIndex(of: " ") else { return }
            body = body[body.index(after: space)...]
        }
        for item in Self.split(body, at: ";") {
            let field = Self.trimmed(item)
            if field.isEmpty { continue }
            let scalars = field.unicodeScalars
            guard let eq = scalars.firstIndex(of: "=") else {
                throw RTPError.invalid(.invalidArgument, "fmtp parameter '\(field)' has no '='")
            }
            let name = Self.trimmed(Substring(scalars[..<eq])), value = Self.trimmed(Substring(scalars[scalars.index(after: eq)...]))
            switch name.lowercased() {
            case "packetization-mode":
                guard let mode = Int(value), (0...2).contains(mode) else {
                    throw RTPError.invalid(.invalidArgument, "packetization-mode '\(value)'")
                }
                packetizationMode = mode
            case "profile-level-id":
                do throws(H264Error) { profileLevelID = try ProfileLevel(parsing: value) } catch {
                    throw RTPError.wrapping(error, as: .invalidArgument, "profile-level-id")
                }
            case "sprop-parameter-sets":
                parameterSets = try Self.parseParameterSets(value)
            default:
                otherParameters.append(String(field))
            }
        }
    }

    /// Whether the other parameters say `level-asymmetry-allowed=1` (RFC 6184 8.1): when both
    /// sides do, each may send above the level of the negotiated `profile-level-id`, up to the
    /// level the receiving side declared. Pass it (both sides' values and-ed) to
    /// `ProfileLevel.compatibility(withNegotiated:levelAsymmetryAllowed:)`.
    public var levelAsymmetryAllowed: Bool {
        otherParameters.contains { field in
            let parts = field.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && Self.trimmed(parts[0]).lowercased() == "level-asymmetry-allowed" && Self.trimmed(parts[1]) == "1"
        }
    }

    /// The parameters as they go after `a=fmtp:PT `.
    public var description: String {
        var fields = ["packetization-mode=\(packetizationMode)"]
        if let id = profileLevelID { fields.append("profile-level-id=\(id)") }
        if !parameterSets.isEmpty { fields.append("sprop-parameter-sets=\(Self.spropParameterSets(parameterSets))") }
        return (fields + otherParameters).joined(separator: ";")
    }

    /// The parameter sets as NAL units (views into ``parameterSets``).
    /// - Throws: ``RTPError/Code/h264`` with the core's NAL unit header error (`emptyNALUnit`,
    ///   ...).
    public func parameterSetNALUnits() throws(RTPError) -> [NALUnit] {
        try RTPError.catchingH264("sprop-parameter-sets") { () throws(H264Error) in
            var units: [NALUnit] = []
            for bytes in parameterSets { units.append(try NALUnit(bytes)) }
            return units
        }
    }

    /// `sprop-parameter-sets`: each NAL unit in Base64, separated by commas.
    public static func spropParameterSets(_ parameterSets: [[UInt8]]) -> String {
        parameterSets.map { Base64.encode($0) }.joined(separator: ",")
    }

    /// Parses a `sprop-parameter-sets` value back into NAL units' bytes.
    ///
    /// Any number of entries is read, up to ``maximumParameterSets``: none (an empty value), one
    /// (an SPS without its PPS), two, or more (several PPSs, or SPS and PPS of several
    /// configurations), in the order given; empty entries (`,,`, a trailing comma, spaces) are
    /// skipped.
    /// - Throws: see ``init(parsing:)``.
    public static func parseParameterSets<S: StringProtocol>(_ value: S) throws(RTPError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for part in split(Substring(value), at: ",") where !trimmed(part).isEmpty {
            guard sets.count < maximumParameterSets else {
                throw RTPError.invalid(.limitExceeded, "more than \(maximumParameterSets) sprop-parameter-sets")
            }
            let bytes = try Base64.decode(trimmed(part))
            _ = try RTPError.catchingH264("sprop-parameter-sets") { () throws(H264Error) in try NALUnit(bytes) }
            sets.append(bytes)
        }
        return sets
    }

    /// `s` cut at every `separator` scalar (empty parts left out). SDP's separators are
    /// characters of the protocol, whatever follows them: a split by `Character` would not cut
    /// at a `;` followed by a combining mark (one grapheme), and what ``description`` writes
    /// would not parse back the same.
    static func split(_ s: Substring, at separator: Unicode.Scalar) -> [Substring] {
        s.unicodeScalars.split(separator: separator).map { Substring($0) }
    }

    /// `s` without leading and trailing spaces, tabs and line ends (by scalar, as ``split(_:at:)``).
    static func trimmed(_ s: Substring) -> Substring {
        var t = s.unicodeScalars[...]
        while let f = t.first, f == " " || f == "\t" || f == "\r" || f == "\n" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" || l == "\r" || l == "\n" { t = t.dropLast() }
        return Substring(t)
    }
}
