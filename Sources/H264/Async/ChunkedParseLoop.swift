/// A synchronous push parser fed chunk by chunk: ``AnnexBStreamParser`` and ``AccessUnitParser``.
protocol ChunkedParser {
    associatedtype Output
    mutating func append(_ chunk: ArraySlice<UInt8>)
    mutating func finish()
    mutating func next() throws(H264Error) -> Output?
}

extension AnnexBStreamParser: ChunkedParser {}
extension AccessUnitParser: ChunkedParser {}

/// The loop both async parsing sequences run: drain the parser, pull the next chunk only when it
/// needs input, finish at the end of the base sequence; errors of the stream go to `problem`
/// when there is one, and are thrown otherwise.
struct ChunkedParseLoop<Base: AsyncIteratorProtocol, Parser: ChunkedParser> where Base.Element: Sequence, Base.Element.Element == UInt8 {
    var base: Base
    var parser: Parser
    let problem: (@Sendable (H264Error) -> Void)?
    var ended = false

    mutating func next() async throws -> Parser.Output? {
        while true {
            do throws(H264Error) {
                if let output = try parser.next() { return output }
            } catch {
                guard let problem else { throw error }
                problem(error)
                continue
            }
            if ended { return nil }
            if let chunk = try await base.next() {
                parser.append(byteChunk(chunk))
            } else {
                parser.finish()
                ended = true
            }
        }
    }
}
