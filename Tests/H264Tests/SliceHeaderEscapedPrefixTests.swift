import Testing
import TestSupport
@testable import H264

/// Slice headers with an emulation-prevention byte among their bytes: read straight from the
/// escaped payload first, then (an emulation-prevention byte found within the header) from the
/// first 32 payload bytes unescaped on the stack, and from the whole RBSP only for a header
/// longer than that. Every path must give what parsing the RBSP gives.
enum EscapedSliceHeaders {
    /// 16-bit frame_num and pic_order_cnt_lsb (zero values make `00 00` runs), weighted
    /// prediction for long headers.
    static func store() -> ParameterSetStore {
        var sps = SequenceParameterSet()
        sps.log2MaxFrameNumMinus4 = 12
        sps.log2MaxPicOrderCntLsbMinus4 = 12
        sps.maxNumRefFrames = 4
        var pps = PictureParameterSet()
        pps.weightedPredFlag = true
        return ParameterSetStore(sps: sps, pps: pps)
    }

    /// The NAL unit of `header` followed by 48 bytes of slice data.
    static func unit(_ header: SliceHeader, _ store: ParameterSetStore) throws -> NALUnit {
        var h = header
        try h.setInferredValues(context: store)
        var bits = try h.write(context: store)
        bits.writeTrailingBits()
        let rbsp = bits.bytes + (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 37 | 1) }
        let n = header.nalUnitHeader
        return try NALUnit([n.nalRefIdc << 5 | n.nalUnitType.rawValue] + EmulationPrevention.ebsp(from: rbsp))
    }

    /// P slices whose fields put zero runs in their first bytes, some with a weight table
    /// long enough (32 entries of 17-bit values) to pass the 32-byte prefix.
    static func headers() -> [SliceHeader] {
        var out: [SliceHeader] = []
        for first: UInt32 in [0, 1, 5] {
            for frameNum: UInt32 in [0, 1, 2, 3, 0x100, 0x8000] {
                for lsb: UInt32 in [0, 1, 2, 3, 0x200] {
                    for long in [false, true] {
                        var h = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 2, nalUnitType: .slice))
                        h.firstMbInSlice = first
                        h.sliceType = .p
                        h.frameNum = frameNum
                        h.picOrderCntLsb = lsb
                        var table = PredWeightTable()
                        if long {
                            h.numRefIdxActiveOverrideFlag = true
                            h.numRefIdxL0ActiveMinus1 = 31
                            var e = PredWeightTable.Entry()
                            e.lumaWeightFlag = true
                            e.lumaWeight = -128
                            e.lumaOffset = -128
                            table.l0 = Array(repeating: e, count: 32)
                        } else {
                            table.l0 = [PredWeightTable.Entry()]
                        }
                        h.predWeightTable = table
                        out.append(h)
                    }
                }
            }
        }
        return out
    }

    /// True when an emulation-prevention byte lies in the first `count` payload bytes of `unit`.
    static func escaped(_ unit: NALUnit, within count: Int) -> Bool {
        EmulationPrevention.firstEmulationPreventionByte(in: unit.payload.prefix(count)) != nil
    }
}

@Suite struct SliceHeaderEscapedPrefixTests {
    @Test func everyPathGivesTheHeaderTheRBSPGives() throws {
        let store = EscapedSliceHeaders.store()
        var prefixPath = 0
        var wholePath = 0
        var kept = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 2, nalUnitType: .slice))
        for header in EscapedSliceHeaders.headers() {
            let unit = try EscapedSliceHeaders.unit(header, store)
            let expected = try SliceHeader.parse(rbsp: unit.rbsp, nalUnitHeader: NALUnitHeader(unit), context: store)
            var written = header
            try written.setInferredValues(context: store)
            #expect(expected.header == written, "the RBSP gives back the header written")
            let fresh = try SliceHeader.parse(unit, context: store)
            #expect(fresh.header == expected.header && fresh.bitLength == expected.bitLength)
            let bits = try SliceHeader.parse(unit, context: store, into: &kept)
            #expect(kept == expected.header && bits == expected.bitLength)
            if EscapedSliceHeaders.escaped(unit, within: (expected.bitLength + 7) / 8) {
                if expected.bitLength <= 8 * SliceHeader.headerPrefixBytes - 8 { prefixPath += 1 } else { wholePath += 1 }
            }
        }
        #expect(prefixPath >= 20, "headers with an emulation-prevention byte read from the prefix: \(prefixPath)")
        #expect(wholePath >= 5, "headers with an emulation-prevention byte longer than the prefix: \(wholePath)")
    }

    /// A header read from the unescaped prefix costs no allocation (into a kept header, whose
    /// lists' storage is already grown). Optimised builds only, as the other allocation counts.
    @Test(.enabled(if: Allocations.isOptimizedBuild && Allocations.isAvailable, Allocations.optimizedBuildOnly))
    func theUnescapedPrefixAllocatesNothing() throws {
        let store = EscapedSliceHeaders.store()
        let units = try EscapedSliceHeaders.headers().map { try EscapedSliceHeaders.unit($0, store) }.filter { unit in
            guard let bits = try? SliceHeader.parse(rbsp: unit.rbsp, nalUnitHeader: NALUnitHeader(unit), context: store).bitLength else {
                return false
            }
            return bits <= 8 * SliceHeader.headerPrefixBytes - 8 && EscapedSliceHeaders.escaped(unit, within: (bits + 7) / 8)
        }
        #expect(units.count >= 20)
        var kept = SliceHeader(nalUnitHeader: NALUnitHeader(nalRefIdc: 2, nalUnitType: .slice))
        func readAll() throws -> Int {
            var sum = 0
            for unit in units {
                kept.resetForReading(nalUnitHeader: NALUnitHeader(unit), keepingStorage: true)
                sum &+= try SliceHeader.parseUnescapedPrefix(of: unit.payload, into: &kept, context: store)
            }
            return sum
        }
        let expected = try readAll()  // grows the lists' storage
        var sum = 0
        let allocations = try Allocations.count { sum = try readAll() }
        #expect(sum == expected && sum > 0)
        #expect(allocations == 0, "\(allocations) allocations for \(units.count) headers")
    }

    /// A reader whose errors are discarded (the pass over the escaped bytes) throws one shared
    /// error for every failure, its own and the syntax's limits, and builds no message; the same
    /// reads without the flag throw the errors with their messages.
    @Test func aReaderThatDiscardsErrorsThrowsTheSharedOne() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF]  // 15 zero bits, a one, 15 ones: ue(v) = 2^16 - 2
        for discards in [true, false] {
            var results: [H264Error] = []
            bytes.withUnsafeBytes { raw in
                func attempt(_ body: (inout UnsafeSyntaxReader) throws(H264Error) -> Void) {
                    var r = UnsafeSyntaxReader(raw)
                    r.discardsErrors = discards
                    do throws(H264Error) { try body(&r) } catch { results.append(error) }
                }
                attempt { r throws(H264Error) in var v: UInt32 = 0; try r.ue(&v, "num_ref_idx_l0_active_minus1", 0...31) }
                attempt { r throws(H264Error) in var v: UInt64 = 0; v = try r.readBits(64); _ = v }
                attempt { r throws(H264Error) in var a: [UInt8] = []; try r.prepare(&a, count: 33, limit: 32, fill: 0, "luma_weight_l0") }
                attempt { r throws(H264Error) in var m = RefPicListModification(); try m.code(&r, mvc: false) }
            }
            #expect(results.count == 4)
            for e in results {
                #expect(e.isIdentical(to: UnsafeSyntaxReader.discarded) == discards, "\(e)")
            }
            if !discards {
                #expect(results.map(\.code) == [.valueOutOfRange, .truncated, .limitExceeded, .valueOutOfRange])
            }
        }
    }
}
