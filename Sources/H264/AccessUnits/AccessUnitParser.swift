/// The whole pipeline from bytes to timed access units, for input that arrives in chunks:
/// Annex-B splitting (``AnnexBStreamParser``), access-unit assembly
/// (``AccessUnitAssembler``) and timestamps (``TimestampAssigner``).
///
/// ```swift
/// var parser = AccessUnitParser()
/// for chunk in chunks {
///     parser.append(chunk)
///     while let au = try parser.next() { mux(au) }
/// }
/// parser.finish()
/// while let au = try parser.next() { mux(au) }
/// ```
///
/// A long-lived service uses ``next(into:)`` instead of ``next()``: it hands each access unit
/// back, and the parser reuses its storage, so that nothing is allocated per access unit in
/// steady state.
///
/// It yields the same access units for any chunking. Memory is bounded by one incomplete NAL
/// unit (``AnnexBStreamParser/maximumNALUnitSize``), one access unit being assembled
/// (``AccessUnitLimits``) and the access units waiting for their presentation time
/// (at most ``heldAccessUnitLimit``: 33 more than the presentation order's depth, so the
/// reorder depth + 33 for frames and 65 with a presentation delay, whatever the picture order
/// counts do; a picture that would wait longer is presented early, see ``TimestampAssigner``),
/// whatever the stream's length.
///
/// Errors from a NAL unit (a bad header, a limit) are thrown by ``next()``; the parser has
/// moved past the problem, and `next()` and `append(_:)` may be called again.
public struct AccessUnitParser: Sendable {
    private var splitter: AnnexBStreamParser
    private var assembler: AccessUnitAssembler
    private var timing: TimestampAssigner
    private var finished = false
    private var drained = false
    /// ``needsInput``, kept up to date by every mutating method: read as a stored flag, so that
    /// a caller in another module does not copy the whole parser (~1.3 KB) to call a getter.
    @usableFromInline internal var inputNeeded = true

    /// Creates a parser.
    /// - Parameters:
    ///   - timing: frame rate and reorder-depth choices.
    ///   - limits: bounds on one access unit.
    ///   - maximumNALUnitSize: bound on one NAL unit.
    ///   - leadingData: the policy for bytes before the first start code.
    public init(timing: TimestampOptions = .init(), limits: AccessUnitLimits = .init(),
                maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                leadingData: AnnexB.LeadingDataPolicy = .reject) {
        splitter = AnnexBStreamParser(maximumNALUnitSize: maximumNALUnitSize, leadingData: leadingData)
        assembler = AccessUnitAssembler(limits: limits)
        self.timing = TimestampAssigner(options: timing)
        noteInputState()
    }

    /// The parameter sets seen so far.
    public var store: ParameterSetStore { assembler.store }

    /// The time base of the timestamps, once known.
    public var timeBase: TimeBase? { timing.timeBase }

    /// The reorder depth in force, once known.
    public var reorderDepth: Int? { timing.reorderDepth }

    /// The most access units waiting for their presentation time at once (see
    /// ``TimestampAssigner/heldAccessUnitLimit``), once known.
    public var heldAccessUnitLimit: Int? { timing.heldAccessUnitLimit }

    /// Pictures presented before their turn in POC order, so as to hold at most
    /// ``heldAccessUnitLimit`` access units (see ``TimestampAssigner/earlyPresentationCount``).
    public var earlyPresentationCount: Int { timing.earlyPresentationCount }

    /// The most access units the timestamp assigner has held at once so far.
    package var maximumHeldAccessUnitCount: Int { timing.maximumHeldCount }

    /// The largest DTS - PTS of the access units with a picture returned so far (0 when none
    /// exceeds its PTS): after a pass with ``TimestampOptions/presentationDelay``
    /// 0, the delay the stream needs.
    public private(set) var requiredPresentationDelay: Int64 = 0

    /// True when the current chunk has been consumed and ``append(_:)-(ArraySlice<UInt8>)`` may be called.
    @inlinable public var needsInput: Bool { inputNeeded }

    /// Recomputes ``inputNeeded`` after the splitter or the timestamp assigner changed.
    private mutating func noteInputState() {
        inputNeeded = !timing.hasReady && splitter.needsInput
    }

    /// Hands over the next chunk (kept by reference until consumed). It may be called at any
    /// time, after an error too; see ``AnnexBStreamParser/append(_:)-(ArraySlice<UInt8>)``.
    public mutating func append(_ chunk: ArraySlice<UInt8>) {
        splitter.append(chunk)
        noteInputState()
    }

    /// Hands over the next chunk held in an array.
    public mutating func append(_ chunk: [UInt8]) {
        splitter.append(chunk[...])
        noteInputState()
    }

    /// Marks the end of the input.
    public mutating func finish() {
        splitter.finish()
        finished = true
        noteInputState()
    }

    /// The next access unit with its timestamps, or nil when more input is needed (or the
    /// stream has ended).
    public mutating func next() throws(H264Error) -> AccessUnit? {
        defer { noteInputState() }
        guard try fillReady() else { return nil }
        return takeReady()
    }

    /// Runs the layers until an access unit is ready (true) or more input is needed or the
    /// stream has ended (false).
    private mutating func fillReady() throws(H264Error) -> Bool {
        while !timing.hasReady {
            if let unit = try splitter.next() {
                let offset = splitter.lastNALUnitOffset &- splitter.lastStartCodeLength
                if try assembler.add(unit, offset: offset) {
                    // Traded into the timestamp assigner's next place (which holds an emptied
                    // access unit, the assembler's to write the next one over): moved, not copied.
                    assembler.takeCompleted(into: &timing.nextSlot)
                    timing.pushSlot(sps: assembler.store.activeSPS)  // the SPS is read for the first only
                }
                continue
            }
            if finished && !drained {
                drained = true
                if let au = assembler.finish() { enqueue(au) }
                timing.finishInPlace()
                continue
            }
            return false
        }
        return true
    }

    /// The first ready access unit, moved out (no reference counting of its arrays).
    private mutating func takeReady() -> AccessUnit {
        var au = AccessUnit()
        timing.takeReady(into: &au)  // one is ready: fillReady
        noteDelay(of: au)
        return au
    }

    /// Keeps ``requiredPresentationDelay`` up to date with an access unit handed out.
    private mutating func noteDelay(of au: borrowing AccessUnit) {
        if !au.flags.hasNoPicture, let dts = au.dts, let pts = au.pts {
            requiredPresentationDelay = Swift.max(requiredPresentationDelay, dts &- pts)  // both small counts
        }
    }

    /// The next access unit with its timestamps, written into `accessUnit`, whose storage the
    /// parser takes back first and reuses: the loop of a long-lived service, which allocates
    /// nothing per access unit once its buffers have grown.
    ///
    /// ```swift
    /// var au = AccessUnit()
    /// while try parser.next(into: &au) { mux(au) }
    /// ```
    ///
    /// It yields the same access units as ``next()``. The NAL-unit and slice-type arrays of
    /// `accessUnit` are emptied and kept for the access units to come (when the caller holds no
    /// other copy of them, without allocating; a copy the caller keeps stays intact).
    ///
    /// Memory: that of ``next()``, plus at most 34 emptied arrays of each kind (NAL units,
    /// slice types) of fewer than 512 elements (about 560 KiB) and 2 larger ones of each kind (as
    /// large as the stream's largest access units needed, at most twice
    /// ``AccessUnitLimits/maxNALUnitsPerAccessUnit`` elements), and the storage of at
    /// most 4 format changes handed back (emptied) and of one former table of 288 views.
    /// - Parameter accessUnit: the access unit handed out by the previous call (or any).
    /// - Returns: true when `accessUnit` holds the next access unit; false, with `accessUnit`
    ///   empty, when more input is needed (or the stream has ended).
    /// - Throws: what ``next()`` throws (`accessUnit` is then empty).
    /// - Complexity: O(1) amortised per NAL unit of input consumed (the work of the layers).
    public mutating func next(into accessUnit: inout AccessUnit) throws(H264Error) -> Bool {
        defer { noteInputState() }
        assembler.recycle(&accessUnit)
        let found: Bool
        do throws(H264Error) {
            found = try fillReady()
        } catch {
            accessUnit = AccessUnit()
            throw error
        }
        guard found else {
            accessUnit = AccessUnit()
            return false
        }
        // Traded with the emptied access unit, which takes its place in the timestamp
        // assigner's ring for a later access unit to trade with: moved, not copied.
        timing.takeReady(into: &accessUnit)
        noteDelay(of: accessUnit)
        return true
    }

    /// Feeds the parser the chunks `read` returns until it returns nil, then finishes, handing
    /// each access unit to `body` as soon as it is ready and each error of the stream to
    /// `problem` (the parser goes on after it).
    ///
    /// Memory: the parser's (independent of the stream's length), plus the chunk being read.
    /// - Parameters:
    ///   - read: the next chunk of the stream, or nil at its end.
    ///   - problem: called with each error ``next()`` throws.
    ///   - body: called with each access unit, in decoding order.
    /// - Throws: what `read` or `body` throw.
    public mutating func run(read: () throws -> ArraySlice<UInt8>?, problem: (H264Error) -> Void,
                             body: (AccessUnit) throws -> Void) rethrows {
        var ended = false
        var au = AccessUnit()  // reused: its storage goes back to the parser after `body`
        while true {
            if needsInput && !ended {
                if let chunk = try read() {
                    append(chunk)
                } else {
                    finish()
                    ended = true
                }
            }
            let found: Bool
            do throws(H264Error) {
                found = try next(into: &au)
            } catch {
                problem(error)
                continue
            }
            if found {
                try body(au)
            } else if ended {
                return
            }
        }
    }

    private mutating func enqueue(_ au: consuming AccessUnit) {
        timing.pushInPlace(au, sps: assembler.store.activeSPS)  // the SPS is read for the first only
    }
}

/// Whole-stream conveniences.
public enum AccessUnits {
    /// The most errors ``assemble(annexB:timing:leadingData:)`` returns; later ones are only
    /// counted (``assemble(annexB:timing:leadingData:droppedErrorCount:)``).
    public static let maximumErrors = 64

    /// Splits an Annex-B stream and assembles its access units, with timestamps using the
    /// smallest reorder delay the stream needs, or the reorder depth or presentation delay that
    /// `timing` sets (then the same timestamps as ``AccessUnitParser`` with that timing).
    ///
    /// Memory: the access units refer to `bytes` (nothing is copied); each costs a constant
    /// (its NAL unit views, slice types, at most ``AccessUnitAssembler/maximumDiagnostics``
    /// diagnostics, and a format change's changed parameter sets); the errors are at most
    /// ``maximumErrors``. For input of unbounded length, use ``AccessUnitParser``.
    /// - Parameters:
    ///   - bytes: the stream.
    ///   - timing: frame rate and reorder-depth choices.
    ///   - leadingData: the policy for bytes before the first start code.
    /// - Returns: the access units and the first problems met (bad NAL units are skipped).
    /// - Complexity: O(n) in the stream size.
    public static func assemble(annexB bytes: ArraySlice<UInt8>, timing: TimestampOptions = .init(),
                                leadingData: AnnexB.LeadingDataPolicy = .reject) -> (accessUnits: [AccessUnit], errors: [H264Error]) {
        var dropped = 0
        return assemble(annexB: bytes, timing: timing, leadingData: leadingData, droppedErrorCount: &dropped)
    }

    /// ``assemble(annexB:timing:leadingData:)``, also counting the errors not returned.
    /// - Parameters:
    ///   - bytes: the stream.
    ///   - timing: frame rate and reorder-depth choices.
    ///   - leadingData: the policy for bytes before the first start code.
    ///   - droppedErrorCount: set to the number of errors met beyond ``maximumErrors``.
    public static func assemble(annexB bytes: ArraySlice<UInt8>, timing: TimestampOptions = .init(),
                                leadingData: AnnexB.LeadingDataPolicy = .reject,
                                droppedErrorCount: inout Int) -> (accessUnits: [AccessUnit], errors: [H264Error]) {
        var splitter = AnnexB.Splitter(bytes, leadingData: leadingData)
        var errors: [H264Error] = []
        droppedErrorCount = 0
        var assembler = AccessUnitAssembler()
        var units: [AccessUnit] = []
        var firstSPS: SequenceParameterSet?
        while true {
            do throws(H264Error) {
                guard let unit = try splitter.next() else { break }
                var start = unit.bytes.startIndex &- 3  // after a start code: >= startIndex + 3
                if start > bytes.startIndex && bytes[start &- 1] == 0 { start &-= 1 }
                if try assembler.add(unit, offset: start &- bytes.startIndex) {
                    if units.isEmpty { firstSPS = assembler.store.activeSPS }
                    units.append(assembler.takeCompleted())
                }
            } catch {
                if errors.count < maximumErrors { errors.append(error) } else { droppedErrorCount &+= 1 }  // < input bytes
            }
        }
        if let au = assembler.finish() {
            if units.isEmpty { firstSPS = assembler.store.activeSPS }
            units.append(au)
        }
        // Timing (time base, reorder depth) comes from the SPS in force for the first access unit.
        TimestampAssigner.assign(&units, spsLookup: { _ in firstSPS }, options: timing)
        return (units, errors)
    }
}
