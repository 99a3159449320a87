/// One rule of a delivery target: what the stream must do, the clause of the specification or
/// RFC (or the documented practice of the receivers) it comes from, and how a stream that breaks
/// it is put right.
///
/// Rules have stable identifiers (``id``, such as `parameter-sets.before-idr`): `h264 check
/// --json` prints them, and tests and dashboards may match on them. The same rule can belong to
/// several profiles (``DeliveryProfile``).
public struct DeliveryRule: Hashable, Sendable, CustomStringConvertible {
    /// The stable identifier: a group and a name, `parameter-sets.before-idr`.
    public let id: String
    /// Where the rule comes from: `RFC 6184 8.1`, `H.264 A.3.1`, `ITU-T H.222.0 2.14.1`.
    public let clause: String
    /// What the stream must do, one line.
    public let summary: String
    /// How a stream that breaks it is put right, one line: what ``StreamFixer`` does, or the
    /// encoder setting or sender behaviour that avoids it.
    public let fix: String
    /// Who can put it right.
    public let remedy: Remedy

    /// Who can put a broken rule right.
    public enum Remedy: String, Hashable, Sendable {
        /// ``StreamFixer`` rewrites the stream without re-encoding (when the stream allows it,
        /// see ``DeliveryFixPlan``).
        case streamFix = "stream_fix"
        /// Only the encoder can: ``DeliveryRule/fix`` names the setting.
        case encoderSetting = "encoder_setting"
        /// The sender or container writer: ``DeliveryRule/fix`` says what it must do.
        case sender
    }

    /// Creates a rule.
    public init(id: String, clause: String, summary: String, fix: String, remedy: Remedy) {
        self.id = id
        self.clause = clause
        self.summary = summary
        self.fix = fix
        self.remedy = remedy
    }

    /// True for a rule that needs what a container says of each access unit (an FLV keyframe
    /// flag, a sequence header): ``StreamChecker/check(_:container:)`` with container facts.
    public var needsContainerFacts: Bool { id.hasPrefix("flv.") }

    /// `id (clause)`.
    public var description: String { "\(id) (\(clause))" }
}
