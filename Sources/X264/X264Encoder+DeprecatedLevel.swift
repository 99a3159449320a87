import H264

/// The spellings of the level of earlier releases, whose `X264Encoder.Level` was an enum of its
/// own: the level is now the core's `ProfileLevel.Level`, nil for automatic.
extension Optional where Wrapped == ProfileLevel.Level {
    /// Chosen by x264 from the size, frame rate and bitrate: nil.
    @available(*, deprecated, message: "nil: x264 chooses the level")
    public static var auto: Self { nil }

    /// A given `level_idc`: 10 times the level number (31 for level 3.1; 9 for 1b).
    @available(*, deprecated, message: "use ProfileLevel.Level(levelIDC:isLevel1b:) or ProfileLevel.Level(\"3.1\")")
    public static func idc(_ levelIDC: Int) -> Self {
        .some(ProfileLevel.Level(levelIDC: UInt8(clamping: levelIDC), isLevel1b: levelIDC == 9))
    }

    /// Parses `3.1`, `31`, `1b`, or `auto` (a nil level); fails for anything else.
    @available(*, deprecated, message: "use ProfileLevel.Level(_:) (nil for anything but a level; auto is a nil level)")
    public init?(_ text: String) {
        if text == "auto" { self = .none; return }
        guard let level = ProfileLevel.Level(text) else { return nil }
        self = .some(level)
    }
}
