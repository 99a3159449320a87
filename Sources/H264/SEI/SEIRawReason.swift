/// Why a message of a type the library parses was kept as ``SEIPayload/raw(type:bytes:)``.
public enum SEIRawReason: Sendable, Hashable {
    /// The type is not one the library parses.
    case unknownType
    /// ``SEIParseOptions`` asked for this type (or all types) to be kept raw.
    case keptByOptions
    /// A buffering_period names an SPS the context does not know.
    case missingSPS(id: Int)
    /// pic_timing or dec_ref_pic_marking_repetition met no active SPS in the context.
    case noActiveSPS
}
