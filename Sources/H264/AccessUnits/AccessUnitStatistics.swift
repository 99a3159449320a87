/// Running counts over a stream's access units: access units, pictures, fields, keyframes and
/// IDR pictures, format changes, GOP lengths, and the presentation span. What a stream summary
/// (`h264 inspect`, a service's ingest report) prints, gathered one access unit at a time.
///
/// A GOP runs from a keyframe (``AccessUnit/isKeyframe``) to the picture before the next one;
/// the access units before the first keyframe belong to none.
///
/// Memory: at most ``maximumGOPLengths`` GOP lengths kept in ``gopLengths``; every other figure
/// is a running number, whatever the stream's length.
public struct AccessUnitStatistics: Hashable, Sendable {
    /// How many GOP lengths ``gopLengths`` keeps.
    public static let maximumGOPLengths = 10_000

    /// Access units added.
    public private(set) var accessUnits = 0
    /// Access units with a picture (not only parameter sets, SEI or an end of stream).
    public private(set) var pictures = 0
    /// Access units whose picture is a field.
    public private(set) var fields = 0
    /// Keyframes (IDR pictures and other random-access points).
    public private(set) var keyframes = 0
    /// IDR pictures.
    public private(set) var idrPictures = 0
    /// Access units that begin a format change (new parameter-set content).
    public private(set) var formatChanges = 0
    /// The first GOP lengths in pictures, in order (at most ``maximumGOPLengths``); the last GOP
    /// counts once ``finish()`` closes it.
    public private(set) var gopLengths: [Int] = []
    /// GOP lengths not kept in ``gopLengths`` (counted in the figures below).
    public private(set) var droppedGOPLengths = 0
    /// GOPs closed so far.
    public private(set) var gopCount = 0
    /// The shortest and the longest GOP closed so far (nil before the first).
    public private(set) var gopLengthRange: ClosedRange<Int>?
    /// Pictures in all closed GOPs.
    public private(set) var gopPictures = 0
    /// The earliest presentation time seen, in the access units' time base.
    public private(set) var firstPTS: Int64?
    /// The latest presentation time plus that access unit's duration.
    public private(set) var ptsEnd: Int64 = 0

    private var sinceKeyframe: Int?

    /// Creates empty statistics.
    public init() {}

    /// The mean GOP length in pictures (nil before a GOP is closed).
    public var meanGOPLength: Double? { gopCount > 0 ? Double(gopPictures) / Double(gopCount) : nil }

    /// The span from the first presentation time to the end of the last (0 without times).
    public var presentationSpan: Int64 { firstPTS.map { ptsEnd &- $0 } ?? 0 }

    /// Counts one access unit (in decoding order).
    public mutating func add(_ au: AccessUnit) {
        accessUnits &+= 1
        if !au.flags.hasNoPicture { pictures &+= 1 }
        if au.structure != .frame { fields &+= 1 }
        if au.formatChange != nil { formatChanges &+= 1 }
        if au.flags.isSync { idrPictures &+= 1 }
        if au.isKeyframe {
            keyframes &+= 1
            if let n = sinceKeyframe { closeGOP(n) }
            sinceKeyframe = 0
        }
        if !au.flags.hasNoPicture, let n = sinceKeyframe { sinceKeyframe = n &+ 1 }
        if let pts = au.pts {
            firstPTS = min(firstPTS ?? pts, pts)
            ptsEnd = max(ptsEnd, pts &+ (au.duration ?? 0))
        }
    }

    /// Closes the GOP still open at the end of the stream (if it has a picture); adding more
    /// access units after this starts counting again from the next keyframe.
    public mutating func finish() {
        if let n = sinceKeyframe, n > 0 { closeGOP(n) }
        sinceKeyframe = nil
    }

    private mutating func closeGOP(_ n: Int) {
        gopCount &+= 1
        gopLengthRange = gopLengthRange.map { min($0.lowerBound, n)...max($0.upperBound, n) } ?? n...n
        gopPictures &+= n  // at most the number of access units
        if gopLengths.count < Self.maximumGOPLengths { gopLengths.append(n) } else { droppedGOPLengths &+= 1 }
    }
}
