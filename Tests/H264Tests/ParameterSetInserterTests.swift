import Testing
import H264

/// What `ParameterSetInserter` puts in front of access units, and the records it makes for
/// writers that carry parameter sets out of band (FLV sequence headers, MP4 descriptions).
@Suite struct ParameterSetInserterTests {
    static func unit(_ bytes: [UInt8]) -> NALUnit { try! NALUnit(bytes) }

    static let sps = unit(AVCDecoderConfigurationRecordTests.highSPS)
    /// pic_parameter_set_id 0 and 1, both on seq_parameter_set_id 0.
    static let pps0 = unit(AVCDecoderConfigurationRecordTests.highPPS)
    static let pps1 = unit([0x68, 0x58])           // ue 1, ue 0, stop bit
    static let pps1Changed = unit([0x68, 0x5A])    // the same ids, other content
    static let aud = unit([0x09, 0x10])
    static let sei = unit([0x06, 0x05, 0x01, 0x55, 0x80])
    /// Slices: first_mb_in_slice 0, slice_type 7, pic_parameter_set_id 0 or 1.
    static let idrOn0 = unit([0x65, 0x88, 0x80])
    static let idrOn1 = unit([0x65, 0x88, 0x50])
    static let pOn0 = unit([0x41, 0x88, 0x80])
    static let pOn1 = unit([0x41, 0x88, 0x50])

    @Test func insertsWhatARandomAccessPointUsesWhereItIsMissing() {
        var inserter = ParameterSetInserter(parameterSets: [Self.sps, Self.pps0, Self.pps1])
        // The IDR uses PPS 1: its SPS and PPS 1 go after the delimiter, before the SEI; PPS 0 not.
        #expect(inserter.inserting(into: [Self.aud, Self.sei, Self.idrOn1], isRandomAccess: true)
                == [Self.aud, Self.sps, Self.pps1, Self.sei, Self.idrOn1])
        // Not at other access units, and not what the access unit carries itself.
        #expect(inserter.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.pOn0])
        #expect(inserter.inserting(into: [Self.sps, Self.pps0, Self.idrOn0], isRandomAccess: true)
                == [Self.sps, Self.pps0, Self.idrOn0])
        // An in-band set replaces the one known: the next random access point gets the new one.
        #expect(inserter.inserting(into: [Self.pps1Changed, Self.pOn1], isRandomAccess: false) == [Self.pps1Changed, Self.pOn1])
        #expect(inserter.inserting(into: [Self.idrOn1], isRandomAccess: true) == [Self.sps, Self.pps1Changed, Self.idrOn1])
        #expect(inserter.skippedCount == 0)
    }

    @Test func insertionsAreBoundedByTheInput() {
        // A bound per access unit below the SPS's size: the SPS is left out and counted, the PPS fits.
        var small = ParameterSetInserter(parameterSets: [Self.sps, Self.pps0], maximumBytesPerAccessUnit: Self.sps.count - 1)
        #expect(small.inserting(into: [Self.idrOn0], isRandomAccess: true) == [Self.pps0, Self.idrOn0])
        #expect(small.skippedCount == 1)
        // Many random access points of three bytes: what is inserted stays within the input's
        // bytes plus one access unit's bound.
        var inserter = ParameterSetInserter(parameterSets: [Self.sps, Self.pps0], maximumBytesPerAccessUnit: 64)
        var input = Self.sps.count + Self.pps0.count
        for _ in 0..<1000 {
            _ = inserter.inserting(into: [Self.idrOn0], isRandomAccess: true)
            input += Self.idrOn0.count
        }
        #expect(inserter.insertedByteCount <= input + 64)
        #expect(inserter.insertedByteCount > 0 && inserter.skippedCount > 0)
    }

    @Test func recordsHoldEveryKnownSetAndChangeOnlyForANewOrChangedOne() throws {
        var inserter = ParameterSetInserter()
        // The first picture uses PPS 0; PPS 1, defined with it, goes into the same record.
        let made = inserter.configurationChange(for: [Self.sps, Self.pps0, Self.pps1, Self.idrOn0])
        let first = try #require(made)
        #expect(first == [Self.sps, Self.pps0, Self.pps1])
        // Switching between the two PPS ids makes no new record.
        #expect(inserter.configurationChange(for: [Self.pOn1]) == nil)
        #expect(inserter.configurationChange(for: [Self.pOn0]) == nil)
        // A changed PPS 1 in band: no record while pictures use PPS 0, one when a picture uses it,
        // with the picture's sets first.
        #expect(inserter.configurationChange(for: [Self.pps1Changed, Self.pOn0]) == nil)
        #expect(inserter.configurationChange(for: [Self.pOn1]) == [Self.sps, Self.pps1Changed, Self.pps0])
        #expect(inserter.configurationChange(for: [Self.pOn0]) == nil)
        #expect(inserter.insertedCount == 2)
        // Each record is a valid avcC record whose first SPS is the picture's.
        let record = try AVCDecoderConfigurationRecord(parameterSets: first)
        #expect(record.pictureParameterSets == [Self.pps0, Self.pps1])
    }

    @Test func recordsFollowThePictureWhenNotEverythingFits() throws {
        // Room for an SPS and one PPS per record: the picture's sets only.
        let room = Self.sps.count + Self.pps0.count + 1
        var inserter = ParameterSetInserter(maximumBytesPerAccessUnit: room)
        #expect(inserter.configurationChange(for: [Self.sps, Self.pps0, Self.pps1, Self.idrOn1]) == [Self.sps, Self.pps1])
        #expect(inserter.configurationChange(for: [Self.pOn0]) == [Self.sps, Self.pps0])
        #expect(inserter.configurationChange(for: [Self.pOn0]) == nil)
        // A picture whose own sets do not fit gets no record, and they are counted.
        var tiny = ParameterSetInserter(maximumBytesPerAccessUnit: 4)
        #expect(tiny.configurationChange(for: [Self.sps, Self.pps0, Self.idrOn0]) == nil)
        #expect(tiny.skippedCount == 2)
    }

    /// A parameter set it keeps is a copy: a view would keep the caller's whole buffer (an
    /// access unit, a 1 MiB input chunk) alive for as long as the set is in force.
    @Test func keepsCopiesNotViewsOfTheCallersBuffers() throws {
        var inserter = ParameterSetInserter()
        let buffer = [0, 0, 0, 1] + AVCDecoderConfigurationRecordTests.highSPS + [0, 0, 0, 1] + AVCDecoderConfigurationRecordTests.highPPS
        let units = try AnnexB.split(buffer)
        #expect(units.allSatisfy { $0.bytes.startIndex > 0 })
        let made = inserter.configurationChange(for: units + [Self.idrOn0])
        let sets = try #require(made)
        #expect(sets == [Self.sps, Self.pps0])
        #expect(sets.allSatisfy { $0.bytes.startIndex == 0 })
    }
}

extension ParameterSetInserterTests {
    /// SPS 31, its SPS extension, PPS 255 on SPS 31 (the last slots), and an IDR slice on PPS 255.
    static let sps31 = unit([0x67, 0x42, 0x00, 0x1E, 0x04, 0x10])
    static let extension31 = unit([0x6D, 0x04, 0x10])
    static let pps255 = unit([0x68, 0x00, 0x80, 0x02, 0x08])
    static let idrOn255 = unit([0x65, 0x88, 0x00, 0x80, 0x40])

    /// The highest ids (the last slot of each kind) are kept and chosen like the first ones,
    /// whatever was learnt before them.
    @Test func theHighestIDsAreKeptLikeTheLowest() throws {
        var inserter = ParameterSetInserter(parameterSets: [Self.sps, Self.pps0])
        // Learnt in band, then needed by a later random access point.
        #expect(inserter.inserting(into: [Self.sps31, Self.extension31, Self.pps255, Self.pOn0], isRandomAccess: false)
                == [Self.sps31, Self.extension31, Self.pps255, Self.pOn0])
        #expect(inserter.inserting(into: [Self.aud, Self.idrOn255], isRandomAccess: true)
                == [Self.aud, Self.sps31, Self.extension31, Self.pps255, Self.idrOn255])
        #expect(inserter.inserting(into: [Self.idrOn0], isRandomAccess: true) == [Self.sps, Self.pps0, Self.idrOn0])
        // A record: the picture's sets first, then every other set known, SPS before PPS.
        var records = ParameterSetInserter()
        let made = records.configurationChange(for: [Self.sps, Self.pps0, Self.sps31, Self.extension31, Self.pps255, Self.idrOn255])
        #expect(try #require(made) == [Self.sps31, Self.extension31, Self.pps255, Self.sps, Self.pps0])
        #expect(records.configurationChange(for: [Self.pOn0]) == nil)
        // An IDR picture on the other SPS activates it: a record made for it, its sets first
        // (the container describes the record's first SPS).
        #expect(records.configurationChange(for: [Self.idrOn0]) == [Self.sps, Self.pps0, Self.sps31, Self.extension31, Self.pps255])
        #expect(records.configurationChange(for: [Self.idrOn0]) == nil)
        #expect(records.configurationChange(for: [Self.idrOn255]) == [Self.sps31, Self.extension31, Self.pps255, Self.sps, Self.pps0])
        // An inserter that knows nothing makes no record and inserts nothing.
        var empty = ParameterSetInserter()
        #expect(empty.configurationChange(for: [Self.idrOn255]) == nil)
        #expect(empty.inserting(into: [Self.idrOn255], isRandomAccess: true) == [Self.idrOn255])
    }

    /// Records switched through `OutOfBandSets` (an MP4 track's descriptions): with
    /// `insertsChangedSets`, a picture between random access points gets only the sets it
    /// uses whose content the output has not carried; a switch between equal sets adds nothing,
    /// a set that arrives in band wins until the next switch, and tables made apart are not
    /// confused by their content numbers.
    @Test func outOfBandTablesInsertOnlyChangedSets() throws {
        let tables = ParameterSetInserter.OutOfBandSets.make(records: [[Self.sps, Self.pps0, Self.pps1], [Self.sps, Self.pps0, Self.pps1Changed]])
        #expect(tables[0].byteCount == Self.sps.count + Self.pps0.count + Self.pps1.count)
        var inserter = ParameterSetInserter()
        inserter.insertsChangedSets = true
        inserter.receiveOutOfBand(tables[0], countsAsInput: true)
        // First use: what the picture needs, even away from a random access point.
        #expect(inserter.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.sps, Self.pps0, Self.pOn0])
        #expect(inserter.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.pOn0])
        // Another table with the same SPS and PPS 0: nothing; with another PPS 1: that one.
        inserter.receiveOutOfBand(tables[1], countsAsInput: true)
        #expect(inserter.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.pOn0])
        #expect(inserter.inserting(into: [Self.pOn1], isRandomAccess: false) == [Self.pps1Changed, Self.pOn1])
        inserter.receiveOutOfBand(tables[0], countsAsInput: false)
        #expect(inserter.inserting(into: [Self.pOn1], isRandomAccess: false) == [Self.pps1, Self.pOn1])
        // A random access point repeats what it uses.
        #expect(inserter.inserting(into: [Self.idrOn1], isRandomAccess: true) == [Self.sps, Self.pps1, Self.idrOn1])
        // An in-band PPS 1 is in force until the next table, which brings its own back.
        #expect(inserter.inserting(into: [Self.pps1Changed, Self.pOn1], isRandomAccess: false) == [Self.pps1Changed, Self.pOn1])
        #expect(inserter.inserting(into: [Self.pOn1], isRandomAccess: false) == [Self.pOn1])
        inserter.receiveOutOfBand(tables[0], countsAsInput: false)
        #expect(inserter.inserting(into: [Self.pOn1], isRandomAccess: false) == [Self.pps1, Self.pOn1])
        // A table made apart numbers its content from 0 too: its PPS 1 still counts as new.
        let apart = ParameterSetInserter.OutOfBandSets.make(records: [[Self.sps, Self.pps0, Self.pps1Changed]])
        inserter.receiveOutOfBand(apart[0], countsAsInput: true)
        #expect(inserter.inserting(into: [Self.pOn1], isRandomAccess: false) == [Self.pps1Changed, Self.pOn1])
        #expect(inserter.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.pOn0])
        // Without insertsChangedSets, nothing away from random access points (as before).
        var plain = ParameterSetInserter()
        plain.receiveOutOfBand(tables[0], countsAsInput: true)
        #expect(plain.inserting(into: [Self.pOn0], isRandomAccess: false) == [Self.pOn0])
        #expect(plain.inserting(into: [Self.idrOn0], isRandomAccess: true) == [Self.sps, Self.pps0, Self.idrOn0])
    }

    /// Switching tables at every picture, each needing its changed PPS: what is inserted stays
    /// within the input (the tables counted once) plus one access unit's bound, and the rest is
    /// counted as skipped.
    @Test func outOfBandTablesAreInsertedWithinTheBudget() {
        let large = (0..<2).map { v in Self.unit([0x68, 0x58] + Array(repeating: UInt8(0x80 + v), count: 1000)) }
        let tables = ParameterSetInserter.OutOfBandSets.make(records: [[Self.sps, large[0]], [Self.sps, large[1]]])
        var inserter = ParameterSetInserter(maximumBytesPerAccessUnit: 4096)
        inserter.insertsChangedSets = true
        var input = 0
        for i in 0..<1000 {
            inserter.receiveOutOfBand(tables[i % 2], countsAsInput: i < 2)
            if i < 2 { input += tables[i % 2].byteCount }
            _ = inserter.inserting(into: [Self.pOn1], isRandomAccess: false)
            input += Self.pOn1.count
        }
        #expect(inserter.insertedByteCount <= input + 4096)
        #expect(inserter.insertedCount > 2 && inserter.skippedCount > 0)
    }
}
