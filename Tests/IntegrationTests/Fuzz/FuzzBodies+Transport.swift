// Fuzz bodies for what surrounds the core: RTP depacketising, Y4M and SDP/fmtp parsing. Like
// FuzzBodies.swift, this file compiles into the fuzz binary (Tests/Fuzz/run.sh) and into IntegrationTests.
import H264
import H264Video
import RTP

extension FuzzBodies {
    // MARK: - rtp_depacketize

    /// The RTP depacketiser over a sequence of datagrams. Byte 0 chooses the reorder window
    /// (1...16), a small access-unit limit (bit 4), lenient mode (bit 5), packetization-mode 0
    /// (bit 6) and the whole receiver (bit 7: an `RTPReceiver` that skips until decodable and
    /// reads RTCP); then each datagram is a 2-byte big-endian length and that many bytes (for
    /// the receiver, a length with its top bit set is a datagram of the RTCP port).
    ///
    /// Resource property: what the depacketiser hands out (NAL unit bytes) is at most what came
    /// in (the receiver's parameter-set insertions at most as much again plus 256 KiB), what it
    /// keeps (events) stays under its documented cap, and what its buffers hold under
    /// `maximumRetainedByteCount` (plus 128 KiB for the allocator's rounding).
    static func rtpDepacketize(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let configuration = RTPDepacketizer.Options(
            reorderWindow: Int(first & 15) &+ 1, maximumAccessUnitSize: first & 16 == 0 ? 32 << 20 : 300,
            packetizationMode: first & 64 == 0 ? 1 : 0, lenient: first & 32 != 0)
        let asReceiver = first & 128 != 0
        guard var depacketizer = try? RTPDepacketizer(configuration),
              var receiver = try? RTPReceiver(.init(depacketizer: configuration, skipsUntilDecodable: true)) else {
            check(false, "a valid configuration was refused")
            return
        }
        var delivered = 0
        var accessUnits = 0
        var packets = 0
        let deliver = { (au: RTPReceivedAccessUnit) in
            accessUnits &+= 1
            for unit in au.nalUnits { delivered &+= unit.count }
        }
        func checkHeld() {
            let held = asReceiver ? receiver.depacketizer.retainedByteCount : depacketizer.retainedByteCount
            check(held <= configuration.maximumRetainedByteCount &+ (128 << 10), "\(held) bytes held")
        }
        var i = 1
        while i &+ 2 <= data.count {
            let field = Int(data[i]) << 8 | Int(data[i &+ 1])
            let rtcp = asReceiver && field & 0x8000 != 0
            let length = asReceiver ? field & 0x7FFF : field
            let start = i &+ 2
            let end = min(start &+ length, data.count)
            i = end
            packets &+= 1
            if asReceiver {
                receiver.receive(data[start..<end], channel: rtcp ? .rtcp : .rtp, deliver)
            } else {
                do throws(RTPError) { try depacketizer.push(data[start..<end], deliver) } catch {}
            }
            if packets % 8 == 0 {
                let events = asReceiver ? receiver.takeEvents() : depacketizer.takeEvents()
                check(events.count <= RTPDepacketizer.maximumPendingEvents, "events beyond the cap")
                checkHeld()
            }
        }
        checkHeld()
        if asReceiver {
            receiver.finish(deliver)
            check(receiver.takeEvents().count <= RTPDepacketizer.maximumPendingEvents, "events beyond the cap")
            check(delivered <= 2 &* data.count &+ ParameterSetInserter.defaultMaximumBytesPerAccessUnit,
                  "\(delivered) NAL unit bytes out of \(data.count) input bytes")
            check(receiver.errors.count <= RTPReceiver.maximumKeptErrors, "errors beyond the cap")
            check(receiver.report.rtcpPacketsReceived &* 4 <= data.count, "more RTCP packets than 4-byte headers")
        } else {
            depacketizer.flush(deliver)
            check(depacketizer.takeEvents().count <= RTPDepacketizer.maximumPendingEvents, "events beyond the cap")
            check(delivered <= data.count, "\(delivered) NAL unit bytes out of \(data.count) input bytes")
        }
        check(accessUnits <= packets, "\(accessUnits) access units from \(packets) packets")
    }

    // MARK: - y4m_parse

    /// The Y4M push parser fed in chunks of 1...256 bytes (byte 0 chooses).
    ///
    /// Resource property: the frames returned hold at most the input's bytes, and the parser
    /// never buffers more than it was given.
    static func y4mParse(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let chunk = Int(first) &+ 1
        var parser = Y4MParser()
        var frameBytes = 0
        var i = 1
        while i < data.count {
            let end = min(i &+ chunk, data.count)
            parser.append(data[i..<end])
            i = end
            var steps = 0
            while steps <= data.count {
                steps &+= 1
                do throws(H264VideoError) {
                    guard let frame = try parser.nextFrame() else { break }
                    for plane in frame.planes { frameBytes &+= plane.bytes.count }
                } catch {
                    break  // a malformed stream stays malformed: the parser does not skip ahead
                }
            }
        }
        _ = try? parser.finish()
        check(frameBytes <= data.count, "\(frameBytes) frame bytes out of \(data.count) input bytes")
    }

    // MARK: - sdp_parse

    /// SDP and fmtp parsing: byte 0 chooses between an fmtp line and a whole SDP document.
    /// Whatever parses writes back (`description`, `text`) to text that parses to the same value.
    ///
    /// Resource property: the parameter sets and parameters kept are at most the text's size
    /// (the input decoded as UTF-8, where an invalid byte becomes a 3-byte replacement).
    static func sdpParse(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let text = String(decoding: data.dropFirst(), as: UTF8.self)
        if first & 1 == 0 {
            guard let parameters = try? H264FormatParameters(parsing: text) else { return }
            checkFormatParameters(parameters, inputSize: text.utf8.count)
        } else {
            guard let session = try? RTPSessionDescription(parsing: text) else { return }
            checkFormatParameters(session.format, inputSize: text.utf8.count)
            check(session.sessionName.utf8.count <= text.utf8.count, "a session name longer than the input")
            let again = try? RTPSessionDescription(parsing: session.text)
            check(again?.format == session.format && again?.port == session.port && again?.payloadType == session.payloadType,
                  "an SDP document does not survive text + parse")
        }
    }

    static func checkFormatParameters(_ parameters: H264FormatParameters, inputSize: Int) {
        let kept = parameters.parameterSets.reduce(0) { $0 &+ $1.count }
            &+ parameters.otherParameters.reduce(0) { $0 &+ $1.utf8.count }
        check(kept <= inputSize, "\(kept) bytes kept from \(inputSize) input bytes")
        check(parameters.parameterSets.count <= H264FormatParameters.maximumParameterSets, "parameter sets beyond the cap")
        let again = try? H264FormatParameters(parsing: parameters.description)
        check(again == parameters, "fmtp parameters do not survive description + parse: \(parameters.description)")
    }
}
