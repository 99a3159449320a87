import H264
import MP4
import Testing

/// MP4's names replaced in issue 29 (`MP4AnnexBConverter`, a fragment duration in seconds as a
/// `Double`) still build, with a warning on the caller's side, and mean what the new ones do.
/// Called through a protocol whose requirements the deprecated spellings witness, so that this
/// file builds without warnings.
@Suite struct MP4DeprecatedNamesTests {
    @Test func converterIsTheRecorder() {
        #expect(OldNames.converterType(Spellings.self) == ObjectIdentifier(MP4AnnexBRecorder.self))
    }

    @Test(arguments: [(0.25, Duration.milliseconds(250)), (2, .seconds(2)), (-1, .zero), (.nan, .zero), (.infinity, .zero)])
    func secondsBecomeADuration(_ seconds: Double, _ expected: Duration) {
        #expect(OldNames.fragmented(Spellings.self, seconds) == .fragmented(fragmentDuration: expected, synchronizes: true))
    }
}

private protocol DeprecatedMP4Names {
    static var converterType: ObjectIdentifier { get }
    static func fragmented(_ seconds: Double) -> MP4Recorder.Mode
}

private enum Spellings: DeprecatedMP4Names {
    @available(*, deprecated)
    static var converterType: ObjectIdentifier { ObjectIdentifier(MP4AnnexBConverter.self) }

    @available(*, deprecated)
    static func fragmented(_ seconds: Double) -> MP4Recorder.Mode { .fragmented(fragmentDuration: seconds, synchronizes: true) }
}

/// Calls the requirements through the protocol (no deprecated declaration named here).
private enum OldNames {
    static func converterType<S: DeprecatedMP4Names>(_: S.Type) -> ObjectIdentifier { S.converterType }
    static func fragmented<S: DeprecatedMP4Names>(_: S.Type, _ seconds: Double) -> MP4Recorder.Mode { S.fragmented(seconds) }
}
