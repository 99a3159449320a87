import H264

extension MP4Reader {
    /// Writes an H.264 track as an Annex-B byte stream, one sample at a time: each sample's
    /// NAL units behind 4-byte start codes, with the parameter sets of its description's avcC
    /// record that it refers to put in (after an access unit delimiter, before anything else)
    /// where the sample lacks them and a decoder needs them: at every sync sample and every
    /// sample with an IDR slice (for a decoder that starts there), and at any other sample only
    /// the sets whose content the output has not carried yet (the first sample, or the first
    /// after a switch to a description whose set of that id differs; a switch between
    /// descriptions whose sets are equal inserts nothing). The core's `ParameterSetInserter`
    /// chooses them and bounds them: at most 256 KiB per sample, and in all at most the
    /// samples' and records' bytes (each record once, however often samples switch between
    /// descriptions) plus 256 KiB, whatever the records hold; a set past that bound is left
    /// out. Each record is read once (`ParameterSetInserter.OutOfBandSets`): a switch costs
    /// O(1), whatever the records' size.
    ///
    /// FFmpeg's `h264_mp4toannexb` puts them right before the IDR slice instead (after SEI);
    /// the NAL units are otherwise the same.
    /// - Parameters:
    ///   - track: an H.264 track of this file.
    ///   - output: takes the bytes of each sample (reuse of the buffer is the caller's).
    /// - Returns: the number of samples written.
    /// - Throws: ``MP4Error/Code/unsupported`` for a description that is not H.264 (an
    ///   encrypted track), the iterator's and source's errors, and ``MP4Error/Code/h264`` for
    ///   a sample whose NAL unit lengths run past its end.
    /// - Complexity: O(file size) time, O(largest sample) memory besides the records' sets
    ///   (views of the track's descriptions) and the sets copied from samples (one per id).
    @discardableResult
    public func writeAnnexB(of track: MP4Track, to output: (ArraySlice<UInt8>) throws(MP4Error) -> Void) throws(MP4Error) -> Int {
        guard track.isH264Video else {
            throw MP4Error.invalid(.unsupported, "track \(track.trackID) is not H.264 video"
                                   + (track.isEncrypted ? " (it is encrypted)" : ""))
        }
        var it = samples(of: track)
        var inserter = ParameterSetInserter()
        inserter.insertsChangedSets = true
        let tables = track.recordTables()
        var previousDescription = -1
        var counted = Set<Int>()  // descriptions whose records counted as input (once each: the file holds them once)
        var buffer: [UInt8] = []
        var count = 0
        while let info = try it.next() {
            let description = track.descriptions[info.descriptionIndex]
            guard description.isH264, let record = description.decoderConfiguration else {
                throw MP4Error.invalid(.unsupported,
                                       "sample \(info.index): description \(description.format) is not H.264 with an avcC record"
                                        + (track.isEncrypted ? " (the track is encrypted)" : ""))
            }
            let bytes = try source.read(at: info.offset, count: info.size)
            let units: [NALUnit]
            do { units = try AVCC.split(bytes, lengthSize: record.nalUnitLengthSize) } catch {
                throw MP4Error.h264(error, "sample \(info.index)")
            }
            if info.descriptionIndex != previousDescription {
                inserter.receiveOutOfBand(tables[info.descriptionIndex], countsAsInput: counted.insert(info.descriptionIndex).inserted)
            }
            previousDescription = info.descriptionIndex
            let isRandomAccess = info.flags.isSync || units.contains { $0.type == .idrSlice }
            buffer.removeAll(keepingCapacity: true)
            for unit in inserter.inserting(into: units, isRandomAccess: isRandomAccess) { AnnexB.append(unit, to: &buffer) }
            try output(buffer[...])
            count &+= 1
        }
        return count
    }

    /// An H.264 track as one Annex-B byte stream in memory (see
    /// ``writeAnnexB(of:to:)``).
    public func annexB(of track: MP4Track) throws(MP4Error) -> [UInt8] {
        var out: [UInt8] = []
        try writeAnnexB(of: track) { (bytes: ArraySlice<UInt8>) throws(MP4Error) in out.append(contentsOf: bytes) }
        return out
    }
}

extension MP4Track {
    /// The parameter sets of each description's avcC record (none for other descriptions),
    /// read once for a `ParameterSetInserter`: O(the records' bytes).
    func recordTables() -> [ParameterSetInserter.OutOfBandSets] {
        ParameterSetInserter.OutOfBandSets.make(records: descriptions.map { $0.decoderConfiguration?.parameterSets ?? [] })
    }
}
