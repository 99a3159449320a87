internal import CX264
import H264
import MediaSupport
import Synchronization
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension X264Encoder {
    /// The SEI messages of one frame, split by who writes them.
    ///
    /// x264 writes `extraSEI` itself (`x264_picture_t.extra_sei`), each in its own SEI NAL unit
    /// after its own messages, and counts their bytes in its rate control (VBV and NAL HRD stay
    /// right). pic_timing and recovery_point are one per picture and x264 writes its own
    /// (pic_timing on every picture with ``Options/pictureTiming``, recovery_point at
    /// intra-refresh starts), so those are put into the access unit when it comes out
    /// (``SEIAccessUnitInsertion``), replacing x264's: a few bytes x264's rate control does not
    /// see.
    struct FrameSEI {
        var extraSEI: [(type: Int32, payload: [UInt8])] = []
        var perPicture: [SEIMessage] = []

        /// Splits `messages` (and the display orientation, when the frame has one).
        /// - Throws: ``X264Error/Code/invalidArgument`` for a buffering_period (x264 writes its
        ///   own with its NAL HRD), a pic_timing without ``Options/pictureTiming``, or a
        ///   message that cannot be written (a value out of its range).
        init(_ messages: [SEIMessage], orientation: Orientation?, configuration: Options) throws(X264Error) {
            if let orientation {
                extraSEI.append((Int32(Orientation.displayOrientationPayloadType), orientation.displayOrientationPayload))
            }
            for message in messages {
                switch message.payloadType {
                case .bufferingPeriod:
                    throw X264Error.invalid(.invalidArgument, "a buffering_period SEI message cannot be added: x264 writes its own with its NAL HRD")
                case .picTiming:
                    guard configuration.pictureTiming else {
                        throw X264Error.invalid(.invalidArgument,
                            "a pic_timing SEI message (a time code) needs Options.pictureTiming: the SPS must have pic_struct_present_flag")
                    }
                    perPicture.append(message)
                case .recoveryPoint:
                    perPicture.append(message)
                default:
                    let payload = try X264Error.catchingH264 { () throws(H264Error) in try message.payloadBytes() }
                    guard payload.count <= Int(Int32.max) else { throw X264Error.invalid(.invalidArgument, "SEI payload too large") }
                    extraSEI.append((Int32(message.payloadType.rawValue), payload))
                }
            }
        }
    }

    /// Attaches `payloads` to `pic.extra_sei`, in memory x264 owns from then on: it calls
    /// `sei_free` on each payload and on the array once it has written them, or when it drops
    /// the frame (closing with frames held). Each block starts with `owner` (an encoder's
    /// ``ExtraSEILedger`` token), so the ledger counts what each encoder has not had freed.
    static func attach(_ payloads: [(type: Int32, payload: [UInt8])], owner: Int, to pic: inout x264_picture_t) {
        guard !payloads.isEmpty,
              let entries = ExtraSEILedger.allocate(MemoryLayout<x264_sei_payload_t>.stride &* payloads.count, owner: owner)?
                .bindMemory(to: x264_sei_payload_t.self, capacity: payloads.count) else { return }
        var count = 0
        for (type, payload) in payloads {
            guard let bytes = ExtraSEILedger.allocate(payload.count, owner: owner)?.bindMemory(to: UInt8.self, capacity: payload.count) else { continue }
            payload.withUnsafeBufferPointer { if let base = $0.baseAddress { bytes.update(from: base, count: payload.count) } }
            (entries + count).initialize(to: x264_sei_payload_t(payload_size: Int32(payload.count), payload_type: type, payload: bytes))
            count += 1  // below payloads.count
        }
        pic.extra_sei.num_payloads = Int32(count)
        pic.extra_sei.payloads = entries
        pic.extra_sei.sei_free = { pointer in ExtraSEILedger.free(pointer) }
    }

    /// Puts the per-picture messages waiting for `frames` into them (x264's own pic_timing and
    /// recovery_point give way; pic_timing keeps x264's delays).
    static func insertPerPictureSEI(_ waiting: inout [Int64: [SEIMessage]], into frames: inout [EncodedFrame],
                                    timing: SEITimingInfo?, log: X264Log) {
        guard !waiting.isEmpty else { return }
        for i in frames.indices {
            guard let messages = waiting.removeValue(forKey: frames[i].pts) else { continue }
            var units = frames[i].nalUnits
            let result = SEIAccessUnitInsertion.insert(messages, into: &units, inputTiming: timing, outputTiming: timing)
            for problem in result.problems { log.receive(Int32(LogLevel.warning.rawValue), "SEI for pts \(frames[i].pts): \(problem.reason)") }
            frames[i] = EncodedFrame(nalUnits: units, pts: frames[i].pts, dts: frames[i].dts, timescale: frames[i].timescale)
        }
    }
}

/// The memory of the SEI payloads handed to x264 (`extra_sei`): each block carries its
/// encoder's token in front of what x264 sees, and the ledger counts, per token, the blocks
/// x264 has not freed yet, so tests can check that every one comes back.
enum ExtraSEILedger {
    private static let header = 16  // keeps the payload 16-byte aligned, as malloc's
    private static let nextToken = Atomic<Int>(1)
    private static let outstanding = ThreadLock<[Int: Int]>([:])

    /// A new owner token (one per encoder).
    static func makeToken() -> Int { nextToken.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Blocks of `owner` not yet freed.
    static func outstandingBlocks(owner: Int) -> Int { outstanding.withLock { $0[owner] ?? 0 } }

    /// `size` bytes (at least 1) preceded by the owner's token; nil when out of memory.
    static func allocate(_ size: Int, owner: Int) -> UnsafeMutableRawPointer? {
        guard size <= Int.max &- header, let block = malloc(header &+ Swift.max(1, size)) else { return nil }
        block.storeBytes(of: owner, as: Int.self)
        outstanding.withLock { $0[owner, default: 0] &+= 1 }  // one per block
        return block + header
    }

    /// x264's `sei_free`: releases a block from ``allocate(_:owner:)``.
    static func free(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        let block = pointer - header
        let owner = block.load(as: Int.self)
        outstanding.withLock {
            let left = ($0[owner] ?? 1) &- 1  // each block is freed once
            $0[owner] = left > 0 ? left : nil
        }
        #if canImport(Glibc)
        Glibc.free(block)
        #elseif canImport(Musl)
        Musl.free(block)
        #else
        Darwin.free(block)
        #endif
    }
}
