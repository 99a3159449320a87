/// The contents of an error of this package's family (``CodedError``): its code, reason, source
/// location and the error behind it, made once, when the error is raised, and never changed.
///
/// Opaque outside the package: a conforming error type stores one and hands it to
/// ``CodedError``, which reads everything from it. Each error type is a struct holding one
/// reference to its detail, as swift-asn1's `ASN1Error` holds its backing object: a typed throw
/// moves one word, whatever the reason's length, and only the rare failing path pays for the
/// allocation.
public final class ErrorDetail<Code: Hashable & Sendable & CustomStringConvertible>: Sendable {
    /// What kind of failure this is.
    package let code: Code
    /// A human-readable explanation.
    package let reason: String
    /// The error of a lower layer that caused this one, if any.
    package let underlying: (any CodedError)?
    /// The source file that raised the error.
    package let file: String
    /// The source line that raised the error.
    package let line: Int

    package init(_ code: Code, _ reason: String, underlying: (any CodedError)?, file: String, line: Int) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
        self.file = file
        self.line = line
    }
}
