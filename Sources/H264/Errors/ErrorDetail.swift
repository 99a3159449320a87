/// The contents of an error of this package (``H264Error``; `FLVError`, `MP4Error`, `RTMPError`, `X264Error` in the
/// modules above): made once, when the error is raised, and never changed.
///
/// Each error type is a struct holding one reference to its detail, as swift-asn1's `ASN1Error`
/// holds its backing object: a typed throw moves one word, whatever the reason's length, and
/// only the rare failing path pays for the allocation.
package final class ErrorDetail<Code: Sendable, Underlying: Sendable>: Sendable {
    /// What kind of failure this is.
    package let code: Code
    /// A human-readable explanation.
    package let reason: String
    /// The error of a lower layer that caused this one, if any.
    package let underlying: Underlying?
    /// The source file that raised the error.
    package let file: String
    /// The source line that raised the error.
    package let line: Int

    package init(_ code: Code, _ reason: String, underlying: Underlying? = nil, file: String, line: Int) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
        self.file = file
        self.line = line
    }
}
