/// The error family of this package: every module's error conforms, and everything but the
/// codes is written here, once.
///
/// The members are ``H264Error`` (the core) and, in the modules above it, `H264VideoError`,
/// `X264Error`, `RTPError`, `FLVError`, `RTMPError`, `MP4Error` and `DeliveryError`. Each
/// carries a ``Code`` that says what kind of failure it is, a human ``reason``, where in the
/// library it was raised (``file``, ``line``) and, when a lower layer caused it, that layer's
/// error in ``underlying``. Two errors are equal when their codes are, so tests and callers
/// match on `error.code`, never on the text; a caller that handles every module the same way
/// catches `any CodedError`:
///
/// ```swift
/// do { try run() } catch let error as any CodedError {
///     print("\(error.code): \(error.reason)")
/// }
/// ```
///
/// **Wrapping.** A module never throws another module's error: it wraps it. The core's error is
/// wrapped the same way everywhere, with the code `h264` (``WrapsH264Error``) and the
/// ``H264Error`` in ``underlying``, by ``h264(_:_:file:line:)``; an error of another module is
/// wrapped with the code that says what failed from the caller's side, by
/// ``wrapping(_:as:_:file:line:)``. ``underlying(as:)`` finds an error of a given type anywhere
/// in the chain.
///
/// **Declaring a member.** A conforming type declares its codes (a `Code` struct over a
/// private enum, so codes can be added in later versions without breaking a caller's `switch`)
/// and one stored property holding its ``ErrorDetail``; initialisers, accessors, equality,
/// hashing, the description and the factories come from this protocol's extension. The value
/// is one reference wide (8 bytes): a typed `throws` moves one word, and only the failing path
/// allocates. The members are this package's: an ``ErrorDetail`` is made only here.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is: a struct over a private enum, whose `description` is the
    /// code's name.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// The error's contents (the one stored property of a conforming type; read it through
    /// ``code``, ``reason``, ``underlying``, ``file`` and ``line``).
    var _detail: ErrorDetail<Code> { get }

    /// An error with these contents (made by ``init(_:_:underlying:file:line:)``).
    init(_detail: ErrorDetail<Code>)
}

extension CodedError {
    /// Creates an error. Prefer the static factories (``invalid(_:_:file:line:)``, ...), which
    /// keep error paths out of hot code.
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - reason: a human-readable explanation.
    ///   - underlying: the error of a lower layer that caused this one.
    ///   - file: the source file raising it (the caller's, by default).
    ///   - line: the source line raising it (the caller's, by default).
    public init(_ code: Code, _ reason: String, underlying: (any CodedError)? = nil,
                file: String = #fileID, line: Int = #line) {
        self.init(_detail: ErrorDetail(code, reason, underlying: underlying, file: file, line: line))
    }

    /// What kind of failure this is.
    public var code: Code { _detail.code }
    /// A human-readable explanation.
    public var reason: String { _detail.reason }
    /// The error of a lower layer that caused this one: the core's ``H264Error`` under the
    /// code `h264`, or another module's error; nil when this error is the first.
    public var underlying: (any CodedError)? { _detail.underlying }
    /// The source file that raised the error (`#fileID`: `Module/File.swift`).
    public var file: String { _detail.file }
    /// The source line that raised the error.
    public var line: Int { _detail.line }

    /// The nearest error of type `E` in the chain of ``underlying`` errors (this error itself
    /// not included), e.g. the core's error behind an `RTMPError` behind an `FLVError`.
    /// - Parameter type: the type to look for.
    /// - Returns: the error, or nil when no error of the chain has that type.
    /// - Complexity: O(*n*) in the chain's length (one or two in this package).
    public func underlying<E: CodedError>(as type: E.Type) -> E? {
        var next = underlying
        while let error = next {
            if let found = error as? E { return found }
            next = error.underlying
        }
        return nil
    }

    /// The type's name, the code and the reason: `FLVError.truncated: tag header`.
    public var description: String { "\(Self.self).\(code): \(reason)" }

    /// Equal when the codes are equal, whatever the reasons and places.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, as ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An error of `code` with `reason`, made out of line so that the throwing path costs the
    /// caller's hot code nothing.
    @inline(never)
    public static func invalid(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(code, reason, file: file, line: line)
    }

    /// Wraps `error`, raised by a lower layer, as `code`: the reason is the context, then the
    /// wrapped error's code and reason (`context: truncated: tag header`), and the error is
    /// kept in ``underlying``.
    /// - Parameters:
    ///   - error: the lower layer's error.
    ///   - code: what failed, as this module's callers see it.
    ///   - context: what was being done, or nil.
    ///   - file: the source file raising it (the caller's, by default).
    ///   - line: the source line raising it (the caller's, by default).
    @inline(never)
    public static func wrapping(_ error: some CodedError, as code: Code, _ context: String? = nil,
                                file: String = #fileID, line: Int = #line) -> Self {
        let cause = "\(error.code): \(error.reason)"
        return Self(code, context.map { "\($0): \(cause)" } ?? cause, underlying: error, file: file, line: line)
    }
}

/// The codes of an error that wraps the core's errors: `h264`, the one code every module uses
/// for "the H.264 core refused something", with the ``H264Error`` in
/// ``CodedError/underlying``.
public protocol WrapsH264Error {
    /// The core refused something; ``CodedError/underlying`` holds its ``H264Error``.
    static var h264: Self { get }
}

extension CodedError where Code: WrapsH264Error {
    /// The core's `error`, wrapped the one way: code `h264`, the reason prefixed with
    /// `context`, the error kept in ``CodedError/underlying``.
    /// - Parameters:
    ///   - error: the core's error.
    ///   - context: what was being done (`sample at DTS 3000`), or nil.
    ///   - file: the source file raising it (the caller's, by default).
    ///   - line: the source line raising it (the caller's, by default).
    @inline(never)
    public static func h264(_ error: H264Error, _ context: String? = nil,
                            file: String = #fileID, line: Int = #line) -> Self {
        wrapping(error, as: .h264, context, file: file, line: line)
    }

    /// Runs `body`, a call into the core, and wraps the error it throws with
    /// ``h264(_:_:file:line:)``.
    package static func catchingH264<Value>(_ context: String? = nil, file: String = #fileID, line: Int = #line,
                                             _ body: () throws(H264Error) -> Value) throws(Self) -> Value {
        do { return try body() } catch { throw h264(error, context, file: file, line: line) }
    }
}
