import H264
import RTP

/// What an ``RTSPClient`` receives, in arrival order.
public enum RTSPEvent: Sendable {
    /// An access unit of the H.264 track: an `AccessUnitSample` with its times on the 90 kHz
    /// clock (`RTPReceivedAccessUnit.timestamps`) and, once the source's RTCP sender report
    /// has arrived, the sender's wall-clock time (`RTPReceivedAccessUnit.ntpTimestamp`, NTP
    /// format; `RTCP.unixSeconds(ntpTimestamp:)` converts it). Parameter sets from the SDP's
    /// `sprop-parameter-sets`, or the latest in band, are in front of every IDR picture.
    case video(RTPReceivedAccessUnit)
    /// An RTP packet of another track (audio, metadata), as it arrived.
    case packet(RTSPPacket)
}

/// An RTP packet of a track other than the H.264 one, with its timing.
public struct RTSPPacket: Sendable, Hashable {
    /// The track's index among the SDP's media sections (``RTSPTrack/index``).
    public var track: Int
    /// The RTP header (sequence number, timestamp on the track's clock, SSRC, marker).
    public var header: RTPHeader
    /// The payload (after the header, its extension and CSRCs; padding removed).
    public var payload: [UInt8]
    /// The sender's wall-clock time of the packet (NTP format), once a sender report of its
    /// SSRC has arrived; nil before.
    public var ntpTimestamp: UInt64?

    /// Creates a packet.
    public init(track: Int, header: RTPHeader, payload: [UInt8], ntpTimestamp: UInt64? = nil) {
        self.track = track
        self.header = header
        self.payload = payload
        self.ntpTimestamp = ntpTimestamp
    }
}

extension RTSPTrack {
    /// One entry of a `PLAY` reply's `RTP-Info` (RFC 2326 12.33): the track's URL and the
    /// sequence number and RTP timestamp of its first packet after the `PLAY`.
    public struct RTPInfo: Hashable, Sendable {
        /// The `url` parameter, as written.
        public var url: String
        /// The `seq` parameter.
        public var sequenceNumber: UInt16?
        /// The `rtptime` parameter.
        public var rtpTimestamp: UInt32?

        /// Creates an entry.
        public init(url: String, sequenceNumber: UInt16? = nil, rtpTimestamp: UInt32? = nil) {
            self.url = url
            self.sequenceNumber = sequenceNumber
            self.rtpTimestamp = rtpTimestamp
        }

        /// The entries of an `RTP-Info` value (`url=...;seq=...;rtptime=..., url=...`); a
        /// comma inside a URL (before the next `url=`) is kept in it.
        package static func parse(_ value: String) -> [RTPInfo] {
            var out: [RTPInfo] = []
            for part in value.split(separator: ",") {
                let fields = part.split(separator: ";").map { $0.trimmingSpaces }
                var entry: RTPInfo?
                for field in fields {
                    let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
                    guard kv.count == 2 else { continue }
                    switch kv[0].lowercased() {
                    case "url": entry = RTPInfo(url: kv[1])
                    case "seq": entry?.sequenceNumber = UInt16(kv[1])
                    case "rtptime": entry?.rtpTimestamp = UInt32(kv[1])
                    default: break
                    }
                }
                if let entry {
                    out.append(entry)
                } else if !out.isEmpty {
                    out[out.count - 1].url += "," + part  // a comma inside the previous URL
                }
            }
            return out
        }
    }
}

/// The parameters of a `Transport` reply the client uses (RFC 2326 12.39).
package struct RTSPTransportHeader {
    package var interleaved: (UInt8, UInt8)?
    package var serverPorts: (UInt16, UInt16)?
    package var source: String?
    package var ssrc: UInt32?

    package init(_ value: String) {
        // A server may list several transports; the first is the one chosen.
        let first = value.split(separator: ",").first ?? ""
        for field in first.split(separator: ";") {
            let kv = field.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            guard kv.count == 2 else { continue }
            switch kv[0].lowercased() {
            case "interleaved":
                let ends = kv[1].split(separator: "-").compactMap { UInt8($0.trimmingSpaces) }
                if let a = ends.first { interleaved = (a, ends.count > 1 ? ends[1] : a &+ 1) }
            case "server_port":
                let ends = kv[1].split(separator: "-").compactMap { UInt16($0.trimmingSpaces) }
                if let a = ends.first, a > 0 { serverPorts = (a, ends.count > 1 ? ends[1] : a &+ 1) }
            case "source":
                source = kv[1]
            case "ssrc":
                ssrc = UInt32(kv[1], radix: 16)
            default:
                break
            }
        }
    }
}
