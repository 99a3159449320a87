import H264
import H264Fixtures
import MP4
import Testing

/// The progressive writer's boxes: layout, brands, edit list, composition offsets, sync and
/// dependency tables, chunks, several descriptions, and its argument checks.
@Suite struct MP4WriterTests {
    typealias S = MP4TestSupport

    static func file(_ fixture: Fixture, layout: MP4Writer.Options.Layout = .fastStart) throws -> [UInt8] {
        try S.mp4(fixture.bytes(), layout: layout).bytes
    }

    @Test func fastStartPutsMoovBeforeMdat() throws {
        let bytes = try Self.file(.mainCABACBFrames)
        let top = try MP4BoxTree.nodes(in: bytes).filter { $0.depth == 0 }.map { $0.header.type.description }
        #expect(top == ["ftyp", "moov", "free", "mdat"])
        let ftyp = try #require(try S.payload(["ftyp"], in: bytes))
        #expect(Array(ftyp.prefix(4)) == MP4FourCC("isom").bytes)
    }

    @Test func mediaFirstPutsMoovLast() throws {
        let bytes = try Self.file(.mainCABACBFrames, layout: .mediaFirst)
        let top = try MP4BoxTree.nodes(in: bytes).filter { $0.depth == 0 }
        #expect(top.map { $0.header.type.description } == ["ftyp", "free", "mdat", "moov"])
        // The mdat size was filled in: the boxes tile the file.
        #expect(top.last.map { $0.offset + $0.header.size } == UInt64(bytes.count))
    }

    /// Both layouts carry the same samples at different offsets.
    @Test func layoutsAgree() throws {
        let a = try MP4Reader(try Self.file(.highBPyramid))
        let b = try MP4Reader(try Self.file(.highBPyramid, layout: .mediaFirst))
        let ia = try a.sampleInfos(of: try #require(a.videoTrack))
        let ib = try b.sampleInfos(of: try #require(b.videoTrack))
        #expect(ia.count == ib.count)
        for (x, y) in zip(ia, ib) {
            #expect(x.decodeTime == y.decodeTime && x.presentationTime == y.presentationTime && x.size == y.size)
            #expect(try a.sample(x).data == b.sample(y).data)
            #expect(x.offset != y.offset)
        }
    }

    @Test func editListStartsPresentationAtZeroWithBFrames() throws {
        let bytes = try Self.file(.mainCABACBFrames)
        let elst = try #require(try S.payload(["moov", "trak", "edts", "elst"], in: bytes))
        #expect(S.u32(elst, 4) == 1)  // one edit
        let mediaTime = Int32(bitPattern: S.u32(elst, 12))
        #expect(mediaTime > 0)
        // ctts version 0 (non-negative offsets) and the first sample's offset is the edit's media time.
        let ctts = try #require(try S.payload(S.stblPath + ["ctts"], in: bytes))
        #expect(ctts.first == 0)
        #expect(Int32(bitPattern: S.u32(ctts, 12)) == mediaTime)
        let reader = try MP4Reader(bytes)
        let track = try #require(reader.videoTrack)
        #expect(track.presentationOffset == -Int64(mediaTime))
    }

    @Test func noEditListOrCompositionOffsetsWithoutReordering() throws {
        let bytes = try Self.file(.baselineCAVLC)
        #expect(try S.payload(["moov", "trak", "edts"], in: bytes) == nil)
        #expect(try S.payload(S.stblPath + ["ctts"], in: bytes) == nil)
    }

    @Test func syncAndDependencyTables() throws {
        let bytes = try Self.file(.baselineCAVLC)
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let stss = try #require(try S.payload(S.stblPath + ["stss"], in: bytes))
        let syncNumbers = (0..<Int(S.u32(stss, 4))).map { S.u32(stss, 8 + 4 * $0) }
        let expected = samples.enumerated().filter { $0.element.1.flags.isSync }.map { UInt32($0.offset + 1) }
        #expect(expected.count == Fixture.baselineCAVLC.facts.idrCount)
        #expect(syncNumbers == expected)
        #expect(syncNumbers.count == Fixture.baselineCAVLC.facts.idrCount)
        let sdtp = try #require(try S.payload(S.stblPath + ["sdtp"], in: bytes))
        #expect(Array(sdtp.dropFirst(4)) == samples.map { $0.1.flags.dependencyByte })
        // FFmpeg's values: 2 (no) for sync samples, 1 (yes) for predicted ones.
        #expect(sdtp.dropFirst(4).first.map { $0 >> 4 & 3 } == 2)
    }

    @Test func allSyncStreamHasNoStss() throws {
        let samples = try S.samples(Fixture.baselineCAVLC.bytes()).map { d, s in
            var s = s
            s.flags.isSync = true
            return (d, s)
        }
        let file = MP4MemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 10_000))
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        #expect(try S.payload(S.stblPath + ["stss"], in: file.bytes) == nil)
        let reader = try MP4Reader(file.bytes)
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        #expect(infos.count == samples.count && infos.allSatisfy { $0.flags.isSync })
    }

    /// A composition offset below zero makes `ctts` version 1, read back signed.
    @Test func negativeCompositionOffsetUsesCttsVersion1() throws {
        let (d, s) = try #require(try S.samples(Fixture.baselineCAVLC.bytes()).first)
        let file = MP4MemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 1000, writesEditList: false))
        for k in 0..<4 {
            var sample = s
            sample.timescale = 1000  // times given in milliseconds
            sample.decodeTime = Int64(k) * 40
            sample.presentationTime = sample.decodeTime + (k == 2 ? -40 : 40)
            try w.append(sample, description: d)
        }
        try w.finish()
        let ctts = try #require(try S.payload(S.stblPath + ["ctts"], in: file.bytes))
        #expect(ctts.first == 1)
        try #require(S.u32(ctts, 4) == 3)  // runs: 2 x 40, 1 x -40, 1 x 40
        #expect((0..<3).map { S.u32(ctts, 8 + 8 * $0) } == [2, 1, 1])
        #expect((0..<3).map { Int32(bitPattern: S.u32(ctts, 12 + 8 * $0)) } == [40, -40, 40])
        let reader = try MP4Reader(file.bytes)
        let track = try #require(reader.videoTrack)
        let infos = try reader.sampleInfos(of: track)
        // Presentation times as written; decoding times earlier by the most negative offset.
        #expect(track.decodeDelay == 40)
        #expect(infos.map(\.presentationTime) == [40, 80, 40, 160])
        #expect(infos.map(\.decodeTime) == [-40, 0, 40, 80])
    }

    /// A reorder delay larger than the stream needs (a streaming timestamp assigner's): every
    /// offset is above 0; the smallest is taken out, the edit follows, presentation is unchanged.
    @Test func constantCompositionDelayIsTakenOut() throws {
        let samples = try S.samples(Fixture.mainCABACBFrames.bytes())
        let delayed = samples.map { d, s in
            var s = s
            s.presentationTime += 4000
            return (d, s)
        }
        let a = MP4MemoryFile(), b = MP4MemoryFile()
        for (file, input) in [(a, samples), (b, delayed)] {
            let w = try MP4Writer(file: file, options: .init(timescale: 10_000))
            for (d, s) in input { try w.append(s, description: d) }
            try w.finish()
        }
        // The same boxes: the constant is gone.
        #expect(try S.payload(S.stblPath + ["ctts"], in: a.bytes) == S.payload(S.stblPath + ["ctts"], in: b.bytes))
        #expect(try S.payload(["moov", "trak", "edts", "elst"], in: a.bytes) == S.payload(["moov", "trak", "edts", "elst"], in: b.bytes))
        let ra = try MP4Reader(a.bytes), rb = try MP4Reader(b.bytes)
        let ia = try ra.sampleInfos(of: ra.videoTrack!), ib = try rb.sampleInfos(of: rb.videoTrack!)
        #expect(ia.map(\.presentationTime) == ib.map(\.presentationTime))
        #expect(ia.map(\.decodeTime) == ib.map(\.decodeTime))
    }

    @Test func formatChangeAddsSampleDescription() throws {
        let bytes = try Self.file(.resolutionChange)
        let stsd = try #require(try S.payload(S.stblPath + ["stsd"], in: bytes))
        #expect(S.u32(stsd, 4) == 2)
        let reader = try MP4Reader(bytes)
        let track = try #require(reader.videoTrack)
        #expect(track.descriptions.count == 2)
        #expect(track.descriptions[0].width != track.descriptions[1].width || track.descriptions[0].height != track.descriptions[1].height)
        let infos = try reader.sampleInfos(of: track)
        let switchAt = try #require(infos.firstIndex { $0.descriptionIndex == 1 })
        #expect(infos[switchAt].flags.isSync)
        #expect(infos[..<switchAt].allSatisfy { $0.descriptionIndex == 0 })
        #expect(infos[switchAt...].allSatisfy { $0.descriptionIndex == 1 })
        // Parameter sets leave avc1 samples, but for copies in the first sample after the change.
        for info in infos {
            let units = try AVCC.split(try reader.sample(info).data)
            let inBand = units.contains { $0.type == .sps } && units.contains { $0.type == .pps }
            #expect(inBand == (info.index == switchAt), "sample \(info.index)")
        }
    }

    /// pasp and colr repeat the VUI.
    @Test func paspAndColrFromVUI() throws {
        let bytes = try Self.file(.vuiFull)
        let reader = try MP4Reader(bytes)
        let d = try #require(reader.videoTrack?.descriptions.first)
        let record = try #require(d.decoderConfiguration)
        let sps = try SequenceParameterSet(rbsp: try #require(record.sequenceParameterSets.first).rbsp)
        #expect(d.width == sps.width && d.height == sps.height)
        let sar = try #require(sps.sampleAspectRatio)
        #expect(d.pixelAspectRatio == MP4PixelAspectRatio(horizontalSpacing: UInt32(sar.width), verticalSpacing: UInt32(sar.height)))
        let colour = try #require(d.colour)
        #expect(colour.colourType == "nclx")
        #expect(colour.colourPrimaries == UInt16(sps.vui.colourPrimaries))
        #expect(colour.transferCharacteristics == UInt16(sps.vui.transferCharacteristics))
        #expect(colour.matrixCoefficients == UInt16(sps.vui.matrixCoefficients))
        #expect(colour.fullRange == sps.vui.videoFullRangeFlag)
        let described = try #require(sps.colorDescription)
        #expect(colour.colorDescription == described && colour == MP4ColourInformation(described))
        // Without a VUI: square pixels, unspecified colour.
        let plain = try #require(try MP4Reader(try Self.file(.baselineCAVLC)).videoTrack?.descriptions.first)
        #expect(plain.pixelAspectRatio == MP4PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1))
        #expect(plain.colour == MP4ColourInformation(colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 2, fullRange: false))
        #expect(plain.colour == MP4ColourInformation(.unspecified) && plain.colour?.colorDescription == .unspecified)
    }

    /// A `colr` box made from a `ColorDescription` is the one made from its code points, and
    /// reads back as the same description; other colour types and code points above 255 give none.
    @Test func colrFromColorDescription() throws {
        for d in [ColorDescription.bt709, .bt601, .bt601PAL, .bt2020, ColorDescription(primaries: 255, fullRange: true)] {
            let box = MP4ColourInformation(d)
            #expect(box == MP4ColourInformation(colourPrimaries: UInt16(d.primaries), transferCharacteristics: UInt16(d.transferCharacteristics),
                                                matrixCoefficients: UInt16(d.matrixCoefficients), fullRange: d.fullRange))
            #expect(box.colourType == "nclx" && box.colorDescription == d)
        }
        var nclc = MP4ColourInformation(.bt709)
        nclc.colourType = "nclc"
        #expect(nclc.colorDescription == .bt709)
        #expect(MP4ColourInformation(colourType: "prof", payload: [1, 2, 3]).colorDescription == nil)
        #expect(MP4ColourInformation(colourPrimaries: 256, transferCharacteristics: 1, matrixCoefficients: 1, fullRange: false).colorDescription == nil)
        // Written into a file and read back: the SPS's description in the colr box.
        let reader = try MP4Reader(try Self.file(.vuiFull))
        let colour = try #require(reader.videoTrack?.descriptions.first?.colour)
        #expect(colour.colorDescription != nil && colour.colorDescription?.isUnspecified == false)
    }

    /// Media goes to the file as samples come: only the tables wait for finish().
    @Test func mediaIsWrittenAsSamplesCome() throws {
        let samples = try S.samples(Fixture.highBPyramid.bytes())
        let file = MP4MemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 10_000))
        let header = file.byteCount
        var written = 0
        for (d, s) in samples {
            try w.append(s, description: d)
            written += s.data.count
            #expect(file.byteCount == header + UInt64(written))
        }
        try w.finish()
        #expect(w.isFinished)
    }

    @Test func chunksEndAtTheConfiguredDuration() throws {
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let file = MP4MemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 10_000, maximumChunkDuration: .microseconds(100)))
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        let stco = try #require(try S.payload(S.stblPath + ["stco"], in: file.bytes))
        #expect(Int(S.u32(stco, 4)) == samples.count)  // one sample per chunk
        let stsc = try #require(try S.payload(S.stblPath + ["stsc"], in: file.bytes))
        #expect(S.u32(stsc, 4) == 1 && S.u32(stsc, 12) == 1)  // one run: 1 sample per chunk
    }

    @Test func argumentErrors() throws {
        let (d, first) = try #require(try S.samples(Fixture.baselineCAVLC.bytes()).first)
        var s = first
        s.timescale = 1000  // times given in milliseconds
        #expect(throws: MP4Error(.invalidArgument, "")) { _ = try MP4Writer(file: MP4MemoryFile(), options: .init(timescale: 0)) }
        let w = try MP4Writer(file: MP4MemoryFile(), options: .init(timescale: 1000))
        #expect(throws: MP4Error(.invalidArgument, "")) { try w.finish() }  // no samples
        let w2 = try MP4Writer(file: MP4MemoryFile(), options: .init(timescale: 1000))
        var later = s
        later.decodeTime = 100
        later.presentationTime = 100
        try w2.append(later, description: d)
        var earlier = s
        earlier.decodeTime = 50
        #expect(throws: MP4Error(.invalidArgument, "")) { try w2.append(earlier, description: d) }
        var far = s
        far.decodeTime = 100
        far.presentationTime = 100 + (1 << 33)
        #expect(throws: MP4Error(.invalidArgument, "")) { try w2.append(far, description: d) }
        try w2.finish()
        #expect(throws: MP4Error(.invalidArgument, "")) { try w2.append(later, description: d) }
        #expect(throws: MP4Error(.invalidArgument, "")) { try w2.finish() }
    }
}
