import H264

/// Walks an H.264 track's samples in decoding order as the core's access units: each sample's
/// NAL units with its times (in the track's timescale) and flags, and in front of the first
/// sample of each description the parameter sets of its avcC record, so that a consumer that
/// follows parameter sets in band (an FLV sample builder, a decoder, a muxer) sees
/// every change of description where it happens.
///
/// Memory: one sample at a time (a view for an in-memory source) and the current record's
/// parameter sets.
public struct MP4AccessUnitIterator {
    private let reader: MP4Reader
    private let track: MP4Track
    private var samples: MP4SampleIterator
    private var previousDescription = -1

    init(reader: MP4Reader, track: MP4Track) {
        self.reader = reader
        self.track = track
        samples = reader.samples(of: track)
    }

    /// The next access unit, or nil after the last sample.
    /// - Throws: the errors of ``MP4SampleIterator/next()`` and ``MP4Reader/sample(_:)``, and
    ///   ``MP4Error/Code/h264`` for a sample whose NAL unit lengths do not add up.
    public mutating func next() throws(MP4Error) -> AccessUnit? {
        guard let info = try samples.next() else { return nil }
        let description = track.descriptions[info.descriptionIndex]
        var au = try reader.sample(info).accessUnit(description: description, index: info.index,
                                                    timescale: Int64(track.timescale))
        if info.descriptionIndex != previousDescription, let record = description.decoderConfiguration {
            au.nalUnits = record.parameterSets + au.nalUnits
        }
        previousDescription = info.descriptionIndex
        return au
    }
}

extension MP4Reader {
    /// Walks `track`'s samples as access units (see ``MP4AccessUnitIterator``).
    public func accessUnits(of track: MP4Track) -> MP4AccessUnitIterator {
        MP4AccessUnitIterator(reader: self, track: track)
    }
}
