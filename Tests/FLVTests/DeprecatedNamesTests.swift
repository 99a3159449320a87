import Testing
import H264
import FLV

/// `FLVStreamReader`, the name issue 29 replaced with `FLVStreamParser`, still builds (with a
/// warning on the caller's side) and is the parser. Called through a protocol whose requirement
/// the deprecated spelling witnesses, so that this file builds without warnings.
@Suite struct FLVDeprecatedNamesTests {
    @Test func streamReaderIsTheParser() throws {
        #expect(OldFLVNames.streamReader(FLVSpellings.self) == ObjectIdentifier(FLVStreamParser.self))
        let file = try FLVRoundTripTests.writeFile()
        var parser = FLVStreamParser()
        parser.append(file[...])
        var tags: [FLVTag] = []
        while let tag = try parser.nextTag() { tags.append(tag) }
        try parser.finish()
        #expect(tags.count > 8)
        #expect(try OldFLVNames.tags(FLVSpellings.self, file) == tags)
    }
}

private protocol DeprecatedFLVNames {
    static var streamReader: ObjectIdentifier { get }
    static func tags(_ file: [UInt8]) throws -> [FLVTag]
}

private enum FLVSpellings: DeprecatedFLVNames {
    @available(*, deprecated)
    static var streamReader: ObjectIdentifier { ObjectIdentifier(FLVStreamReader.self) }

    @available(*, deprecated)
    static func tags(_ file: [UInt8]) throws -> [FLVTag] {
        var reader = FLVStreamReader()
        reader.append(file[...])
        var tags: [FLVTag] = []
        while let tag = try reader.nextTag() { tags.append(tag) }
        try reader.finish()
        return tags
    }
}

private enum OldFLVNames {
    static func streamReader<S: DeprecatedFLVNames>(_: S.Type) -> ObjectIdentifier { S.streamReader }
    static func tags<S: DeprecatedFLVNames>(_: S.Type, _ file: [UInt8]) throws -> [FLVTag] { try S.tags(file) }
}
