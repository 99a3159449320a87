import Testing
import H264
import X264

/// The X264 spellings issue 29 replaced (`X264Encoder.Configuration`, `init(configuration:)`,
/// the `configuration` property, `AsyncFrameEncoder.encoder`) still build, with a warning on
/// the caller's side, and are the options, the same encoder and its parameter sets. Called
/// through a protocol whose requirements the deprecated spellings witness, so that this file
/// builds without warnings.
@Suite struct X264DeprecatedNamesTests {
    @Test func configurationIsTheOptions() throws {
        #expect(OldX264Names.configurationType(X264Spellings.self) == ObjectIdentifier(X264Encoder.Options.self))
        let options = X264Support.config(64, 48)
        let (encoder, configuration) = try OldX264Names.open(X264Spellings.self, options)
        #expect(encoder.options.width == 64 && encoder.options.height == 48)
        #expect(configuration.width == 64 && configuration.height == 48)
        #expect(configuration.rateControl == options.rateControl)
    }

    @Test func asyncEncoderReachedThroughIsTheBase() throws {
        let encoder = AsyncFrameEncoder(try X264Encoder(options: X264Support.config(64, 48)))
        let reached = OldX264Names.wrapped(X264Spellings.self, encoder)
        #expect(reached === encoder.base)
        #expect(!encoder.parameterSets.isEmpty)
        #expect(encoder.parameterSets.map { Array($0.bytes) } == reached.parameterSets.map { Array($0.bytes) })
        #expect(try encoder.decoderConfiguration == reached.decoderConfiguration)
        #expect(try encoder.decoderConfiguration(lengthSize: .two)?.nalUnitLengthSize == .two)
    }
}

private protocol DeprecatedX264Names {
    static var configurationType: ObjectIdentifier { get }
    static func open(_ options: X264Encoder.Options) throws -> (X264Encoder, X264Encoder.Options)
    static func wrapped(_ encoder: AsyncFrameEncoder<X264Encoder>) -> X264Encoder
}

private enum X264Spellings: DeprecatedX264Names {
    @available(*, deprecated)
    static var configurationType: ObjectIdentifier { ObjectIdentifier(X264Encoder.Configuration.self) }

    @available(*, deprecated)
    static func open(_ options: X264Encoder.Options) throws -> (X264Encoder, X264Encoder.Options) {
        let configuration: X264Encoder.Configuration = options
        let encoder = try X264Encoder(configuration: configuration)
        return (encoder, encoder.configuration)
    }

    @available(*, deprecated)
    static func wrapped(_ encoder: AsyncFrameEncoder<X264Encoder>) -> X264Encoder { encoder.encoder }
}

private enum OldX264Names {
    static func configurationType<S: DeprecatedX264Names>(_: S.Type) -> ObjectIdentifier { S.configurationType }
    static func open<S: DeprecatedX264Names>(_: S.Type, _ options: X264Encoder.Options) throws -> (X264Encoder, X264Encoder.Options) {
        try S.open(options)
    }
    static func wrapped<S: DeprecatedX264Names>(_: S.Type, _ encoder: AsyncFrameEncoder<X264Encoder>) -> X264Encoder {
        S.wrapped(encoder)
    }
}
