import Testing
@testable import H264
import TestSupport

/// Every parameter set, delimiter, filler and slice header of the corpus re-serialises
/// bit-exactly through the writer driven by the same syntax description.
@Suite(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
struct ParameterSetRoundTripTests {
    @Test(arguments: Corpus.annexBStreams)
    func roundTrip(stream: String) throws {
        var store = ParameterSetStore()
        var counts = [UInt8: Int]()
        for nal in try Corpus.nalUnits(stream) {
            let rbsp = nal.rbsp
            switch nal.type {
            case .sps:
                let sps = try SequenceParameterSet(rbsp: rbsp)
                #expect(try sps.rbsp() == Array(rbsp), "SPS of \(stream)")
                store.insert(sps)
            case .pps:
                let pps = try PictureParameterSet(rbsp: rbsp, context: store)
                #expect(try pps.rbsp(context: store) == Array(rbsp), "PPS of \(stream)")
                store.insert(pps)
            case .accessUnitDelimiter:
                let aud = try AccessUnitDelimiter(rbsp: rbsp)
                #expect(try aud.rbsp(context: store) == Array(rbsp))
            case .fillerData:
                let filler = try FillerData(rbsp: rbsp)
                #expect(try filler.rbsp(context: store) == Array(rbsp))
            case .subsetSPS:
                let subset = try SubsetSequenceParameterSet(rbsp: rbsp)
                #expect(try subset.rbsp(context: store) == Array(rbsp), "subset SPS of \(stream)")
                store.insert(subset)
            case .slice, .idrSlice, .sliceExtension:
                if nal.type == .sliceExtension, let e = nal.headerExtension, e[e.startIndex] & 0x80 != 0 { continue }
                let (header, bits) = try SliceHeader.parse(nal, context: store)
                let w = try header.write(context: store)
                #expect(w.bitCount == bits, "slice header length in \(stream)")
                var original = BitReader(rbsp)
                var written = BitReader(w.bytes)
                let expected = try original.readBits(min(bits, 64))
                #expect(try written.readBits(min(bits, 64)) == expected)
                var left = bits - min(bits, 64)
                while left > 0 {
                    let n = min(left, 64)
                    #expect(try written.readBits(n) == original.readBits(n), "slice header bits in \(stream)")
                    left -= n
                }
            default:
                continue
            }
            counts[nal.type.rawValue, default: 0] += 1
        }
        // avc__two-frames.264 is length-prefixed: no Annex-B NAL units, nothing to check.
        #expect(!counts.isEmpty || stream.hasSuffix("two-frames.264"))
    }
}
