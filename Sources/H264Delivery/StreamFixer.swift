import H264

/// Applies a ``DeliveryFixPlan`` to an Annex-B stream as it arrives, without re-encoding:
/// header edits through `AnnexBStreamEditor` (level, constraint flags, VUI bitstream
/// restriction, access unit delimiters), then, when the plan asks, the SPS and PPS put before
/// every random access point that lacks them (`FormatConversion/AnnexBWriter`, a
/// `ParameterSetInserter`) and SEI NAL units over the limit dropped.
///
/// ```swift
/// let checker = StreamChecker.check(annexB: bytes[...], profile: .webRTC)
/// var fixer = StreamFixer(plan: DeliveryProfile.webRTC.fixPlan(for: checker))
/// var out: [UInt8] = []
/// try fixer.append(bytes[...], to: &out)
/// try fixer.finish(to: &out)
/// ```
///
/// The plan comes from a first pass over the stream (a checker), so a file is read twice; a
/// plan made from an earlier, similar stream may be reused for a live one.
///
/// Memory: the editor's (one NAL unit; with delimiter insertion, one access unit twice), and,
/// with parameter-set insertion or SEI dropping, one NAL unit being split, one access unit
/// being assembled and the parameter sets by id: independent of the stream's length.
public struct StreamFixer: Sendable {
    /// The plan applied.
    public let plan: DeliveryFixPlan
    /// The header editor (its `AnnexBStreamEditor/unparsed` lists NAL units copied unchanged).
    public private(set) var editor: AnnexBStreamEditor
    private var splitter: AnnexBStreamParser?
    private var writer: FormatConversion.AnnexBWriter?
    /// SEI NAL units dropped for their size.
    public private(set) var droppedSEICount = 0
    /// NAL units lost in the second stage (a header that cannot be read, an access unit past
    /// the limits): the first ``StreamChecker/maximumErrors``.
    public private(set) var problems: [H264Error] = []
    /// Problems beyond those kept.
    public private(set) var droppedProblemCount = 0

    /// Parameter sets inserted before random access points.
    public var insertedParameterSetCount: Int { writer?.inserter.insertedCount ?? 0 }

    /// Creates a fixer for `plan`.
    public init(plan: DeliveryFixPlan) {
        self.plan = plan
        editor = AnnexBStreamEditor(edits: plan.edits)
        if plan.insertsParameterSets || plan.maximumSEIBytes != nil {
            splitter = AnnexBStreamParser(leadingData: .skip)
            writer = FormatConversion.AnnexBWriter()
        }
    }

    /// Fixes the next chunk; appends to `out` what is ready.
    /// - Throws: ``DeliveryError/Code/h264`` with the core's `invalidArgument` for edits that
    ///   cannot be applied to an SPS; nothing else (what cannot be parsed is copied, or counted
    ///   in ``problems``).
    public mutating func append(_ chunk: ArraySlice<UInt8>, to out: inout [UInt8]) throws(DeliveryError) {
        guard splitter != nil else {
            return try DeliveryError.catchingH264("header edit") { () throws(H264Error) in try editor.append(chunk, to: &out) }
        }
        var edited: [UInt8] = []
        try DeliveryError.catchingH264("header edit") { () throws(H264Error) in try editor.append(chunk, to: &edited) }
        secondStage(edited, finishing: false, to: &out)
    }

    /// Ends the stream: appends the rest of the output.
    /// - Throws: as ``append(_:to:)``.
    public mutating func finish(to out: inout [UInt8]) throws(DeliveryError) {
        guard splitter != nil else {
            return try DeliveryError.catchingH264("header edit") { () throws(H264Error) in try editor.finish(to: &out) }
        }
        var edited: [UInt8] = []
        try DeliveryError.catchingH264("header edit") { () throws(H264Error) in try editor.finish(to: &edited) }
        secondStage(edited, finishing: true, to: &out)
    }

    private mutating func secondStage(_ edited: [UInt8], finishing: Bool, to out: inout [UInt8]) {
        guard var splitter, var writer else { return }
        self.splitter = nil
        self.writer = nil  // not held twice while working
        if !edited.isEmpty { splitter.append(edited[...]) }
        if finishing { splitter.finish() }
        while true {
            do throws(H264Error) {
                guard let unit = try splitter.next() else { break }
                if unit.type == .sei, let limit = plan.maximumSEIBytes, unit.count > limit {
                    droppedSEICount &+= 1  // one per NAL unit
                    continue
                }
                try writer.add(unit, to: &out)
            } catch {
                if problems.count < StreamChecker.maximumErrors { problems.append(error) } else { droppedProblemCount &+= 1 }
            }
        }
        if finishing { writer.finish(to: &out) }
        self.splitter = splitter
        self.writer = writer
    }
}

extension StreamFixer {
    /// Checks a whole Annex-B stream in memory against `profile` and fixes what can be fixed.
    /// - Returns: the fixed stream, the plan applied (with what it could not fix) and the check
    ///   of the input.
    /// - Throws: as ``append(_:to:)``.
    /// - Complexity: O(n) in the stream's size, two passes.
    public static func fix(annexB bytes: ArraySlice<UInt8>, profile: DeliveryProfile) throws(DeliveryError)
        -> (output: [UInt8], plan: DeliveryFixPlan, check: StreamChecker) {
        let check = StreamChecker.check(annexB: bytes, profile: profile)
        var fixer = StreamFixer(plan: profile.fixPlan(for: check))
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count &+ bytes.count / 16)
        try fixer.append(bytes, to: &out)
        try fixer.finish(to: &out)
        return (out, fixer.plan, check)
    }
}
