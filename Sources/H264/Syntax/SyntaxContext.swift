/// What a syntax structure's description depends on beyond its own bits: the parameter sets
/// seen so far and the SPS in force, read only.
///
/// Every ``SyntaxStructure`` is coded with a context, passed the same way for all of them
/// (`code(_:context:)`): a PPS looks up the SPS it names (its `chroma_format_idc` and bit
/// depth), a slice header the PPS it names and that PPS's SPS, an SEI buffering_period the SPS
/// it names and a pic_timing the SPS in force. Structures that depend on nothing (an SPS, an
/// access unit delimiter) ignore it: pass ``EmptySyntaxContext`` (`.empty`).
///
/// ``ParameterSetStore`` is the context of a stream; coding never changes it. Making a slice's
/// parameter sets the active ones is a separate step (``ParameterSetStore/activate(_:)``).
///
/// Every requirement has a default: a context answers nil for what it does not know, and the
/// structures that need it then throw ``H264Error/Code/missingParameterSet`` (slices, PPS scaling
/// lists) or keep the payload raw (SEI timing messages). The derived requirements
/// (``sliceHeaderContext(ppsID:subset:)``, ``seiTimingInfo(forSPS:)``,
/// ``activeSEITimingInfo``) default to computing from the parameter sets; a context that
/// caches them (the store does) answers faster.
///
/// The structures' coding functions are generic over the context, so a concrete context is
/// specialised: no dynamic dispatch on the read path.
public protocol SyntaxContext {
    /// The SPS with `seq_parameter_set_id` `id`, if known.
    func sps(id: Int) -> SequenceParameterSet?
    /// The subset SPS with `seq_parameter_set_id` `id`, if known (MVC slices, type 20).
    func subsetSPS(id: Int) -> SubsetSequenceParameterSet?
    /// The PPS with `pic_parameter_set_id` `id`, if known.
    func pps(id: Int) -> PictureParameterSet?
    /// The id of the SPS in force (the one the last slice or buffering_period activated).
    var activeSPSID: Int? { get }

    /// What a slice header's syntax needs from PPS `ppsID` and its SPS (from the subset SPS
    /// table when `subset`), or nil when either is unknown.
    func sliceHeaderContext(ppsID: Int, subset: Bool) -> SliceHeaderContext?
    /// What SEI buffering_period needs from SPS `id`, if known.
    func seiTimingInfo(forSPS id: Int) -> SEITimingInfo?
    /// What SEI pic_timing needs from the SPS in force, if known.
    ///
    /// FFmpeg, when no SPS is active yet but exactly one SPS has been seen, uses that one for
    /// pic_timing; a context that wants the same traces answers likewise (the store does).
    var activeSEITimingInfo: SEITimingInfo? { get }
}

extension SyntaxContext {
    /// Nil: no SPS known.
    public func sps(id: Int) -> SequenceParameterSet? { nil }
    /// Nil: no subset SPS known.
    public func subsetSPS(id: Int) -> SubsetSequenceParameterSet? { nil }
    /// Nil: no PPS known.
    public func pps(id: Int) -> PictureParameterSet? { nil }
    /// Nil: no SPS in force.
    public var activeSPSID: Int? { nil }

    /// Built from ``pps(id:)`` and ``sps(id:)`` (or ``subsetSPS(id:)``).
    public func sliceHeaderContext(ppsID: Int, subset: Bool) -> SliceHeaderContext? {
        guard let pps = pps(id: ppsID) else { return nil }
        let id = Int(pps.spsID)
        guard let sps = subset ? subsetSPS(id: id)?.sps : sps(id: id) else { return nil }
        return SliceHeaderContext(sps: sps, pps: pps)
    }

    /// From ``sps(id:)``.
    public func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { sps(id: id)?.seiTimingInfo }

    /// From the SPS ``activeSPSID`` names.
    public var activeSEITimingInfo: SEITimingInfo? { activeSPSID.flatMap { seiTimingInfo(forSPS: $0) } }
}

/// A context that knows no parameter set: for the structures that depend on none (SPS, access
/// unit delimiter, filler, ...), and for SEI framing work (removing messages), where
/// buffering_period and pic_timing stay raw.
public struct EmptySyntaxContext: SyntaxContext, Sendable {
    /// Creates the empty context.
    @inlinable public init() {}
}

extension SyntaxContext where Self == EmptySyntaxContext {
    /// No parameter sets: `sps.code(&coder, context: .empty)`.
    @inlinable public static var empty: EmptySyntaxContext { EmptySyntaxContext() }
}
