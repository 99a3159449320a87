import Foundation
import Testing

/// The external programs the tests compare with (FFmpeg, GStreamer, the x264 CLI, nginx with
/// the RTMP module), as the conditions of the tests that need them see them.
///
/// On a machine without one, those tests skip with a reason. Under `CI=true` they must not:
/// `.ci/run` installs every one of these tools and fails when it cannot, so a tool missing there
/// is a broken CI machine. ``required(_:present:)`` then enables the tests anyway, and each fails
/// where it starts the program (`Support.run` throws "ffmpeg is not installed ... CI=true"),
/// instead of a run that passes by skipping them; it also records an issue, which shows when the
/// condition is first evaluated inside a test (conditions evaluated while the run is planned
/// have no test to show it on). Tests that need the shared corpus still skip (CI may not have
/// `../shared/corpus`).
public enum Tool {
    /// True when the environment says this is CI (`CI=true`, as CI services set it).
    public static let isCI: Bool = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The condition of a test that needs `name`: `present`; under CI, true even when absent,
    /// with an issue recorded (once per condition) that says which tool is missing.
    public static func required(_ name: String, present: Bool) -> Bool {
        if present { return true }
        guard isCI else { return false }
        Issue.record("\(name) is not installed but CI=true: .ci/run installs it, so the tests that need it run and fail instead of skipping")
        return true
    }

    /// The condition of a test that needs the program `program` on PATH (see
    /// ``required(_:present:)``).
    public static func required(_ program: String) -> Bool {
        required(program, present: Support.which(program) != nil)
    }
}
