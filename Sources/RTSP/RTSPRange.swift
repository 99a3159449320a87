/// A `Range` in normal play time (RFC 2326 3.6 and 12.29, `npt=10.5-20`): where a `PLAY`
/// starts and, optionally, ends. The client sends one with every `PLAY`
/// (``RTSPClient/Options/range``) and reads the one the server answers with
/// (``RTSPClient/playedRange``): the start of the range is where the presentation times of
/// the access units begin (`RTPReceiver.align(sequenceNumber:rtpTimestamp:presentationTime:)`).
public struct RTSPRange: Hashable, Sendable, CustomStringConvertible {
    /// Where play starts; nil for `now` (a live source: the present, whatever its time).
    public var start: Duration?
    /// Where play stops; nil: to the end.
    public var end: Duration?

    /// The longest time read, in seconds (about 31,700 years): a larger one does not parse, so
    /// the 90 kHz times made from it cannot overflow.
    public static let maximumSeconds: Int64 = 1_000_000_000_000

    /// A range from `start` (nil: `now`) to `end` (nil: the end).
    public init(start: Duration? = .zero, end: Duration? = nil) {
        self.start = start
        self.end = end
    }

    /// The header value: `npt=12.345-` or `npt=12.345-20.000` (millisecond precision), `npt=now-`.
    public var description: String {
        "npt=" + (start.map(Self.text) ?? "now") + "-" + (end.map(Self.text) ?? "")
    }

    /// Reads a `Range` header value in normal play time: `npt=start-[end]` or `npt=-end`, each
    /// time as seconds (`12.5`), `hh:mm:ss[.fraction]` or `now`; a `;time=...` parameter is
    /// ignored.
    /// - Returns: nil for another unit (`smpte`, `clock`) or a value that does not parse.
    public init?(parsing value: String) {
        let text = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces } ?? ""
        guard text.count <= 200, text.lowercased().hasPrefix("npt") else { return nil }
        let rest = text.dropFirst(3).drop { $0 == " " }
        guard rest.first == "=" else { return nil }
        let times = rest.dropFirst().split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard times.count == 2 else { return nil }
        let startText = times[0].trimmingSpaces, endText = times[1].trimmingSpaces
        if startText.isEmpty {
            start = .zero  // `-end`: from the beginning
        } else if startText.lowercased() == "now" {
            start = nil
        } else {
            guard let s = Self.time(startText[...]) else { return nil }
            start = s
        }
        if endText.isEmpty {
            guard !startText.isEmpty else { return nil }
            end = nil
        } else {
            guard let e = Self.time(endText[...]) else { return nil }
            end = e
        }
    }

    /// The start as 90 kHz ticks (0 for `now`).
    var startTicks: Int64 {
        guard let start else { return 0 }
        let (seconds, attoseconds) = start.components
        // seconds <= maximumSeconds (or a caller's Duration: clamped), nanoseconds < 10^9: no overflow.
        let s = Swift.min(Swift.max(seconds, 0), Self.maximumSeconds)
        return s * 90_000 + (attoseconds / 1_000_000_000) * 90_000 / 1_000_000_000
    }

    /// `seconds.milliseconds`.
    private static func text(_ d: Duration) -> String {
        let (seconds, attoseconds) = d.components
        let s = Swift.min(Swift.max(seconds, 0), maximumSeconds)
        let ms = seconds < 0 ? 0 : attoseconds / 1_000_000_000_000_000
        let frac = String(ms)
        return "\(s)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// An npt time other than `now`: `ss[.fraction]` or `hh:mm:ss[.fraction]`.
    private static func time(_ text: Substring) -> Duration? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 3 else { return nil }
        let last = parts[parts.count - 1]
        let secondParts = last.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = number(secondParts[0]) else { return nil }
        var seconds = whole
        if parts.count == 3 {
            guard let h = number(parts[0]), let m = number(parts[1]), m < 60, whole < 60 else { return nil }
            seconds = h * 3600 + m * 60 + whole  // each at most 10^12: no overflow
        }
        guard seconds <= maximumSeconds else { return nil }
        var nanoseconds: Int64 = 0
        if secondParts.count == 2 {
            let digits = secondParts[1]
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            for (i, c) in digits.prefix(9).enumerated() {
                nanoseconds += Int64(c.asciiValue! - 48) * pow10(8 - i)
            }
        }
        return .seconds(seconds) + .nanoseconds(nanoseconds)
    }

    /// A run of 1 to 13 decimal digits.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 13, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }

    private static func pow10(_ n: Int) -> Int64 {
        var v: Int64 = 1
        for _ in 0..<n { v *= 10 }
        return v
    }
}
