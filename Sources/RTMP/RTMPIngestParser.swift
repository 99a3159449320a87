import FLV
import H264

/// Turns a publisher's media and data messages into ``RTMPIngestStream/Event``s: the pure part
/// of ingest (no socket, no clock), tested and fuzzed on any bytes.
///
/// Video is parsed with FLV's `FLVVideoPacket` (legacy AVC tags and the enhanced RTMP
/// `ExVideoTagHeader` with FourCC `avc1`); any other codec is refused with
/// ``RTMPError/Code/unsupported``, never read as AVC. Audio is never decoded, and data other than
/// `onMetaData` is passed on as it came: both become ``RTMPIngestStream/Event/tag(_:time:)``.
///
/// Memory: the avcC record in force and its parameter sets; an event refers to its message's
/// payload (no copy).
struct RTMPIngestParser {
    /// The sequence header in force, as bytes and parsed.
    private(set) var configurationBytes: [UInt8]?
    private var configuration: AVCDecoderConfigurationRecord?
    /// Its SPS and PPS, put before a keyframe's NAL units.
    private var parameterSets: [NALUnit] = []
    private var videoClock = RTMPTimestampUnroller()
    private var audioClock = RTMPTimestampUnroller()
    private var dataClock = RTMPTimestampUnroller()
    /// Access units with a negative composition time so far.
    private(set) var negativeCompositionTimes = 0

    /// The event one message makes; nil for a message that makes none (a repeated sequence
    /// header, a video info frame, a type that is neither audio, video nor data).
    /// - Throws: ``RTMPError/Code/unsupported`` for video in another codec (the reason names
    ///   it); ``RTMPError/Code/protocolViolation`` for a malformed video message (a header cut
    ///   short, a sequence header that is not an avcC record, NAL unit lengths that overrun the
    ///   payload).
    mutating func event(for message: RTMPMessage) throws(RTMPError) -> RTMPIngestStream.Event? {
        switch message.kind {
        case .video:
            return try video(message)
        case .audio:
            let time = audioClock.unroll(message.timestamp)
            return .tag(FLVTag(type: .audio, timestamp: message.timestamp, body: message.payload[...]), time: time)
        case .dataAMF0, .dataAMF3:
            let time = dataClock.unroll(message.timestamp)
            let body = message.kind == .dataAMF3 ? message.payload.dropFirst() : message.payload[...]
            if let metadata = Self.metadata(body) { return .metadata(metadata) }
            return .tag(FLVTag(type: .script, timestamp: message.timestamp, body: body), time: time)
        default:
            return nil
        }
    }

    /// `onMetaData`'s object, from `@setDataFrame onMetaData {...}` or `onMetaData {...}`; nil
    /// for other data (and for malformed AMF0, which is then passed on as it came).
    static func metadata(_ body: ArraySlice<UInt8>) -> FLVMetadata? {
        var rest = body
        guard var name = (try? AMF0.decode(from: &rest))?.string else { return nil }
        if name == "@setDataFrame" {
            guard let next = (try? AMF0.decode(from: &rest))?.string else { return nil }
            name = next
        }
        guard name == "onMetaData", let value = try? AMF0.decode(from: &rest) else { return nil }
        return FLVMetadata(value)
    }

    private mutating func video(_ message: RTMPMessage) throws(RTMPError) -> RTMPIngestStream.Event? {
        let packet: FLVVideoPacket
        do throws(FLVError) {
            packet = try FLVVideoPacket(parsing: message.payload[...])
        } catch where error.code == .unsupported {
            throw RTMPError.wrapping(error, as: .unsupported, "the publisher's video is not H.264: \(error.reason)")
        } catch {
            throw RTMPError.wrapping(error, as: .protocolViolation, "malformed video message at \(message.timestamp) ms")
        }
        let dts = videoClock.unroll(message.timestamp)
        guard packet.frameType != .videoInfo else { return nil }
        switch packet.packetType {
        case .sequenceHeader:
            guard !packet.data.elementsEqual(configurationBytes ?? []) else { return nil }
            let record: AVCDecoderConfigurationRecord
            do throws(H264Error) {
                record = try AVCDecoderConfigurationRecord(parsing: packet.data)
            } catch {
                throw RTMPError.wrapping(error, as: .protocolViolation, "the AVC sequence header at \(dts) ms is not an avcC record")
            }
            configuration = record
            configurationBytes = Array(packet.data)
            parameterSets = record.parameterSets
            return .decoderConfiguration(Array(packet.data), timestamp: dts)
        case .nalu:
            let lengthSize = configuration?.nalUnitLengthSize ?? .four
            var units: [NALUnit]
            do throws(H264Error) {
                units = try AVCC.split(packet.data, lengthSize: lengthSize)
            } catch {
                throw RTMPError.wrapping(error, as: .protocolViolation, "malformed AVC NAL units at \(dts) ms")
            }
            let isKeyframe = packet.frameType == .keyframe
            if isKeyframe && !parameterSets.isEmpty && !units.contains(where: { $0.type == .sps }) {
                units = parameterSets + units
            }
            let ct = Int64(packet.compositionTime)
            if ct < 0 { negativeCompositionTimes &+= 1 }  // one per message
            let times = SampleTimestamps(pts: dts &+ max(ct, 0), dts: dts, timescale: 1000)  // 64 + 24 bits
            return .video(RTMPReceivedAccessUnit(nalUnits: units, data: packet.data, lengthSize: lengthSize,
                                                 isKeyframe: isKeyframe, compositionTime: packet.compositionTime,
                                                 timestamps: times))
        case .endOfSequence:
            return .endOfSequence(timestamp: dts)
        default:
            throw RTMPError.invalid(.protocolViolation, "AVCPacketType \(packet.packetType.rawValue) at \(dts) ms")
        }
    }
}

/// RTMP's 32-bit millisecond times unrolled to 64 bits: each time is taken as the one nearest
/// to the time before it (a step of less than 2^31 ms forwards or backwards), so a stream keeps
/// counting past the 49.7-day wrap and a small step back stays a small step back.
struct RTMPTimestampUnroller: Sendable {
    private var last: UInt32?
    private var value: Int64 = 0

    /// The 64-bit time of `time`, the first one as it is.
    mutating func unroll(_ time: UInt32) -> Int64 {
        if let last {
            value &+= Int64(Int32(bitPattern: time &- last))  // at most 2^31 per message: no overflow in practice
        } else {
            value = Int64(time)
        }
        last = time
        return value
    }
}
