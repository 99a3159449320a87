import CommandLineSupport
import H264
import MP4

/// An MP4 file recorded as the frames come (`h264 encode -o out.mp4`), through the library's
/// `MP4Recorder`: fragmented by default, so that a killed process leaves a playable file
/// (under its temporary name, ``StagedPath``).
final class MP4EncodeOutput: EncodeOutput {
    private let staging: StagedPath
    private let file: MP4File
    private let recorder: MP4Recorder
    /// A write failed (a full disk, a file-size limit): the recorder was stopped there.
    private var writeFailed = false

    init(path: String, encoder: any FrameEncoder, mode: MP4Recorder.Mode) throws {
        guard path != "-" else { throw CLIError("an MP4 file cannot go to stdout") }
        staging = StagedPath(path)
        file = try MP4File(creatingAtPath: staging.writingPath)
        recorder = MP4Recorder(file: file, mode: mode, parameterSets: encoder.parameterSets)
    }

    func write(_ frame: EncodedFrame) throws {
        do { try recorder.write(frame) } catch {
            writeFailed = error.code == .io
            throw error
        }
    }

    func close() throws {
        try recorder.finish()
        file.close()
        try staging.commit()
    }

    /// Finishes the file (its `moov`, or the last fragment) with the frames written; after a
    /// failed write, keeps a fragmented file as the recorder cut it back (whole fragments) and
    /// removes a progressive one (no `moov`: nothing plays).
    func closeKeepingPartial() -> String? {
        defer { file.close() }
        if writeFailed {
            guard case .fragmented = recorder.mode else {
                staging.discard()
                return nil
            }
            return staging.keep()
        }
        do { try recorder.finish() } catch {
            staging.discard()
            return nil
        }
        return staging.keep()
    }
}
