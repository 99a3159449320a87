import Testing
import H264
import H264Video
@testable import X264

/// The colour description of earlier releases (`X264Encoder.ColorDescription` with `Int` code
/// points, `Options.color`) still builds and means the core's `ColorDescription`. The
/// test functions are deprecated themselves, so calling the deprecated API prints no warning.
@Suite struct X264DeprecatedColorTests {
    @available(*, deprecated)
    @Test func oldColorDescriptionIsTheCoresOne() throws {
        #expect(X264Encoder.ColorDescription.bt709.colorDescription == .bt709)
        #expect(X264Encoder.ColorDescription.bt601.colorDescription == .bt601)
        let hdr = X264Encoder.ColorDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        #expect(hdr.colorDescription == ColorDescription(primaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true))
        #expect(X264Encoder.ColorDescription(hdr.colorDescription) == hdr)
        for d in [X264Encoder.ColorDescription.bt709, .bt601, hdr, .init(primaries: 2, transfer: 2, matrix: 2, fullRange: true)] {
            #expect(d.conversion == d.colorDescription.conversion)
        }
        #expect(X264Encoder.ColorDescription.bt709.conversion == ColorConversion(matrix: .bt709, range: .limited))
        #expect(hdr.conversion == ColorConversion(matrix: .bt601, range: .full))
    }

    /// `color` reads and writes `colorDescription`, and the encoder writes the same SPS either way.
    @available(*, deprecated)
    @Test func oldPropertyForwards() throws {
        var config = X264Support.config()
        config.color = .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        #expect(config.colorDescription == ColorDescription(primaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true))
        config.colorDescription = .bt601PAL
        #expect(config.color == X264Encoder.ColorDescription(primaries: 5, transfer: 6, matrix: 5))
        config.color = nil
        #expect(config.colorDescription == nil && config.color == nil)

        let old = try X264Encoder(options: X264Support.config { $0.color = .bt709 })
        let new = try X264Encoder(options: X264Support.config { $0.colorDescription = .bt709 })
        #expect(old.parameterSets.map(\.bytes) == new.parameterSets.map(\.bytes))
        #expect(try Bitstream(X264Support.encode(old, count: 1)).sps?.colorDescription == .bt709)
    }

    /// A code point outside 0...255 through `color` still makes the encoder throw, as before;
    /// a later valid description clears it.
    @available(*, deprecated)
    @Test func outOfRangeOldCodePointsThrow() throws {
        var config = X264Support.config()
        config.color = .init(primaries: 300, transfer: 1, matrix: 1)
        #expect(config.colorDescription == nil)
        #expect(throws: X264Error(.invalidArgument, "")) { try X264Encoder(options: config) }
        config.colorDescription = .bt709
        #expect(try X264Encoder(options: config).parameterSets.count == 2)
    }
}
