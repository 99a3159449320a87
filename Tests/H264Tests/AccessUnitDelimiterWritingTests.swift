import Testing
@testable import H264

/// `primary_pic_type` from slice types (Table 7-5) and the delimiter NAL unit.
@Suite struct AccessUnitDelimiterWritingTests {
    /// Slice types (either `slice_type` value of each kind) and the type Table 7-5 gives.
    static let cases: [(sliceTypes: [UInt8], expected: UInt8)] = [
        ([2, 7], 0),                        // I
        ([0, 2, 5], 1),                     // I, P
        ([1], 2), ([6, 7, 5], 2),           // B alone or with I, P
        ([4], 3), ([9, 4], 3),              // SI
        ([3, 4], 4), ([8], 4),              // SP (with SI)
        ([2, 4], 5),                        // I, SI
        ([0, 3, 9], 6),                     // P, SP, SI
        ([1, 3], 7), ([], 7), ([10], 7),    // B with SP; nothing known; out of range
    ]

    @Test(arguments: 0..<cases.count)
    func primaryPicType(index: Int) {
        let c = Self.cases[index]
        #expect(AccessUnitDelimiter(sliceTypes: c.sliceTypes).primaryPicType.rawValue == c.expected, "\(c.sliceTypes)")
        // The type allows every kind present, and the types before it do not.
        let type = AccessUnitDelimiter(sliceTypes: c.sliceTypes).primaryPicType
        let kinds = c.sliceTypes.compactMap { SliceType(rawValue: $0)?.kind }
        #expect(kinds.allSatisfy(type.allows))
    }

    @Test func nalUnitRoundTrip() throws {
        for type in PrimaryPicType.allCases {
            let unit = try AccessUnitDelimiter(primaryPicType: type).nalUnit()
            #expect(unit.type == .accessUnitDelimiter && unit.nalRefIdc == 0 && unit.count == 2)
            #expect(try AccessUnitDelimiter(rbsp: unit.rbsp).primaryPicType == type)
        }
        #expect(Array(try AccessUnitDelimiter(primaryPicType: .any).nalUnit().bytes) == [0x09, 0xF0])
        #expect(PrimaryPicType.allCases.map(\.rawValue) == Array(0...7))
    }
}
