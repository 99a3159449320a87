import MediaSupport
import RTP

/// A user name and password for a server that asks for them (RFC 2617, RFC 7616): from the
/// URL's user information or from ``RTSPClient/Options/credentials``. Its description hides
/// the password, and the client never puts either in an error's reason.
public struct RTSPCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "RTSPCredentials(user: \(user), password: <hidden>)" }
}

/// One challenge of a `WWW-Authenticate` header, and the `Authorization` that answers it:
/// Basic (RFC 7617) or Digest (RFC 7616, its RFC 2069 form without `qop` included) with MD5
/// or SHA-256.
package struct RTSPAuthenticator: Sendable {
    enum Scheme: Equatable, Sendable {
        case basic
        case digest(sha256: Bool)
    }

    let scheme: Scheme
    let realm: String
    let nonce: String
    let opaque: String?
    /// True when the challenge offered `qop=auth` (then `nc` and `cnonce` are sent).
    let qopAuth: Bool
    /// The `algorithm` as the server spelled it (echoed back), nil when it gave none.
    let algorithm: String?
    private var nonceCount: UInt32 = 0
    private let cnonce: String

    /// The preferred challenge among a 401's `WWW-Authenticate` values: Digest with SHA-256,
    /// then Digest with MD5, then Basic.
    /// - Throws: ``RTSPError/Code/unsupported`` when none is of a known scheme and algorithm,
    ///   ``RTSPError/Code/invalidResponse`` for a Digest challenge without a nonce.
    package static func choose(from values: [String]) throws(RTSPError) -> RTSPAuthenticator {
        var best: RTSPAuthenticator?
        func rank(_ a: RTSPAuthenticator) -> Int {
            switch a.scheme {
            case .digest(sha256: true): return 3
            case .digest(sha256: false): return 2
            case .basic: return 1
            }
        }
        for value in values {
            guard let candidate = try parse(value) else { continue }
            if best.map({ rank(candidate) > rank($0) }) ?? true { best = candidate }
        }
        guard let best else {
            throw RTSPError.invalid(.unsupported, "no supported authentication scheme offered (\(values.map { $0.prefix { $0 != " " } }))")
        }
        return best
    }

    /// One challenge, or nil for an unknown scheme or algorithm.
    static func parse(_ value: String) throws(RTSPError) -> RTSPAuthenticator? {
        let trimmed = value.trimmingSpaces
        let schemeName = trimmed.prefix { $0 != " " }.lowercased()
        let parameters = Self.parameters(trimmed.dropFirst(schemeName.count))
        let realm = parameters["realm"] ?? ""
        switch schemeName {
        case "basic":
            return RTSPAuthenticator(scheme: .basic, realm: realm, nonce: "", opaque: nil, qopAuth: false, algorithm: nil)
        case "digest":
            let algorithm = parameters["algorithm"]
            let sha256: Bool
            switch algorithm?.uppercased() {
            case nil, "MD5": sha256 = false
            case "SHA-256": sha256 = true
            default: return nil  // MD5-sess, SHA-512-256, ...: not offered by cameras; skipped
            }
            guard let nonce = parameters["nonce"] else {
                throw RTSPError.invalid(.invalidResponse, "a Digest challenge without a nonce")
            }
            var qopAuth = false
            if let qop = parameters["qop"] {
                let options = qop.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
                guard options.contains("auth") else { return nil }  // auth-int only: not supported
                qopAuth = true
            }
            return RTSPAuthenticator(scheme: .digest(sha256: sha256), realm: realm, nonce: nonce, opaque: parameters["opaque"],
                                     qopAuth: qopAuth, algorithm: algorithm)
        default:
            return nil
        }
    }

    init(scheme: Scheme, realm: String, nonce: String, opaque: String?, qopAuth: Bool, algorithm: String?) {
        self.scheme = scheme
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.qopAuth = qopAuth
        self.algorithm = algorithm
        var g = SystemRandomNumberGenerator()
        cnonce = hex((0..<8).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// True when the challenge says the nonce went stale (`stale=true`): the credentials were
    /// right, a new nonce is to be used.
    static func isStale(_ values: [String]) -> Bool {
        values.contains { parameters($0.trimmingSpaces.drop { $0 != " " })["stale"]?.lowercased() == "true" }
    }

    /// The `Authorization` value for a request.
    /// - Parameters:
    ///   - method: the request's method.
    ///   - uri: the request URI as on the request line.
    package mutating func authorization(_ credentials: RTSPCredentials, method: String, uri: String) -> String {
        switch scheme {
        case .basic:
            return "Basic " + Base64.encode(Array("\(credentials.user):\(credentials.password)".utf8))
        case .digest(let sha256):
            let h: (String) -> String = { text in hex(sha256 ? SHA256.hash(Array(text.utf8)) : MD5.hash(Array(text.utf8))) }
            let ha1 = h("\(credentials.user):\(realm):\(credentials.password)")
            let ha2 = h("\(method):\(uri)")
            var value = "Digest username=\"\(credentials.user)\", realm=\"\(realm)\", nonce=\"\(nonce)\", uri=\"\(uri)\""
            if qopAuth {
                nonceCount &+= 1  // 2^32 requests with one nonce: never reached
                let nc = hex8(nonceCount)
                value += ", response=\"\(h("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)"))\", qop=auth, nc=\(nc), cnonce=\"\(cnonce)\""
            } else {
                value += ", response=\"\(h("\(ha1):\(nonce):\(ha2)"))\""
            }
            if let algorithm { value += ", algorithm=\(algorithm)" }
            if let opaque { value += ", opaque=\"\(opaque)\"" }
            return value
        }
    }

    /// The `name=value` and `name="quoted value"` pairs of a challenge, names lower-cased.
    static func parameters(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        var i = text.startIndex
        while i < text.endIndex {
            while i < text.endIndex, text[i] == " " || text[i] == "," || text[i] == "\t" { i = text.index(after: i) }
            let nameStart = i
            while i < text.endIndex, text[i] != "=", text[i] != "," { i = text.index(after: i) }
            let name = text[nameStart..<i].trimmingSpaces.lowercased()
            guard i < text.endIndex, text[i] == "=" else { continue }
            i = text.index(after: i)
            while i < text.endIndex, text[i] == " " { i = text.index(after: i) }
            var value = ""
            if i < text.endIndex, text[i] == "\"" {
                i = text.index(after: i)
                while i < text.endIndex, text[i] != "\"" {
                    if text[i] == "\\" { i = text.index(after: i); if i == text.endIndex { break } }
                    value.append(text[i])
                    i = text.index(after: i)
                }
                if i < text.endIndex { i = text.index(after: i) }
            } else {
                let valueStart = i
                while i < text.endIndex, text[i] != "," { i = text.index(after: i) }
                value = text[valueStart..<i].trimmingSpaces
            }
            if !name.isEmpty, out[name] == nil { out[name] = value }
        }
        return out
    }
}

/// Lower-case hexadecimal.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Eight hexadecimal digits (a Digest `nc`).
func hex8(_ value: UInt32) -> String {
    hex([UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
}

