import Foundation
import H264
import RTP
import TestSupport

extension Corpus {
    /// Streams of various shapes: multi-slice with SEI, B-frames, scaling lists with 3 PPS, subset
    /// SPS and SVC NAL units (types 14, 20), PAFF fields, SPS+PPS before every picture (large,
    /// so only at the usual MTU), AUD and end of stream.
    static let smallStreams = [
        "cros-codecs/test-25fps.h264",
        "cros-codecs/64x64-I-P-B-P-high.h264",
        "openh264/test_scalinglist_jm.264",
        "openh264/sps_subsetsps_bothVUI.264",
        "fate-frext/HCAFF1_HHI.264",
    ]
    static let largeStreams = [
        "hibernia/CANL1_TOSHIBA_G.264",
        "hibernia/CAWP5_TOSHIBA_E.264",
    ]

    static func accessUnits(_ name: String) throws -> [RTPAccessUnit] {
        RTPAccessUnit.accessUnits(annexB: try read(name)[...])
    }
}


/// Packets of a whole stream, and for each NAL unit (in order) the indices of the packets
/// carrying it.
struct PacketizedStream {
    var packets: [[UInt8]] = []
    var nalPackets: [[Int]] = []
    var nalBytes: [[UInt8]] = []
    var nalTimestamps: [UInt32] = []

    init(_ aus: [RTPAccessUnit], _ configuration: RTPPacketizer.Options) throws {
        var packetizer = try RTPPacketizer(configuration)
        var buffer = RTPPacketBuffer()
        for au in aus {
            buffer.removeAll()
            try packetizer.packetize(au, into: &buffer)
            let first = packets.count
            for i in 0..<buffer.count { packets.append(Array(buffer[i])) }
            // Map NAL units to packets by replaying the packetiser's layout from the packets.
            var p = first
            var stapLeft = 0
            for unit in au.nalUnits {
                let payloadType = packets[p][12] & 0x1F
                nalBytes.append(Array(unit.bytes))
                nalTimestamps.append(configuration.initialTimestamp &+ UInt32(truncatingIfNeeded: au.timestamp90kHz))
                if payloadType == 28 {
                    var indices: [Int] = []
                    while true {
                        indices.append(p)
                        let end = packets[p][13] & 0x40 != 0
                        p += 1
                        if end { break }
                    }
                    nalPackets.append(indices)
                } else if payloadType == 24 {
                    if stapLeft == 0 { stapLeft = Self.stapCount(packets[p]) }
                    nalPackets.append([p])
                    stapLeft -= 1
                    if stapLeft == 0 { p += 1 }
                } else {
                    nalPackets.append([p])
                    p += 1
                }
            }
        }
    }

    static func stapCount(_ packet: [UInt8]) -> Int {
        var pos = 13, n = 0
        while pos < packet.count {
            pos += 2 + (Int(packet[pos]) << 8 | Int(packet[pos + 1]))
            n += 1
        }
        return n
    }
}

/// Pushes packets through a depacketiser and returns what it delivered.
func depacketize(_ packets: [[UInt8]], _ configuration: RTPDepacketizer.Options = .init()) throws
    -> (aus: [(timestamp: UInt32, nals: [[UInt8]])], report: RTPLossReport, events: [RTPDepacketizerEvent])
{
    var d = try RTPDepacketizer(configuration)
    var aus: [(timestamp: UInt32, nals: [[UInt8]])] = []
    let sink = { (au: RTPReceivedAccessUnit) in aus.append((au.timestamp, au.nalUnits.map { Array($0.bytes) })) }
    for p in packets { try d.push(p[...], sink) }
    d.flush(sink)
    return (aus, d.report, d.takeEvents())
}
