import H264
import RTP
import Testing

/// What a loss does to the access units around it: which are flagged incomplete, which are
/// counted lost whole, and when a keyframe is needed (RFC 6184, H.264 7.4.1 `nal_ref_idc`).
@Suite struct RTPLossSignalTests {
    // Slice headers begin with first_mb_in_slice, slice_type, pic_parameter_set_id (ue(v) each).
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0x8C, 0x8D, 0x40]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    /// An IDR slice: first_mb_in_slice 0, slice_type 7 (I).
    static func idr(_ size: Int) -> [UInt8] { [0x65, 0x88] + Array(repeating: 0x55, count: size) }
    /// A reference P slice (nal_ref_idc 2) starting at macroblock `firstMb` (0 or 1).
    static func p(_ size: Int, firstMb: Int = 0) -> [UInt8] { [0x41, firstMb == 0 ? 0xE0 : 0x70] + Array(repeating: 0x55, count: size) }
    /// A non-reference B slice (nal_ref_idc 0) starting at macroblock `firstMb` (0 or 1).
    static func b(_ size: Int, firstMb: Int = 0) -> [UInt8] { [0x01, firstMb == 0 ? 0xA8 : 0x54] + Array(repeating: 0x55, count: size) }

    /// Access units packetised one NAL unit per packet (FU-A past 100 bytes), 3000 ticks apart.
    struct Stream {
        var packets: [[UInt8]] = []
        /// For each access unit, the indices of its packets.
        var units: [[Int]] = []

        init(_ accessUnits: [[[UInt8]]]) throws {
            var packetizer = try RTPPacketizer(.init(mtu: 100, ssrc: 7, initialSequenceNumber: 65_530, aggregates: false))
            var buffer = RTPPacketBuffer()
            for (i, au) in accessUnits.enumerated() {
                buffer.removeAll()
                try packetizer.packetize(RTPAccessUnit(nalUnits: try au.map { try NALUnit($0) }, timestamp90kHz: Int64(i) * 3000),
                                         into: &buffer)
                units.append(Array(packets.count..<packets.count + buffer.count))
                for k in 0..<buffer.count { packets.append(Array(buffer[k])) }
            }
        }
    }

    struct Received {
        var units: [RTPReceivedAccessUnit] = []
        /// `needsKeyframe` after each access unit was delivered.
        var needsKeyframe: [Bool] = []
        var report = RTPLossReport()
        var events: [RTPDepacketizerEvent] = []
        var finalNeedsKeyframe = false
    }

    /// Pushes every packet of `stream` but those in `dropped`, with no reordering (so a gap is
    /// declared lost, and what it completes delivered, as soon as the packet after it arrives).
    static func receive(_ stream: Stream, dropping dropped: Set<Int>) throws -> Received {
        var d = try RTPDepacketizer(.init(reorderWindow: 1))
        var r = Received()
        for (i, packet) in stream.packets.enumerated() where !dropped.contains(i) {
            var delivered: [RTPReceivedAccessUnit] = []
            try d.push(packet[...]) { delivered.append($0) }
            r.units += delivered
            r.needsKeyframe += Array(repeating: d.needsKeyframe, count: delivered.count)
        }
        var delivered: [RTPReceivedAccessUnit] = []
        d.flush { delivered.append($0) }
        r.units += delivered
        r.needsKeyframe += Array(repeating: d.needsKeyframe, count: delivered.count)
        r.report = d.report
        r.events = d.takeEvents()
        r.finalNeedsKeyframe = d.needsKeyframe
        return r
    }

    /// Whole access units lost after one that ended with its marker bit: the next one, which
    /// begins with its first slice (whole, or an FU-A start), arrived whole and is not flagged;
    /// the gap counts as one access unit lost (at least).
    @Test(arguments: [40, 400])
    func wholeAccessUnitsLostAfterMarker(nextSliceSize: Int) throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.p(40)], [Self.p(40)], [Self.p(40)], [Self.p(nextSliceSize)]])
        let r = try Self.receive(stream, dropping: Set(stream.units[2] + stream.units[3]))
        #expect(r.units.map(\.timestamp) == [0, 3000, 12000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, false, false])
        #expect(r.units.last?.nalUnits.map { Array($0.bytes) } == [Self.p(nextSliceSize)])
        #expect(r.report.packetsLost == 2)
        #expect(r.report.incompleteAccessUnits == 0)
        #expect(r.report.accessUnitsLost == 1)
        #expect(r.events.contains(.accessUnitsLost(afterTimestamp: 3000, beforeTimestamp: 12000)))
        // What the lost access units held is unknown: reference pictures, conservatively.
        #expect(r.units.map(\.referenceMayBeLost) == [false, false, true])
        #expect(r.events.contains(.referencePictureLost(timestamp: 12000)))
        #expect(r.finalNeedsKeyframe)
        #expect(r.report.description == "\(r.report.packetsReceived) packets received, 2 lost; 3 access units delivered, "
                + "at least 1 lost, 1 after a reference picture loss")
    }

    /// A gap after a marker followed by a slice that does not begin a picture
    /// (first_mb_in_slice 1): the packets cannot prove the gap held none of its access unit.
    @Test func gapBeforeALaterSliceMayBeIncomplete() throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.p(40), Self.p(40, firstMb: 1)], [Self.p(40)]])
        let r = try Self.receive(stream, dropping: [stream.units[1][0]])
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, true, false])
        #expect(r.report.accessUnitsLost == 0)
        #expect(r.report.incompleteAccessUnits == 1)
        #expect(r.units.map(\.referenceMayBeLost) == [false, true, false])
    }

    /// A sender that begins every access unit with an SEI: a gap that took only the SEI leaves
    /// its access unit flagged (the slice after it never begins one here), a gap that took whole
    /// access units does not flag the next, which begins with its SEI. A sender that also sends
    /// an SEI after the parameter sets of an IDR picture does not prove a start with one (the
    /// gap may have held the parameter sets). An access unit delimiter always begins one.
    @Test func accessUnitStartsAreLearnedFromTheSender() throws {
        let sei: [UInt8] = [0x06, 0x05, 0x11] + Array(repeating: 0x42, count: 17) + [0x80]
        let stream = try Stream([[sei, Self.sps, Self.pps, Self.idr(40)], [sei, Self.p(40)], [sei, Self.p(40)], [sei, Self.p(40)],
                                 [sei, Self.p(40)]])
        let r = try Self.receive(stream, dropping: Set([stream.units[2][0]] + stream.units[3]))
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000, 12000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, false, true, false])
        #expect(r.report.accessUnitsLost == 1)
        #expect(r.events.contains(.accessUnitsLost(afterTimestamp: 6000, beforeTimestamp: 12000)))

        let late = try Stream([[Self.sps, Self.pps, sei, Self.idr(40)], [sei, Self.p(40)], [sei, Self.p(40)], [sei, Self.p(40)]])
        let l = try Self.receive(late, dropping: Set(late.units[2]))
        #expect(l.units.map(\.timestamp) == [0, 3000, 9000])
        #expect(l.units.map(\.mayBeIncomplete) == [false, false, true])
        #expect(l.report.accessUnitsLost == 0)

        let aud: [UInt8] = [0x09, 0xF0]
        let delimited = try Stream([[aud, Self.sps, Self.pps, Self.idr(40)], [aud, Self.p(40)], [aud, Self.p(40)]])
        let d = try Self.receive(delimited, dropping: Set(delimited.units[1]))
        #expect(d.units.map(\.timestamp) == [0, 6000])
        #expect(d.units.map(\.mayBeIncomplete) == [false, false])
        #expect(d.report.accessUnitsLost == 1)
    }

    /// A lost middle FU-A fragment: the NAL unit is dropped and its access unit flagged.
    @Test func lostMiddleFragmentFlagsIncomplete() throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.p(40), Self.p(400, firstMb: 1)], [Self.p(40)]])
        let fragments = stream.units[1].dropFirst()
        #expect(fragments.count >= 3)
        let r = try Self.receive(stream, dropping: [fragments[fragments.startIndex + 1]])
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, true, false])
        #expect(r.units[1].nalUnits.map { Array($0.bytes) } == [Self.p(40)])
        #expect(r.report.nalUnitsDropped == 1 && r.report.accessUnitsLost == 0)
        #expect(r.units.map(\.referenceMayBeLost) == [false, true, false])
    }

    /// Losses inside a non-reference picture (nal_ref_idc 0: all its slices are, 7.4.1) — a
    /// whole middle slice, or a middle fragment — raise no keyframe signal.
    @Test(arguments: [false, true])
    func lostNonReferenceSliceNeedsNoKeyframe(fragment: Bool) throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.p(40)],
                                 [Self.b(40), Self.b(fragment ? 400 : 40, firstMb: 1), Self.b(40, firstMb: 1)], [Self.p(40)]])
        let dropped = fragment ? stream.units[2][2] : stream.units[2][1]
        let r = try Self.receive(stream, dropping: [dropped])
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000, 9000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, false, true, false])
        #expect(r.report.packetsLost == 1)
        #expect(r.report.nalUnitsDropped == (fragment ? 1 : 0))
        #expect(r.units.allSatisfy { !$0.referenceMayBeLost })
        #expect(r.needsKeyframe == [false, false, false, false])
        #expect(r.report.referenceLosses == 0)
        #expect(!r.events.contains { if case .referencePictureLost = $0 { return true } else { return false } })
    }

    /// A lost fragment of a reference slice: a keyframe is needed until an IDR arrives whole.
    @Test func lostReferenceSliceNeedsKeyframeUntilIDR() throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.p(40), Self.p(400, firstMb: 1)], [Self.p(40)],
                                 [Self.sps, Self.pps, Self.idr(400)], [Self.p(40)]])
        let r = try Self.receive(stream, dropping: [stream.units[1][2]])
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000, 9000, 12000])
        #expect(r.units.map(\.referenceMayBeLost) == [false, true, false, false, false])
        #expect(r.needsKeyframe == [false, true, true, false, false])
        #expect(r.report.referenceLosses == 1)
        #expect(r.events.contains(.referencePictureLost(timestamp: 3000)))
        #expect(r.events.contains {
            if case .nalUnitDropped(3000, .slice, _, _) = $0 { return true } else { return false }
        })
    }

    /// An IDR that lost a fragment does not end the need for a keyframe; the next whole one does.
    @Test func incompleteIDRDoesNotClearTheSignal() throws {
        let stream = try Stream([[Self.sps, Self.pps, Self.idr(40)], [Self.sps, Self.pps, Self.idr(400)], [Self.p(40)],
                                 [Self.sps, Self.pps, Self.idr(40)]])
        let r = try Self.receive(stream, dropping: [stream.units[1][3]])
        #expect(r.units.map(\.timestamp) == [0, 3000, 6000, 9000])
        #expect(r.units.map(\.mayBeIncomplete) == [false, true, false, false])
        #expect(r.needsKeyframe == [false, true, true, false])
        #expect(!r.finalNeedsKeyframe)
    }
}
