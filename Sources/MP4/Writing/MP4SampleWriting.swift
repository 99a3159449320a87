/// Something that takes an H.264 track's samples in decoding order and makes an MP4 output of
/// them: a progressive file (``MP4Writer``), one fragmented file (``MP4FragmentedFileWriter``),
/// or HLS segments and a playlist (``HLSSegmentWriter``).
///
/// ``MP4AnnexBRecorder`` and ``MP4Recorder`` write through it, whichever output is chosen.
public protocol MP4SampleWriting: AnyObject {
    /// Adds the next sample in decoding order, with its description.
    func append(_ sample: MP4Sample, description: MP4SampleDescription) throws(MP4Error)
    /// Ends the output.
    func finish() throws(MP4Error)
}

extension MP4Writer: MP4SampleWriting {}
