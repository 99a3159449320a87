/// The NAL units of an Annex-B byte stream that arrives as an `AsyncSequence` of byte chunks
/// (a socket, a pipe, a file read in pieces), built on ``AnnexBStreamParser``.
///
/// ```swift
/// for try await unit in chunks.nalUnits() { handle(unit) }
/// ```
///
/// It yields exactly what ``AnnexBStreamParser`` yields for the same bytes, whatever the chunk
/// boundaries. A chunk is pulled from the base sequence only when every NAL unit of the
/// previous one has been taken (back-pressure); cancellation is the base sequence's (the
/// iterator adds no waiting of its own).
///
/// Errors of the stream (a bad NAL unit header, a NAL unit over the size limit): with no
/// `problem` handler the first one is thrown and ends the iteration; with a handler each is
/// passed to it and parsing goes on after it, as ``AnnexBStreamParser/run(read:problem:body:)``
/// does. Errors of the base sequence are rethrown unchanged.
///
/// - Complexity: O(stream bytes), as ``AnnexBStreamParser``. Memory: the parser's (at most
///   `maximumNALUnitSize` bytes of one NAL unit spanning chunks) plus one chunk.
public struct AsyncNALUnitSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: Sequence, Base.Element.Element == UInt8 {
    public typealias Element = NALUnit

    let base: Base
    let maximumNALUnitSize: Int
    let leadingData: AnnexB.LeadingDataPolicy
    let problem: (@Sendable (H264Error) -> Void)?

    /// Creates the sequence; see ``AnnexBStreamParser/init(maximumNALUnitSize:leadingData:)``
    /// for the parameters, and the type's discussion for `problem`.
    public init(_ base: Base, maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                leadingData: AnnexB.LeadingDataPolicy = .reject, problem: (@Sendable (H264Error) -> Void)? = nil) {
        self.base = base
        self.maximumNALUnitSize = maximumNALUnitSize
        self.leadingData = leadingData
        self.problem = problem
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(loop: ChunkedParseLoop(
            base: base.makeAsyncIterator(),
            parser: AnnexBStreamParser(maximumNALUnitSize: maximumNALUnitSize, leadingData: leadingData),
            problem: problem))
    }

    /// Pulls chunks and yields NAL units.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var loop: ChunkedParseLoop<Base.AsyncIterator, AnnexBStreamParser>

        /// The next NAL unit; nil at the end of the stream.
        ///
        /// - Throws: the stream's first ``H264Error`` when there is no `problem` handler; what
        ///   the base sequence throws.
        public mutating func next() async throws -> NALUnit? { try await loop.next() }
    }
}

extension AsyncSequence where Element: Sequence, Element.Element == UInt8 {
    /// The NAL units of the Annex-B stream these chunks carry: see ``AsyncNALUnitSequence``.
    public func nalUnits(maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                         leadingData: AnnexB.LeadingDataPolicy = .reject,
                         problem: (@Sendable (H264Error) -> Void)? = nil) -> AsyncNALUnitSequence<Self> {
        AsyncNALUnitSequence(self, maximumNALUnitSize: maximumNALUnitSize, leadingData: leadingData, problem: problem)
    }

    /// The timed access units of the Annex-B stream these chunks carry: see
    /// ``AsyncAccessUnitSequence``.
    public func accessUnits(timing: TimestampOptions = .init(),
                            limits: AccessUnitLimits = .init(),
                            maximumNALUnitSize: Int = AnnexBStreamParser.defaultMaximumNALUnitSize,
                            leadingData: AnnexB.LeadingDataPolicy = .reject,
                            problem: (@Sendable (H264Error) -> Void)? = nil) -> AsyncAccessUnitSequence<Self> {
        AsyncAccessUnitSequence(self, timing: timing, limits: limits, maximumNALUnitSize: maximumNALUnitSize,
                                leadingData: leadingData, problem: problem)
    }
}
