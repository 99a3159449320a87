/// The timed access units of an Annex-B byte stream that arrives as an `AsyncSequence` of byte
/// chunks, built on ``AccessUnitParser`` (splitting, assembly, timestamps).
///
/// ```swift
/// for try await au in chunks.accessUnits() {
///     mux(au.avccSample(), pts: au.pts, dts: au.dts, sync: au.flags.isSync)
/// }
/// ```
///
/// It yields exactly what ``AccessUnitParser`` with the same configuration yields for the same
/// bytes, whatever the chunk boundaries (and so what ``AccessUnits/assemble(annexB:timing:leadingData:)``
/// yields with the same `timing`). A chunk is pulled from the base sequence only when the
/// parser needs input (back-pressure); cancellation is the base sequence's.
///
/// Errors of the stream: with no `problem` handler the first one is thrown and ends the
/// iteration; with a handler each is passed to it and parsing goes on, as
/// ``AccessUnitParser/run(read:problem:body:)`` does. Errors of the base sequence are rethrown
/// unchanged.
///
/// - Complexity: O(stream bytes). Memory: the parser's (one incomplete NAL unit, one access
///   unit being assembled, the access units waiting for their presentation time) plus one
///   chunk, whatever the stream's length.
public struct AsyncAccessUnitSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: Sequence, Base.Element.Element == UInt8 {
    public typealias Element = AccessUnit

    let base: Base
    let makeParser: @Sendable () -> AccessUnitParser
    let problem: (@Sendable (H264Error) -> Void)?

    /// Creates the sequence; see ``AccessUnitParser/init(timing:limits:maximumNALUnitSize:leadingData:)``
    /// for the parameters, and the type's discussion for `problem`.
    public init(_ base: Base, timing: TimestampOptions = .init(), limits: AccessUnitLimits = .init(),
                maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                leadingData: AnnexB.LeadingDataPolicy = .reject, problem: (@Sendable (H264Error) -> Void)? = nil) {
        self.base = base
        self.makeParser = {
            AccessUnitParser(timing: timing, limits: limits, maximumNALUnitSize: maximumNALUnitSize, leadingData: leadingData)
        }
        self.problem = problem
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(loop: ChunkedParseLoop(base: base.makeAsyncIterator(), parser: makeParser(), problem: problem))
    }

    /// Pulls chunks and yields access units.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var loop: ChunkedParseLoop<Base.AsyncIterator, AccessUnitParser>

        /// The next access unit with its timestamps; nil at the end of the stream.
        ///
        /// - Throws: the stream's first ``H264Error`` when there is no `problem` handler; what
        ///   the base sequence throws.
        public mutating func next() async throws -> AccessUnit? { try await loop.next() }
    }
}
