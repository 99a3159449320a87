// The batch and streaming drivers of the Annex-B splitter, as events (a NAL unit's bytes or an
// error code): the `streaming` fuzz body (Tests/IntegrationTests/Fuzz, and the fuzz binary,
// which compiles this file in: Tests/Fuzz/run.sh) and the core's framing tests compare them.
import H264

/// The splitter's events, batch and streaming.
public enum FramingEvents {
    /// One splitter event: a NAL unit's bytes or an error code.
    public enum Event: Equatable, Sendable, CustomStringConvertible {
        case unit([UInt8])
        case error(H264Error.Code)

        public var description: String {
            switch self {
            case .unit(let b): return "unit(\(b.count) bytes, type \(b.first.map { $0 & 0x1F } ?? 0))"
            case .error(let c): return "error(\(c))"
            }
        }
    }

    /// The events of the batch splitter over `bytes` (one per NAL unit or error).
    public static func split(_ bytes: ArraySlice<UInt8>, policy: AnnexB.LeadingDataPolicy = .reject) -> [Event] {
        var s = AnnexB.Splitter(bytes, leadingData: policy)
        var out: [Event] = []
        while out.count <= bytes.count &+ 2 {
            do throws(H264Error) {
                guard let u = try s.next() else { break }
                out.append(.unit(Array(u.bytes)))
            } catch { out.append(.error(error.code)) }
        }
        return out
    }

    /// The events of the streaming parser fed `bytes` in chunks of `sizes` (cycled), draining
    /// after each chunk and after `finish()`.
    public static func stream(_ bytes: [UInt8], sizes: [Int], policy: AnnexB.LeadingDataPolicy = .reject,
                              maximum: Int = AnnexBStreamParser.defaultMaximumNALUnitSize) -> [Event] {
        var parser = AnnexBStreamParser(maximumNALUnitSize: maximum, leadingData: policy)
        var out: [Event] = []
        func drain() {
            var steps = 0
            while steps <= bytes.count &+ 2 {
                steps &+= 1
                do throws(H264Error) {
                    guard let u = try parser.next() else {
                        FuzzProperty.check(parser.bufferedByteCount <= maximum, "\(parser.bufferedByteCount) bytes held, limit \(maximum)")
                        return
                    }
                    out.append(.unit(Array(u.bytes)))
                } catch { out.append(.error(error.code)) }
            }
            FuzzProperty.check(false, "the streaming parser did not stop yielding")
        }
        var i = 0, k = 0
        while i < bytes.count {
            let n = min(sizes[k % sizes.count], bytes.count - i)
            parser.append(bytes[i..<(i + n)])
            drain()
            i += n
            k += 1
        }
        parser.finish()
        drain()
        return out
    }
}
