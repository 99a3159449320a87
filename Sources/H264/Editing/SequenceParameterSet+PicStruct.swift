extension SequenceParameterSet {
    /// Sets `pic_struct_present_flag` (adding a VUI whose other fields are absent when the SPS
    /// has none), so that pic_timing SEI messages may carry `pic_struct` and clock timestamps
    /// (time codes).
    ///
    /// Safe for the rest of the stream: the flag changes nothing a decoder does with slices; it
    /// only changes how pic_timing SEI messages are parsed. Existing pic_timing messages of the
    /// stream must then be re-written with a `pic_struct` (``SEIInserter`` does it when its
    /// options ask for this edit).
    /// - Throws: ``H264Error`` when the SPS's inferred values contradict its fields (an SPS that
    ///   was built by hand inconsistently).
    public mutating func setPicStructPresent() throws(H264Error) {
        vuiParametersPresentFlag = true
        vui.picStructPresentFlag = true
        try setInferredValues(context: EmptySyntaxContext())
    }
}
