import FLV
import H264

/// The inputs of issue-class resource tests, built in memory: each reproduces a way the input
/// could once make the library use memory, time or output out of proportion to it.
enum HostileInputs {
    /// A small valid SPS (Baseline, 16x16, POC type 2) with `id` and `level`.
    static func sps(id: UInt32, level: UInt8 = 30) -> [UInt8] {
        var w = BitWriter()
        w.writeBits(0x67, 8)
        w.writeBits(66, 8); w.writeBits(0xC0, 8); w.writeBits(UInt64(level), 8)
        w.writeUE(id)
        w.writeUE(0)        // log2_max_frame_num_minus4
        w.writeUE(2)        // pic_order_cnt_type
        w.writeUE(1)        // max_num_ref_frames
        w.writeBits(0, 1)   // gaps_in_frame_num_value_allowed_flag
        w.writeUE(0); w.writeUE(0)  // one macroblock
        w.writeBits(1, 1); w.writeBits(1, 1); w.writeBits(0, 1); w.writeBits(0, 1)  // frame_mbs_only, 8x8 inference, no crop, no VUI
        w.writeTrailingBits()
        return w.bytes
    }

    /// A small valid PPS `id` over SPS `spsID`.
    static func pps(id: UInt32, spsID: UInt32) -> [UInt8] {
        var w = BitWriter()
        w.writeBits(0x68, 8)
        w.writeUE(id); w.writeUE(spsID)
        w.writeBits(0, 1); w.writeBits(0, 1)  // CAVLC, no bottom-field POC
        w.writeUE(0); w.writeUE(0); w.writeUE(0)  // slice groups, ref idx defaults
        w.writeBits(0, 1); w.writeBits(0, 2)  // no weighted prediction
        w.writeSE(0); w.writeSE(0); w.writeSE(0)
        w.writeBits(0, 3)
        w.writeTrailingBits()
        return w.bytes
    }

    /// A parameter set NAL unit of `type` (7 or 8) padded to `size` bytes: a valid one, then
    /// trailing data that never forms a start code.
    static func bigParameterSet(type: UInt8, id: UInt32, spsID: UInt32 = 0, size: Int) -> [UInt8] {
        let valid = type == 7 ? sps(id: id) : pps(id: id, spsID: spsID)
        return valid + [UInt8](repeating: 0x5A, count: max(0, size - valid.count))  // trailing data
    }

    /// An IDR slice of PPS 0 (`first_mb_in_slice` 0, I slice): 3 bytes.
    static let idrSlice: [UInt8] = [0x65, 0x88, 0x80]

    /// Class 1: 32 SPS and 256 PPS, then `count` access units, each an SPS 0 whose
    /// `level_idc` alternates (a format change every access unit) and an IDR slice.
    static func formatChanges(count: Int) -> [UInt8] {
        var out: [UInt8] = []
        for id in 0..<32 { out += [0, 0, 0, 1] + sps(id: UInt32(id)) }
        for id in 0..<256 { out += [0, 0, 0, 1] + pps(id: UInt32(id), spsID: UInt32(id % 32)) }
        let a = sps(id: 0, level: 10), b = sps(id: 0, level: 11)
        out.reserveCapacity(out.count + count * (a.count + 8 + idrSlice.count))
        for i in 0..<count {
            out += [0, 0, 0, 1] + (i % 2 == 0 ? a : b)
            out += [0, 0, 1] + idrSlice
        }
        return out
    }

    /// Class 2, FLV: a sequence header of 31 SPS and `ppsCount` PPS of 65,535 bytes each,
    /// then `keyframes` keyframe tags of one small IDR slice.
    static func flvWithHugeSequenceHeader(ppsCount: Int, keyframes: Int) throws -> [UInt8] {
        let record = try hugeRecord(ppsCount: ppsCount)
        var w = FLVWriter()
        try w.writeDecoderConfiguration(record.serialized(), timestamp: 0)
        for i in 0..<keyframes {
            let sample = try AVCC.write([try NALUnit(idrSlice)])
            try w.writeSample(FLVVideoSample(dts: Int64(i) * 40, pts: Int64(i) * 40, isKeyframe: true, data: sample))
        }
        return w.takeBytes()
    }

    /// Class 2, avcC: a record of 31 SPS and `ppsCount` PPS of 65,535 bytes, and `samples`
    /// IDR samples of 7 bytes each (4-byte length, a 3-byte slice).
    static func avccWithHugeRecord(ppsCount: Int, samples: Int) throws -> (samples: [UInt8], record: [UInt8]) {
        let record = try hugeRecord(ppsCount: ppsCount)
        var bytes: [UInt8] = []
        for _ in 0..<samples { bytes += try AVCC.write([try NALUnit(idrSlice)]) }
        return (bytes, try record.serialized())
    }

    static func hugeRecord(ppsCount: Int) throws -> AVCDecoderConfigurationRecord {
        var sets: [NALUnit] = []
        for id in 0..<31 { sets.append(try NALUnit(bigParameterSet(type: 7, id: UInt32(id), size: 65_535))) }
        for id in 0..<ppsCount { sets.append(try NALUnit(bigParameterSet(type: 8, id: UInt32(id), spsID: 0, size: 65_535))) }
        return try AVCDecoderConfigurationRecord(parameterSets: sets)
    }

    /// Class 2, Annex-B to FLV: one SPS and `ppsCount` PPS of 65,535 bytes, then `count` access
    /// units of one IDR slice.
    static func annexBWithHugeParameterSets(ppsCount: Int, count: Int) -> [UInt8] {
        var out: [UInt8] = [0, 0, 0, 1] + sps(id: 0)
        for id in 0..<ppsCount { out += [0, 0, 0, 1] + bigParameterSet(type: 8, id: UInt32(id), spsID: 0, size: 65_535) }
        for _ in 0..<count { out += [0, 0, 1] + idrSlice }
        return out
    }

    /// Class 4: one SEI NAL unit with a `size`-byte `user_data_unregistered` payload.
    static func bigUserDataSEI(size: Int) throws -> [UInt8] {
        let message = SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(payload: [UInt8](repeating: 0x41, count: size))))
        return [0, 0, 0, 1] + Array(try SEINALUnit(messages: [message]).nalUnit().bytes)
    }

    /// Class 7: `count` NAL units whose header has `forbidden_zero_bit` set (`00 00 01 80`).
    static func invalidNALUnits(count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count * 4)
        for _ in 0..<count { out += [0, 0, 1, 0x80] }
        return out
    }
}
