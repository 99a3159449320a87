/// What ``SEIInserter`` adds to each picture, by frame number in presentation order: messages on
/// single frames (captions), messages on sets of frames (user data), a time code counting up
/// on every frame, recovery points.
///
/// ```swift
/// var schedule = SEIInsertionSchedule()
/// try schedule.add(.captions(A53CaptionData(tripleBytes: [0xFC, 0x94, 0x2C])), at: 12)
/// schedule.add(try .userDataUnregistered(uuid: uuid, payload: bytes), on: .all)
/// schedule.timecode = .init(start: try SMPTETimecode(parsing: "10:00:00:00"))
/// var inserter = SEIInserter(schedule: schedule)
/// ```
///
/// Memory: the messages given, kept once each.
public struct SEIInsertionSchedule: Sendable {
    /// A time code on every frame, counting up from `start`.
    public struct Timecode: Sendable, Hashable {
        /// The first frame's time code.
        public var start: SMPTETimecode
        /// Frames per second of the count; nil to take the stream's nominal rate (its VUI timing,
        /// 25 without one).
        public var framesPerSecond: Int?

        /// Creates a time code track.
        public init(start: SMPTETimecode, framesPerSecond: Int? = nil) {
            self.start = start
            self.framesPerSecond = framesPerSecond
        }
    }

    /// Recovery point messages.
    public struct RecoveryPoints: Sendable, Hashable {
        /// `recovery_frame_cnt`.
        public var recoveryFrameCount: UInt16
        /// The frames that get one; nil for every I picture that is not an IDR picture (an open
        /// GOP's entry points, a stream cut from the middle).
        public var frames: FrameSet?

        /// Creates a recovery point track.
        public init(recoveryFrameCount: UInt16, frames: FrameSet? = nil) {
            self.recoveryFrameCount = recoveryFrameCount
            self.frames = frames
        }
    }

    private var byFrame: [Int: [SEIMessage]] = [:]
    private var onSets: [(frames: FrameSet, message: SEIMessage)] = []
    /// The time code track, if any.
    public var timecode: Timecode?
    /// The recovery points, if any.
    public var recoveryPoints: RecoveryPoints?

    /// An empty schedule.
    public init() {}

    /// True when the schedule adds nothing.
    public var isEmpty: Bool { byFrame.isEmpty && onSets.isEmpty && timecode == nil && recoveryPoints == nil }

    /// Adds `message` to frame `frame` (presentation order, from 0).
    public mutating func add(_ message: SEIMessage, at frame: Int) {
        byFrame[frame, default: []].append(message)
    }

    /// Adds `message` to every frame of `frames`.
    public mutating func add(_ message: SEIMessage, on frames: FrameSet) {
        onSets.append((frames, message))
    }

    /// The messages for one picture: those of its frame number, those of the sets it belongs to,
    /// its time code and recovery point, in that order.
    /// - Complexity: O(number of sets added).
    public func messages(for point: SEIInsertionPoint) -> [SEIMessage] {
        let frame = point.presentationIndex
        var out = byFrame[frame] ?? []
        for entry in onSets where entry.frames.contains(frame) { out.append(entry.message) }
        if let timecode {
            let rate = timecode.framesPerSecond ?? point.framesPerSecond ?? 25
            let value = timecode.start.advanced(by: frame, framesPerSecond: rate)
            // The inserter codes it with the picture's SPS facts.
            let timing = point.timing ?? SEITimingInfo(nalHRD: nil, vclHRD: nil, picStructPresent: true)
            out.append(SEIMessage(.picTiming(SEIPicTiming(timing: timing, timecode: value))))
        }
        if let recoveryPoints {
            let selected = recoveryPoints.frames.map { $0.contains(frame) } ?? point.accessUnit.flags.isIntraOnlyWithoutIDR
            if selected { out.append(.recoveryPoint(frames: recoveryPoints.recoveryFrameCount)) }
        }
        return out
    }
}
