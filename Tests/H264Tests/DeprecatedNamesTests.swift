import H264
import H264Fixtures
import Testing

/// The names of the core that issue 29 replaced (`AVCC.StreamReader`, `PictureOrderCounter`,
/// `TimestampAssigner.Configuration` and its `configuration:` spellings, `AccessUnitAssembler.Limits`,
/// the fixture builder's colour tuple) still build, with a
/// warning on the caller's side, and are the new types and members. Called through a protocol
/// whose requirements the deprecated spellings witness, so that this file builds without
/// warnings.
@Suite struct DeprecatedNamesTests {
    @Test func oldTypeNamesAreTheNewTypes() {
        let old = OldNames.types(Spellings.self)
        #expect(old.streamReader == ObjectIdentifier(AVCCStreamParser.self))
        #expect(old.counter == ObjectIdentifier(PictureOrderCountDecoder.self))
        #expect(old.timing == ObjectIdentifier(TimestampOptions.self))
        #expect(old.streamReader != old.counter)
        #expect(OldNames.limitsType(Spellings.self) == ObjectIdentifier(AccessUnitLimits.self))
    }

    @Test func builderColourTupleIsTheColorDescription() {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 64)
        OldNames.setColour(Spellings.self, &options, (9, 16, 9, true))
        #expect(options.colorDescription == ColorDescription(primaries: 9, transferCharacteristics: 16,
                                                             matrixCoefficients: 9, fullRange: true))
        options.colorDescription = ColorDescription(primaries: 1, transferCharacteristics: 1, matrixCoefficients: 1, fullRange: false)
        #expect(OldNames.colour(Spellings.self, options).map { [$0.primaries, $0.transfer, $0.matrix] } == [1, 1, 1])
        options.colorDescription = nil
        #expect(OldNames.colour(Spellings.self, options) == nil)
    }

    @Test func streamReaderParsesAsTheParser() throws {
        let avcc = try FormatConversion.annexBToAVCC(Fixture.mainCABACBFrames.bytes()[...])
        var parser = AVCCStreamParser(lengthSize: .four)
        parser.append(avcc.bytes[...])
        parser.finish()
        var units: [[UInt8]] = []
        while let unit = try parser.next() { units.append(Array(unit.bytes)) }
        #expect(units.count > 2)
        #expect(try OldNames.streamReaderUnits(Spellings.self, avcc.bytes) == units)
    }

    @Test func counterCountsAsTheDecoder() {
        let params = POCParameters(picOrderCntType: 0, maxFrameNum: 16, maxPicOrderCntLsb: 16)
        let lsbs: [Int64] = [0, 4, 8, 12, 0, 4, 14]
        var decoder = PictureOrderCountDecoder()
        let values = lsbs.enumerated().map { i, lsb in
            decoder.next(POCInputs(isIDR: i == 0, isReference: true, frameNum: Int64(i), picOrderCntLsb: lsb), params).value
        }
        #expect(values == [0, 4, 8, 12, 16, 20, 14])
        #expect(OldNames.counterValues(Spellings.self, lsbs, params) == values)
    }

    @Test func configurationSpellingsAreTheOptions() {
        let options = TimestampOptions(frameRate: (30, 1), overridesStreamTiming: true, reorderDepth: 2)
        #expect(OldNames.assignerConfiguration(Spellings.self, options) == options)
        #expect(TimestampAssigner(options: options).options == options)
        // Batch assignment with the old label gives the timestamps the new one gives.
        var units = AccessUnits.assemble(annexB: Fixture.mainCABACBFrames.bytes()[...]).accessUnits
        #expect(units.count > 2)
        var old = units
        TimestampAssigner.assign(&units, spsLookup: { _ in nil }, options: options)
        OldNames.assign(Spellings.self, &old, options)
        #expect(old.map(\.dts) == units.map(\.dts))
        #expect(old.map(\.pts) == units.map(\.pts))
        #expect(units.allSatisfy { $0.dts != nil && $0.pts != nil })
    }
}

/// What the replaced names do, each a requirement a deprecated spelling witnesses.
private protocol DeprecatedCoreNames {
    static var types: (streamReader: ObjectIdentifier, counter: ObjectIdentifier, timing: ObjectIdentifier) { get }
    static func streamReaderUnits(_ avcc: [UInt8]) throws -> [[UInt8]]
    static func counterValues(_ lsbs: [Int64], _ params: POCParameters) -> [Int64]
    static func assignerConfiguration(_ options: TimestampOptions) -> TimestampOptions
    static func assign(_ units: inout [AccessUnit], _ options: TimestampOptions)
    static var limitsType: ObjectIdentifier { get }
    static func setColour(_ options: inout StreamBuilder.SequenceOptions, _ colour: (UInt8, UInt8, UInt8, Bool))
    static func colour(_ options: StreamBuilder.SequenceOptions) -> (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)?
}

private enum Spellings: DeprecatedCoreNames {
    @available(*, deprecated)
    static var types: (streamReader: ObjectIdentifier, counter: ObjectIdentifier, timing: ObjectIdentifier) {
        (ObjectIdentifier(AVCC.StreamReader.self), ObjectIdentifier(PictureOrderCounter.self),
         ObjectIdentifier(TimestampAssigner.Configuration.self))
    }

    @available(*, deprecated)
    static func streamReaderUnits(_ avcc: [UInt8]) throws -> [[UInt8]] {
        var reader = AVCC.StreamReader(lengthSize: .four)
        reader.append(avcc[...])
        reader.finish()
        var units: [[UInt8]] = []
        while let unit = try reader.next() { units.append(Array(unit.bytes)) }
        return units
    }

    @available(*, deprecated)
    static func counterValues(_ lsbs: [Int64], _ params: POCParameters) -> [Int64] {
        var counter = PictureOrderCounter()
        return lsbs.enumerated().map { i, lsb in
            counter.next(POCInputs(isIDR: i == 0, isReference: true, frameNum: Int64(i), picOrderCntLsb: lsb), params).value
        }
    }

    @available(*, deprecated)
    static func assignerConfiguration(_ options: TimestampOptions) -> TimestampOptions {
        let configuration: TimestampAssigner.Configuration = options
        return TimestampAssigner(configuration: configuration).configuration
    }

    @available(*, deprecated)
    static func assign(_ units: inout [AccessUnit], _ options: TimestampOptions) {
        TimestampAssigner.assign(&units, spsLookup: { _ in nil }, configuration: options)
    }

    @available(*, deprecated)
    static var limitsType: ObjectIdentifier { ObjectIdentifier(AccessUnitAssembler.Limits.self) }

    @available(*, deprecated)
    static func setColour(_ options: inout StreamBuilder.SequenceOptions, _ colour: (UInt8, UInt8, UInt8, Bool)) {
        options.colour = (colour.0, colour.1, colour.2, colour.3)
    }

    @available(*, deprecated)
    static func colour(_ options: StreamBuilder.SequenceOptions) -> (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)? {
        options.colour
    }
}

/// Calls the requirements through the protocol (no deprecated declaration named here).
private enum OldNames {
    static func types<S: DeprecatedCoreNames>(_: S.Type) -> (streamReader: ObjectIdentifier, counter: ObjectIdentifier, timing: ObjectIdentifier) {
        S.types
    }
    static func streamReaderUnits<S: DeprecatedCoreNames>(_: S.Type, _ avcc: [UInt8]) throws -> [[UInt8]] {
        try S.streamReaderUnits(avcc)
    }
    static func counterValues<S: DeprecatedCoreNames>(_: S.Type, _ lsbs: [Int64], _ params: POCParameters) -> [Int64] {
        S.counterValues(lsbs, params)
    }
    static func assignerConfiguration<S: DeprecatedCoreNames>(_: S.Type, _ options: TimestampOptions) -> TimestampOptions {
        S.assignerConfiguration(options)
    }
    static func assign<S: DeprecatedCoreNames>(_: S.Type, _ units: inout [AccessUnit], _ options: TimestampOptions) {
        S.assign(&units, options)
    }
    static func limitsType<S: DeprecatedCoreNames>(_: S.Type) -> ObjectIdentifier { S.limitsType }
    static func setColour<S: DeprecatedCoreNames>(_: S.Type, _ options: inout StreamBuilder.SequenceOptions,
                                                  _ colour: (UInt8, UInt8, UInt8, Bool)) {
        S.setColour(&options, colour)
    }
    static func colour<S: DeprecatedCoreNames>(_: S.Type, _ options: StreamBuilder.SequenceOptions)
        -> (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)? {
        S.colour(options)
    }
}
