import H264

/// Walks an H.264 track's samples in decoding order as the core's access units: each sample's
/// NAL units with its times (in the track's timescale) and flags, with the parameter sets of
/// its description's avcC record that it refers to put in band (after an access unit
/// delimiter and the sample's own parameter sets, before anything else) where the consumer
/// has not had them with that content yet: at the first sample, and where a switch of
/// description changes a set the sample uses. So a consumer that follows parameter sets in
/// band (an FLV sample builder, a decoder, a muxer) sees every change where it happens, and
/// a file whose samples switch between descriptions costs no more than the file: a switch
/// between equal sets adds nothing, and the sets added are at most the samples' and records'
/// bytes plus 256 KiB (the core's `ParameterSetInserter`, which leaves out what does not fit).
///
/// Memory: one sample at a time (a view for an in-memory source), the records' parameter sets
/// by id (views of the track's descriptions, read once) and the sets copied from samples (one
/// per id).
public struct MP4AccessUnitIterator {
    private let reader: MP4Reader
    private let track: MP4Track
    private var samples: MP4SampleIterator
    private var previousDescription = -1
    private let tables: [ParameterSetInserter.OutOfBandSets]
    private var inserter = ParameterSetInserter()
    /// Descriptions whose records counted as input (once each: the file holds them once).
    private var counted = Set<Int>()

    init(reader: MP4Reader, track: MP4Track) {
        self.reader = reader
        self.track = track
        samples = reader.samples(of: track)
        tables = track.recordTables()
        inserter.insertsChangedSets = true
    }

    /// The next access unit, or nil after the last sample.
    /// - Throws: the errors of ``MP4SampleIterator/next()`` and ``MP4Reader/sample(_:)``, and
    ///   ``MP4Error/Code/h264`` for a sample whose NAL unit lengths do not add up.
    public mutating func next() throws(MP4Error) -> AccessUnit? {
        guard let info = try samples.next() else { return nil }
        let description = track.descriptions[info.descriptionIndex]
        var au = try reader.sample(info).accessUnit(description: description, index: info.index,
                                                    timescale: Int64(track.timescale))
        if info.descriptionIndex != previousDescription {
            inserter.receiveOutOfBand(tables[info.descriptionIndex], countsAsInput: counted.insert(info.descriptionIndex).inserted)
        }
        previousDescription = info.descriptionIndex
        au.nalUnits = inserter.inserting(into: au.nalUnits, isRandomAccess: false)
        return au
    }
}

extension MP4Reader {
    /// Walks `track`'s samples as access units (see ``MP4AccessUnitIterator``).
    public func accessUnits(of track: MP4Track) -> MP4AccessUnitIterator {
        MP4AccessUnitIterator(reader: self, track: track)
    }
}
