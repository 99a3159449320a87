/// Inserts SEI messages into the pictures of an Annex-B stream as it arrives in chunks: for
/// each picture, the messages a callback (or an ``SEIInsertionSchedule``) gives go into one new
/// SEI NAL unit placed where ITU-T H.264 7.4.1.2.3 wants it: after the access unit
/// delimiter, the parameter sets and the SEI NAL units already there, right before the first
/// VCL NAL unit (or the prefix NAL unit in front of it).
///
/// ```swift
/// var inserter = SEIInserter { point in
///     point.presentationIndex == 12 ? [try! .captions(captions)] : []
/// }
/// var out: [UInt8] = []
/// for chunk in chunks {
///     try inserter.append(chunk, to: &out)
///     write(out); out.removeAll(keepingCapacity: true)
/// }
/// try inserter.finish(to: &out)
/// write(out)
/// ```
///
/// Frames are numbered in presentation order (``SEIInsertionPoint/presentationIndex``), so
/// access units wait until their picture order count places them: at most the SPS's reorder
/// depth (``SequenceParameterSet/reorderDepth``, capped at ``maximumReorderDepth``) of them. A
/// pair of field pictures is one frame, as decoders output it: its messages go into the first
/// field (the second field's own pic_timing is only re-coded when the SPS edit asks for it).
///
/// pic_timing and recovery_point are one per picture: an inserted pic_timing replaces the
/// picture's own (whose `cpb_removal_delay` and `dpb_output_delay` it takes over), an inserted
/// recovery_point replaces the picture's own. A pic_timing is coded with the picture's SPS
/// facts: it can carry a time code only when the SPS has `pic_struct_present_flag`; with
/// ``Options/setsPicStructPresent`` the inserter sets it in every SPS
/// (``SequenceParameterSet/setPicStructPresent()``) and re-writes the stream's own pic_timing
/// messages to match. A message that cannot be coded for its picture is left out and
/// reported in ``problems``.
///
/// Everything else is copied: NAL units keep their bytes and their start codes (the zero bytes
/// after a NAL unit, `trailing_zero_8bits`, are dropped, and so are bytes before the first
/// start code, reported). NAL units the Annex-B splitter refuses (`forbidden_zero_bit` set,
/// longer than ``Options/maximumNALUnitSize``) are dropped and reported.
///
/// Memory: one NAL unit being read (at most ``Options/maximumNALUnitSize``), the access unit
/// being assembled and the access units waiting for their presentation index, together at most
/// ``Options/maximumHeldBytes`` counting each NAL unit's and access unit's bookkeeping with
/// its bytes (past it, the waiting pictures are numbered as if a new picture order count
/// period began), and at most ``maximumReports`` reports. A picture waits behind at most its
/// reorder depth + 32 later pictures (room for the B pictures before an anchor or an open
/// GOP's leading pictures, as ``TimestampAssigner`` allows): one that would wait longer (picture
/// order counts that keep falling) is numbered at once, after the pictures numbered before
/// it, and reported (``H264Error/Code/limitExceeded``).
public struct SEIInserter: Sendable {
    /// Choices.
    public struct Options: Sendable, Hashable {
        /// Set `pic_struct_present_flag` in every SPS, so that pic_timing messages can carry time
        /// codes, and re-write the stream's own pic_timing messages with a `pic_struct`.
        public var setsPicStructPresent: Bool
        /// The most bytes of access units held (default 64 MiB); an access unit larger than
        /// this is copied without insertion (and reported).
        public var maximumHeldBytes: Int
        /// The largest NAL unit read (default ``AnnexBStreamParser/defaultMaximumNALUnitSize``).
        public var maximumNALUnitSize: Int

        /// Creates options.
        public init(setsPicStructPresent: Bool = false, maximumHeldBytes: Int = 64 << 20,
                    maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize) {
            self.setsPicStructPresent = setsPicStructPresent
            self.maximumHeldBytes = Swift.max(1, maximumHeldBytes)
            self.maximumNALUnitSize = Swift.max(1, maximumNALUnitSize)
        }
    }

    /// The most pictures held for their presentation index.
    public static let maximumReorderDepth = 16
    /// What one NAL unit held costs besides its bytes: its copy's array, its place in the
    /// queue and the access unit's view of it.
    static let costPerNALUnit = 2 &* MemoryLayout<NALUnit>.stride &+ 64
    /// What one queued access unit costs besides its NAL units: its entry and arrays.
    static let costPerEntry = MemoryLayout<Entry>.stride &+ 128
    /// The report of a picture numbered before its turn (made once).
    static let numberedEarly = H264Error.invalid(
        .limitExceeded, "picture numbered before its turn in picture order count order: it would have waited behind more than its reorder depth + 32 pictures")
    /// The most entries ``problems`` keeps; ``problemCount`` counts them all.
    public static let maximumReports = 64

    /// The options.
    public let options: Options
    /// SEI messages inserted so far.
    public private(set) var insertedMessageCount = 0
    /// Pictures that received messages so far.
    public private(set) var picturesWithInsertions = 0
    /// The first problems: a message left out (with the picture's decode index), a NAL unit
    /// dropped or copied unchanged (without one). At most ``maximumReports``.
    public private(set) var problems: [(decodeIndex: Int?, error: H264Error)] = []
    /// How many problems there were in all.
    public private(set) var problemCount = 0

    private let messages: @Sendable (SEIInsertionPoint) -> [SEIMessage]
    private var parser: AnnexBStreamParser
    private var assembler: AccessUnitAssembler
    /// NAL units (output form) with their start code lengths, from index `unitsBase` on, not
    /// yet part of a completed access unit.
    private var units: [(unit: NALUnit, startCode: Int)] = []
    private var unitsBase = 0
    private var nextNALIndex = 0
    /// Completed access units waiting for their turn, in decoding order.
    private var queue: [Entry] = []
    private var heldBytes = 0
    private var order: PresentationOrder?
    private var pictureCount = 0
    private var released: [(decodeIndex: Int, presentationIndex: Int)] = []
    /// The first field of a pair whose second field has not come yet.
    private var openField: (structure: PictureStructure, frameNum: Int)?
    /// The most access units queued at once so far.
    private(set) var maximumQueuedCount = 0

    private struct Entry: Sendable {
        var units: [(unit: NALUnit, startCode: Int)]
        var accessUnit: AccessUnit?
        var decodeIndex: Int?
        var presentationIndex: Int?
        var inputTiming: SEITimingInfo?
        var framesPerSecond: Int?
        var bytes: Int
    }

    /// Creates an inserter that asks `messages` for each picture's messages (in decoding order).
    public init(options: Options = Options(), messages: @escaping @Sendable (SEIInsertionPoint) -> [SEIMessage]) {
        self.options = options
        self.messages = messages
        parser = AnnexBStreamParser(maximumNALUnitSize: options.maximumNALUnitSize, leadingData: .skip)
        assembler = AccessUnitAssembler(limits: .init(maxAccessUnitBytes: options.maximumHeldBytes))
    }

    /// Creates an inserter that follows `schedule`.
    public init(schedule: SEIInsertionSchedule, options: Options = Options()) {
        self.init(options: options) { schedule.messages(for: $0) }
    }

    /// Reads the next chunk; appends to `out` the access units that are ready.
    /// - Throws: nothing for malformed input (it is copied or reported); kept `throws` for
    ///   errors a future message source may raise.
    /// - Complexity: O(chunk size), each NAL unit copied once and each slice header parsed once,
    ///   plus the messages' writing.
    public mutating func append(_ chunk: ArraySlice<UInt8>, to out: inout [UInt8]) throws(H264Error) {
        parser.append(chunk)
        drainParser(to: &out)
    }

    /// Ends the stream: appends everything still held.
    /// - Throws: as ``append(_:to:)``.
    public mutating func finish(to out: inout [UInt8]) throws(H264Error) {
        parser.finish()
        drainParser(to: &out)
        if parser.leadingByteCount > 0 {
            report(H264Error.invalid(.invalidBitstream, "\(parser.leadingByteCount) bytes before the first start code dropped"), decodeIndex: nil)
        }
        if let au = assembler.finish() { complete(au) }
        if !units.isEmpty { enqueueUnassembled(upTo: unitsBase &+ units.count) }
        if var o = order {
            released.removeAll(keepingCapacity: true)
            o.flush(into: &released)
            order = o
            applyReleased()
        }
        emitReady(to: &out, force: true)
    }

    // MARK: - Input

    private mutating func drainParser(to out: inout [UInt8]) {
        while true {
            let unit: NALUnit?
            do throws(H264Error) {
                unit = try parser.next()
            } catch {
                report(error, decodeIndex: nil)
                continue
            }
            guard let unit else { break }
            push(unit, startCode: parser.lastStartCodeLength)
            emitReady(to: &out, force: false)
        }
    }

    private mutating func push(_ input: NALUnit, startCode: Int) {
        // A copy: a view would keep the caller's chunk alive while the access unit waits.
        let original = NALUnit(unchecked: Array(input.bytes)[...])
        var output = original
        if options.setsPicStructPresent, original.type == .sps {
            output = Self.withPicStruct(original) ?? original
        }
        let index = nextNALIndex
        nextNALIndex &+= 1  // one per NAL unit of the input
        units.append((output, startCode))
        heldBytes &+= output.count &+ Self.costPerNALUnit  // bounded by maximumHeldBytes checks below
        do throws(H264Error) {
            if let au = try assembler.push(original, offset: index) { complete(au) }
        } catch {
            report(error, decodeIndex: nil)  // the assembler dropped that access unit: copied without insertion
        }
    }

    /// An SPS with `pic_struct_present_flag` set, nil when it cannot be parsed or already has it.
    private static func withPicStruct(_ unit: NALUnit) -> NALUnit? {
        guard var sps = try? SequenceParameterSet(rbsp: unit.rbsp), !(sps.vuiParametersPresentFlag && sps.vui.picStructPresentFlag) else {
            return nil
        }
        guard (try? sps.setPicStructPresent()) != nil, let rbsp = try? sps.rbsp() else { return nil }
        return try? NALUnit(header: NALUnitHeader(nalRefIdc: unit.nalRefIdc, nalUnitType: .sps), rbsp: rbsp)
    }

    /// The assembler completed `au`: its NAL units are the next ones of `units` (any before
    /// them belonged to an access unit the assembler dropped).
    private mutating func complete(_ au: AccessUnit) {
        guard let first = au.startOffset else { return }
        if first > unitsBase { enqueueUnassembled(upTo: first) }
        let count = Swift.min(au.nalUnits.count, units.count)
        let taken = Array(units.prefix(count))
        units.removeFirst(count)
        unitsBase &+= count  // count <= units.count
        var entry = Entry(units: taken, accessUnit: au, bytes: Self.cost(of: taken))
        heldBytes &+= Self.costPerEntry
        defer {
            noteQueueLength()
            boundHeldBytes()
        }
        guard !au.flags.hasNoPicture else {
            queue.append(entry)
            return
        }
        let sps = spsOfPicture(au)
        entry.inputTiming = sps?.seiTimingInfo
        entry.framesPerSecond = sps.flatMap(Self.nominalFrameRate)
        if let first = openField, au.structure != .frame, au.structure != first.structure, au.frameNum == first.frameNum {
            // The second field of a pair: the same frame as the first, which got its messages.
            openField = nil
            queue.append(entry)
        } else {
            openField = au.structure == .frame ? nil : (au.structure, au.frameNum)
            entry.decodeIndex = pictureCount
            pictureCount &+= 1  // one per frame
            if order == nil { order = PresentationOrder(reorderDepth: Swift.min(sps?.reorderDepth ?? 0, Self.maximumReorderDepth)) }
            queue.append(entry)
            released.removeAll(keepingCapacity: true)
            order!.push(decodeIndex: entry.decodeIndex!, poc: au.poc ?? 0, startsPeriod: au.poc == nil || au.startsPOCPeriod,
                        into: &released)
            // The bound on waiting: the picture pushed reorder depth + 32 pictures ago goes now.
            let oldest = entry.decodeIndex! &- order!.reorderDepth &- 32  // both small
            if oldest >= 0 && order!.release(decodeIndex: oldest, into: &released) { report(Self.numberedEarly, decodeIndex: oldest) }
            applyReleased()
        }
    }

    /// Notes the queue's length after an access unit joined it.
    private mutating func noteQueueLength() {
        if queue.count > maximumQueuedCount { maximumQueuedCount = queue.count }
    }

    /// What `units` cost held, as an entry: their bytes and bookkeeping, and the entry's.
    private static func cost(of units: [(unit: NALUnit, startCode: Int)]) -> Int {
        units.reduce(costPerEntry) { $0 &+ $1.unit.count &+ costPerNALUnit }  // within maximumHeldBytes
    }

    /// Past ``Options/maximumHeldBytes``, the waiting pictures are numbered as if a new picture
    /// order count period began, so that they can go out.
    private mutating func boundHeldBytes() {
        guard heldBytes > options.maximumHeldBytes, var o = order else { return }
        released.removeAll(keepingCapacity: true)
        o.flush(into: &released)
        order = o
        applyReleased()
    }

    /// NAL units up to index `end` that belong to no access unit: copied as they are.
    private mutating func enqueueUnassembled(upTo end: Int) {
        let count = Swift.min(end &- unitsBase, units.count)
        guard count > 0 else { return }
        let taken = Array(units.prefix(count))
        units.removeFirst(count)
        unitsBase &+= count
        queue.append(Entry(units: taken, bytes: Self.cost(of: taken)))
        heldBytes &+= Self.costPerEntry
        boundHeldBytes()
    }

    private mutating func applyReleased() {
        for r in released {
            if let i = queue.firstIndex(where: { $0.decodeIndex == r.decodeIndex }) { queue[i].presentationIndex = r.presentationIndex }
        }
    }

    private func spsOfPicture(_ au: AccessUnit) -> SequenceParameterSet? {
        let store = assembler.store
        guard let slice = au.nalUnits.first(where: { $0.type == .slice || $0.type == .idrSlice }),
              let ppsID = slice.referencedParameterSetID, let pps = store.pps(id: ppsID) else { return store.activeSPS }
        return store.sps(id: Int(pps.spsID))
    }

    static func nominalFrameRate(_ sps: SequenceParameterSet) -> Int? {
        guard sps.vuiParametersPresentFlag, sps.vui.timingInfoPresentFlag, sps.vui.numUnitsInTick > 0 else { return nil }
        let tick = 2 &* Int(sps.vui.numUnitsInTick)  // < 2^33
        let rate = (Int(sps.vui.timeScale) &+ tick &- 1) / tick
        return rate > 0 ? rate : nil
    }

    // MARK: - Output

    /// Writes out the access units at the head of the queue whose presentation index is known
    /// (all of them when `force`).
    private mutating func emitReady(to out: inout [UInt8], force: Bool) {
        var n = 0
        while n < queue.count, force || queue[n].decodeIndex == nil || queue[n].presentationIndex != nil {
            write(queue[n], to: &out)
            heldBytes &-= queue[n].bytes
            n &+= 1
        }
        if n > 0 { queue.removeFirst(n) }
    }

    private mutating func write(_ entry: Entry, to out: inout [UInt8]) {
        var units = entry.units
        if let au = entry.accessUnit, !au.flags.hasNoPicture {
            var outputTiming = entry.inputTiming
            if options.setsPicStructPresent { outputTiming?.picStructPresent = true }
            var wanted: [SEIMessage] = []
            if let decodeIndex = entry.decodeIndex {  // not a second field
                wanted = messages(SEIInsertionPoint(decodeIndex: decodeIndex, presentationIndex: entry.presentationIndex ?? decodeIndex,
                                                    accessUnit: au, timing: outputTiming, framesPerSecond: entry.framesPerSecond))
            }
            if !wanted.isEmpty || (options.setsPicStructPresent && entry.inputTiming?.picStructPresent == false) {
                let result = SEIAccessUnitInsertion.insert(wanted, into: &units, unit: \.unit, replace: { $0.unit = $1 },
                                                           make: { ($0, $1 ? 4 : 3) }, structure: au.structure,
                                                           inputTiming: entry.inputTiming, outputTiming: outputTiming)
                for problem in result.problems { report(problem, decodeIndex: entry.decodeIndex) }
                insertedMessageCount &+= result.insertedCount  // bounded by the messages given
                if result.insertedCount > 0 { picturesWithInsertions &+= 1 }
            }
        }
        for (unit, startCode) in units {
            out.append(contentsOf: startCode == 4 ? [0, 0, 0, 1] as [UInt8] : [0, 0, 1])
            out.append(contentsOf: unit.bytes)
        }
    }

    private mutating func report(_ error: H264Error, decodeIndex: Int?) {
        problemCount &+= 1  // at most a few per NAL unit
        if problems.count < Self.maximumReports { problems.append((decodeIndex, error)) }
    }
}
