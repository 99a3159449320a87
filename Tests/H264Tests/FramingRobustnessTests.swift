import Testing
@testable import H264
import TestSupport

/// Hostile input: every prefix of real streams, and random bytes, through every framing entry
/// point; each gives NAL units or typed errors, never a trap.
@Suite(.recordingFuzzViolations) struct FramingRobustnessTests {
    /// Runs every framing reader over `bytes`, checking that each loop ends.
    static func exercise(_ bytes: ArraySlice<UInt8>) {
        var splitter = AnnexB.Splitter(bytes)
        var steps = 0
        while steps <= bytes.count + 2 {
            steps += 1
            do { guard try splitter.next() != nil else { break } } catch {}
        }
        #expect(steps <= bytes.count + 2)
        for size in [AVCC.LengthSize.one, .two, .four] {
            var reader = AVCC.Reader(bytes, lengthSize: size)
            steps = 0
            while steps <= bytes.count + 2 {
                steps += 1
                do { guard try reader.next() != nil else { break } } catch {}
            }
            #expect(steps <= bytes.count + 2)
        }
        _ = FramingEvents.stream(Array(bytes), sizes: [7, 1, 30], maximum: 64)
        _ = try? AVCDecoderConfigurationRecord(parsing: bytes)
        if let avcc = try? FormatConversion.annexBToAVCC(bytes, leadingData: .skip) {
            _ = try? FormatConversion.avccToAnnexB(avcc.bytes[...], configuration: avcc.configuration)
            _ = try? FormatConversion.avccToAnnexB(bytes, configuration: avcc.configuration)
        }
    }

    @Test func randomBytes() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<3000 {
            let n = Int(rng.next() % 96)
            let bytes = (0..<n).map { _ -> UInt8 in
                let r = rng.next()
                return r % 4 == 0 ? 0 : UInt8(truncatingIfNeeded: r >> 8)
            }
            Self.exercise(bytes[...])
        }
    }

    @Test func everyPrefixOfAHandMadeStream() throws {
        let stream = FormatConversionTests.annexB([FormatConversionTests.aud, FormatConversionTests.sps, FormatConversionTests.pps,
                                                   FormatConversionTests.sei, FormatConversionTests.idr, FormatConversionTests.p])
        for n in 0...stream.count { Self.exercise(stream[..<n]) }
        let record = AVCDecoderConfigurationRecordTests.highRecord
        for n in 0...record.count { Self.exercise(record[..<n]) }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"),
          arguments: ["cros-codecs/64x64-I.h264", "cros-codecs/64x64-I-P-B-P-high.h264", "mp4ff/avc__two-frames.264"])
    func everyPrefixOfCorpusStreams(_ path: String) throws {
        let bytes = try Corpus.read(path)
        // Every prefix of the first 1,500 bytes, then every 97th.
        var n = 0
        while n <= bytes.count {
            Self.exercise(bytes[..<n])
            n += n < 1500 ? 1 : 97
        }
    }
}
