/// The chunk types the async parsing sequences take: any `Sequence` of bytes. An array or an
/// array slice is handed to the parser without a copy; any other sequence (`Data`, a ring
/// buffer's view) is copied once into an array.
func byteChunk<Chunk: Sequence>(_ chunk: Chunk) -> ArraySlice<UInt8> where Chunk.Element == UInt8 {
    if let array = chunk as? [UInt8] { return array[...] }
    if let slice = chunk as? ArraySlice<UInt8> { return slice }
    return ArraySlice(chunk)
}
