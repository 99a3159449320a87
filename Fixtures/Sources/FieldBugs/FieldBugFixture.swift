import H264

/// A small stream that reproduces one H.264 delivery bug met in the field, named after it,
/// with what a faulty sender did around it (keyframe flags, sequence headers, the SDP it
/// offered) and the public threads that report it.
///
/// Built with ``StreamBuilder`` (CAVLC, `I_PCM` intra pictures and skipped inter pictures), so
/// every stream decodes in FFmpeg. Use them to test that a pipeline detects or survives the bug:
///
/// ```swift
/// for bug in FieldBugFixture.Bug.allCases {
///     let fixture = try FieldBugFixture(bug)
///     try myPipeline.send(fixture.annexB)
/// }
/// ```
public struct FieldBugFixture: Sendable {
    /// The field bugs, each one stream.
    public enum Bug: String, CaseIterable, Sendable {
        /// SPS and PPS only before the first IDR: a receiver that joins at a later IDR never
        /// starts (pion/obs-wormhole#4, paullouisageneau/libdatachannel#1448,
        /// pedroSG94/RootEncoder#1007).
        case parameterSetsOnlyOnce = "parameter-sets-only-once"
        /// B-frames sent to WebRTC, which decodes in sending order (bluenviron/mediamtx#1317).
        case bFramesForWebRTC = "b-frames-for-webrtc"
        /// The SDP's `profile-level-id` (``FieldBugFixture/negotiatedProfileLevelID``)
        /// disagrees with the SPS: the SPS says level 4, the offer 3.1 (AlexxIT/go2rtc#155).
        case profileLevelIDDisagreesWithSPS = "profile-level-id-disagrees-with-sps"
        /// Every FLV tag flagged as a keyframe (HaishinKit#1515).
        case everyFLVTagKeyframe = "every-flv-tag-keyframe"
        /// The resolution changes mid-stream (new SPS and PPS in band) and no new sequence
        /// header is sent (begeekmyfriend/yasea#840, webstream-labs/jmuxer#47,
        /// yapingcat/gomedia#173).
        case sequenceHeaderNotResent = "sequence-header-not-resent-after-resolution-change"
        /// An I picture with a recovery point SEI (open GOP, intra refresh) not flagged as a
        /// keyframe (w3c/webcodecs#650, bluenviron/mediacommon#341, google/ExoPlayer#2842).
        case recoveryPointNotKeyframe = "recovery-point-not-keyframe"
        /// No access unit delimiters, which MPEG-2 TS for HLS requires.
        case missingAUDsForHLS = "missing-auds-for-hls"
        /// SPS and PPS (with scaling lists, two PPS) too large for one STAP-A within a
        /// 1,200-byte MTU: pion drops such a STAP-A (pion/rtp#112, webrtc-rs/rtc#74).
        case parameterSetsLargerThanMTU = "parameter-sets-larger-than-mtu"
        /// A 1,500-byte user data SEI in the first access unit (an encoder's settings text):
        /// larger than one packet of a WebRTC sender.
        case oversizedSEI = "oversized-sei"
    }

    /// The bug.
    public let bug: Bug
    /// The stream, Annex B.
    public let annexB: [UInt8]
    /// The NAL units of each access unit, in decoding order.
    public let accessUnits: [[NALUnit]]
    /// The first access unit (index in decoding order) where the bug shows.
    public let firstAffectedAccessUnit: Int
    /// The keyframe flag the faulty sender set on each access unit (nil when the bug is not
    /// about flags: a correct sender flags random access points).
    public let senderKeyframeFlags: [Bool]?
    /// The access units before which the faulty sender sent a sequence header with the
    /// parameter sets then in force (nil when the bug is not about sequence headers).
    public let senderSequenceHeaders: [Int]?
    /// The `profile-level-id` the faulty SDP offered, when the bug is about it.
    public let negotiatedProfileLevelID: String?
    /// The path MTU the bug shows at, when it is about packet sizes.
    public let mtu: Int?

    /// Builds the stream of `bug`.
    /// - Throws: the builder's errors (none for these fixed scripts).
    public init(_ bug: Bug) throws(H264Error) {
        self.bug = bug
        var flags: [Bool]?
        var headers: [Int]?
        var negotiated: String?
        var mtu: Int?
        var first = 0
        var units: [[NALUnit]]
        switch bug {
        case .parameterSetsOnlyOnce:
            units = try Self.build(Self.constrainedBaseline, gops: 3, length: 4)
            first = 4
        case .bFramesForWebRTC:
            var options = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 77)
            options.maxNumRefFrames = 2
            var b = try StreamBuilder(options)
            b.parameterSetsAtEveryIDR = true
            try b.append(.init(.i, idr: true, poc: 0))
            for n in 0..<3 {
                let p = Int64(n) * 4
                try b.append(.init(.p, poc: p + 4))
                try b.append(.init(.b, poc: p + 2))
            }
            units = b.accessUnits
            first = 2
        case .profileLevelIDDisagreesWithSPS:
            var options = Self.constrainedBaseline
            options.levelIDC = 40
            units = try Self.build(options, gops: 1, length: 4)
            negotiated = "42e01f"
        case .everyFLVTagKeyframe:
            units = try Self.build(Self.constrainedBaseline, gops: 2, length: 4, everyIDR: true)
            flags = Array(repeating: true, count: units.count)
            first = 1
        case .sequenceHeaderNotResent:
            var large = Self.constrainedBaseline
            large.width = 96
            large.height = 64
            units = try Self.build(Self.constrainedBaseline, gops: 1, length: 3) + Self.build(large, gops: 1, length: 3)
            headers = [0]
            first = 3
        case .recoveryPointNotKeyframe:
            var b = try StreamBuilder(Self.constrainedBaseline)
            try b.append(.init(.i, idr: true))
            try b.append(.init(.p))
            try b.append(.init(.p))
            try b.append(.init(.i, recoveryPoint: SEIRecoveryPoint(recoveryFrameCount: 0, exactMatch: true)))
            try b.append(.init(.p))
            try b.append(.init(.p))
            units = b.accessUnits
            flags = units.indices.map { $0 == 0 }
            first = 3
        case .missingAUDsForHLS:
            units = try Self.build(Self.constrainedBaseline, gops: 2, length: 4, everyIDR: true)
        case .parameterSetsLargerThanMTU:
            units = try Self.largeParameterSets()
            mtu = 1200
        case .oversizedSEI:
            units = try Self.build(Self.constrainedBaseline, gops: 2, length: 3, everyIDR: true)
            let text = Array("x264-like settings text ".utf8)
            let payload = (0..<1500).map { text[$0 % text.count] }
            let sei = try SEINALUnit(messages: [SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(
                uuid: Array(0..<16), payload: payload)))]).nalUnit()
            units[0].insert(sei, at: ParameterSetInserter.insertionIndex(in: units[0]))
        }
        let stream = AnnexB.write(units.joined())
        annexB = stream
        accessUnits = units
        firstAffectedAccessUnit = first
        senderKeyframeFlags = flags
        senderSequenceHeaders = headers
        negotiatedProfileLevelID = negotiated
        self.mtu = mtu
    }

    /// 64x48 Constrained Baseline (42e01e), `pic_order_cnt_type` 2 (output order is decoding
    /// order), one reference frame.
    static var constrainedBaseline: StreamBuilder.SequenceOptions {
        var o = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 66, levelIDC: 30)
        o.constraintSetFlags = [true, true, true, false, false, false]
        o.pocType = 2
        o.maxNumRefFrames = 1
        return o
    }

    /// `gops` groups of an IDR and `length - 1` P pictures; SPS and PPS only first, or at every
    /// IDR with `everyIDR`.
    static func build(_ options: StreamBuilder.SequenceOptions, gops: Int, length: Int,
                      everyIDR: Bool = false) throws(H264Error) -> [[NALUnit]] {
        var b = try StreamBuilder(options)
        b.parameterSetsAtEveryIDR = everyIDR
        for _ in 0..<gops {
            try b.append(.init(.i, idr: true))
            for _ in 1..<length { try b.append(.init(.p)) }
        }
        return b.accessUnits
    }

    /// High profile with scaling lists in the SPS and in two PPS (every `delta_scale` -128, the
    /// longest code): about 1,450 bytes of parameter sets, more than one 1,200-byte packet.
    static func largeParameterSets() throws(H264Error) -> [[NALUnit]] {
        var options = StreamBuilder.SequenceOptions(width: 64, height: 48, profileIDC: 100, levelIDC: 30)
        options.transform8x8Mode = true
        options.pocType = 2
        options.maxNumRefFrames = 1
        var (sps, pps) = try options.makeParameterSets()
        var matrix = ScalingMatrix()
        matrix.present = Array(repeating: true, count: 8)
        matrix.lists = (0..<8).map { ScalingList(deltaScales: Array(repeating: -128, count: $0 < 6 ? 16 : 64)) }
        sps.seqScalingMatrixPresentFlag = true
        sps.scalingMatrix = matrix
        pps.picScalingMatrixPresentFlag = true
        pps.scalingMatrix = matrix
        var b = try StreamBuilder(sps: sps, pps: pps)
        b.parameterSetsAtEveryIDR = true
        for _ in 0..<2 {
            try b.append(.init(.i, idr: true))
            try b.append(.init(.p))
        }
        var units = b.accessUnits
        // A second PPS (id 1), as hardware encoders send: in force, though no slice uses it.
        var second = pps
        second.id = 1
        let extra = try second.nalUnit(header: NALUnitHeader(nalRefIdc: 3, nalUnitType: .pps), context: ParameterSetStore(sps: sps))
        for k in units.indices where units[k].contains(where: { $0.type == .pps }) {
            units[k].insert(extra, at: ParameterSetInserter.insertionIndex(in: units[k]))
        }
        return units
    }
}
