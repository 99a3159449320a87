import Testing
import H264Fixtures
@testable import H264

@Suite struct HeaderEditorSEITests {
    /// x264 writes its settings as user_data_unregistered; removing them drops that message
    /// (and an SEI NAL unit left empty) and leaves every other NAL unit byte-identical.
    @Test func removeUserDataUnregistered() throws {
        let bytes = Fixture.mainCABACBFrames.bytes()
        var edits = HeaderEdits()
        edits.removedSEIPayloadTypes = [SEIPayloadType(name: "user_data_unregistered")!]
        let out = try AnnexBHeaderEditor.edit(bytes[...], edits: edits)
        let before = try AnnexB.split(bytes), after = try AnnexB.split(out)
        let hasUserData = { (units: [NALUnit]) in
            units.filter { $0.type == .sei }.contains { unit in
                (try? SEI.parse(unit, context: EmptySyntaxContext(), options: .framingOnly))?.messages
                    .contains { $0.payload.payloadType == SEIPayloadType(name: "user_data_unregistered")! } ?? false
            }
        }
        #expect(hasUserData(before))
        #expect(!hasUserData(after))
        let nonSEI = { (units: [NALUnit]) in units.filter { $0.type != .sei }.map { Array($0.bytes) } }
        #expect(nonSEI(before) == nonSEI(after))
    }

    /// AUD insertion finds access units with the access-unit layer: removing every AUD and
    /// inserting them again gives the original stream back.
    @Test func audRemoveThenInsertRoundTrips() throws {
        let bytes = Fixture.aud.bytes()
        var remove = HeaderEdits()
        remove.accessUnitDelimiters = .remove
        let stripped = try AnnexBHeaderEditor.edit(bytes[...], edits: remove)
        #expect(try AnnexB.split(stripped).allSatisfy { $0.type != .accessUnitDelimiter })
        var insert = HeaderEdits()
        insert.accessUnitDelimiters = .insert
        let restored = try AnnexBHeaderEditor.edit(stripped[...], edits: insert)
        #expect(try AnnexB.split(restored).map { Array($0.bytes) } == AnnexB.split(bytes).map { Array($0.bytes) })
    }
}
