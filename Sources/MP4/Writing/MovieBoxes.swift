import H264

/// The boxes a progressive file and a fragmented init segment share: `ftyp`, `mvhd`, `trak`
/// down to `stbl`, and the `avc1`/`avc3` sample entry. Each writes into a ``BoxWriter``.
enum MovieBoxes {
    /// What the track-level boxes say about the one video track.
    struct Track {
        var trackID: UInt32 = 1
        /// Media timescale (`mdhd`); the movie timescale (`mvhd`) is the same.
        var timescale: UInt32
        /// Media duration in the timescale (0 in an init segment).
        var mediaDuration: UInt64
        /// Presentation duration (`mvhd`, `tkhd`): the edit's duration, or the media's.
        var presentationDuration: UInt64
        /// The first description, for the track's display size.
        var description: MP4SampleDescription
        /// One edit that starts the presentation at this media time, or nil for none.
        var editMediaTime: Int64?
        /// `segment_duration` of the edit (0 in an init segment: "the whole media").
        var editDuration: UInt64
        /// `creation_time` and `modification_time`, seconds since 1904.
        var creationTime: UInt64 = 0
        /// How the pictures are turned for display: `tkhd`'s transformation matrix.
        var orientation: Orientation = .identity
    }

    /// The orientation whose rotation and flip `matrix` (nine `tkhd` values) applies, whatever
    /// its translation; nil when it is no quarter turn with or without a horizontal flip.
    static func orientation(matrix: [UInt32]) -> Orientation? {
        guard matrix.count == 9 else { return nil }
        for mirrored in [false, true] {
            for rotation in Orientation.Rotation.allCases {
                let candidate = Orientation(rotation: rotation, mirrored: mirrored)
                let m = Self.matrix(candidate, width: 0, height: 0)
                if [0, 1, 3, 4].allSatisfy({ m[$0] == matrix[$0] }) { return candidate }
            }
        }
        return nil
    }

    /// `tkhd`'s transformation matrix for `orientation` over a `width` x `height` picture (ISO/IEC
    /// 14496-12 8.3.2: a point (x, y) is displayed at (a x + c y + tx, b x + d y + ty)): the
    /// horizontal flip first, then the clockwise rotation, each moved back into the positive
    /// quadrant, as FFmpeg writes them (rotation 90: `0 1 -1 0`, translated by the height).
    /// Nine values: a, b, u, c, d, v, tx, ty, w (u, v, w in 2.30 fixed point, the rest in 16.16).
    static func matrix(_ orientation: Orientation, width: Int, height: Int) -> [UInt32] {
        // Row-vector affine maps [x y 1] * M, as (a, b, c, d, tx, ty) in whole pixels.
        typealias Affine = (a: Int, b: Int, c: Int, d: Int, tx: Int, ty: Int)
        func then(_ m: Affine, _ n: Affine) -> Affine {  // m, then n
            (m.a &* n.a &+ m.b &* n.c, m.a &* n.b &+ m.b &* n.d, m.c &* n.a &+ m.d &* n.c, m.c &* n.b &+ m.d &* n.d,
             m.tx &* n.a &+ m.ty &* n.c &+ n.tx, m.tx &* n.b &+ m.ty &* n.d &+ n.ty)
        }
        var m: Affine = (1, 0, 0, 1, 0, 0)
        var (w, h) = (width, height)
        if orientation.mirrored { m = then(m, (-1, 0, 0, 1, w, 0)) }
        for _ in 0..<(orientation.rotation.rawValue / 90) {
            m = then(m, (0, 1, -1, 0, h, 0))  // a quarter turn clockwise; the picture's sides swap
            (w, h) = (h, w)
        }
        // Sizes are below 2^16 in a 16.16 field; entries are -1, 0 or 1.
        func fixed(_ v: Int) -> UInt32 { UInt32(bitPattern: Int32(truncatingIfNeeded: v &* 0x1_0000)) }
        return [fixed(m.a), fixed(m.b), 0, fixed(m.c), fixed(m.d), 0, fixed(m.tx), fixed(m.ty), 0x4000_0000]
    }

    static func fileType(_ type: MP4FourCC, major: MP4FourCC, minor: UInt32, compatible: [MP4FourCC], into w: inout BoxWriter) {
        w.box(type) { w in
            w.fourCC(major)
            w.u32(minor)
            for brand in compatible { w.fourCC(brand) }
        }
    }

    /// `mvhd`: version 1 when a time does not fit 32 bits.
    static func movieHeader(_ t: Track, into w: inout BoxWriter) {
        headerWithTimes(.mvhd, t, duration: t.presentationDuration, into: &w) { w in
            w.u32(0x0001_0000)  // rate 1.0
            w.u16(0x0100)  // volume 1.0
            w.zeros(2 + 8)  // reserved
            w.unityMatrix()
            w.zeros(24)  // pre_defined
            w.u32(t.trackID &+ 1)  // next_track_ID; a track ID is small
        }
    }

    /// `mvhd` or `mdhd`: creation and modification times, timescale and `duration` (version 1
    /// when a time does not fit 32 bits), then what `rest` writes.
    private static func headerWithTimes(_ type: MP4FourCC, _ t: Track, duration: UInt64, into w: inout BoxWriter,
                                        _ rest: (inout BoxWriter) -> Void) {
        let long = duration > UInt64(UInt32.max) || t.creationTime > UInt64(UInt32.max)
        w.fullBox(type, version: long ? 1 : 0, flags: 0) { w in
            if long {
                w.u64(t.creationTime); w.u64(t.creationTime); w.u32(t.timescale); w.u64(duration)
            } else {
                w.u32(UInt32(t.creationTime)); w.u32(UInt32(t.creationTime)); w.u32(t.timescale); w.u32(UInt32(duration))
            }
            rest(&w)
        }
    }

    /// `trak` with `tkhd`, `edts` (when there is an edit) and `mdia`; `sampleTable` writes the
    /// body of `stbl` after `stsd`.
    static func track(_ t: Track, descriptions: [MP4SampleDescription], into w: inout BoxWriter,
                      sampleTable: (inout BoxWriter) -> Void) {
        w.box(.trak) { w in
            trackHeader(t, into: &w)
            if let mediaTime = t.editMediaTime {
                w.box(.edts) { w in
                    let long = t.editDuration > UInt64(UInt32.max) || mediaTime > Int64(Int32.max)
                    w.fullBox(.elst, version: long ? 1 : 0, flags: 0) { w in
                        w.u32(1)
                        if long { w.u64(t.editDuration); w.i64(mediaTime) } else {
                            w.u32(UInt32(t.editDuration)); w.i32(Int32(mediaTime))
                        }
                        w.u16(1); w.u16(0)  // media_rate 1.0
                    }
                }
            }
            w.box(.mdia) { w in
                headerWithTimes(.mdhd, t, duration: t.mediaDuration, into: &w) { w in
                    w.u16(0x55C4)  // language "und" (ISO 639-2/T, 5 bits per letter)
                    w.u16(0)
                }
                w.fullBox(.hdlr, version: 0, flags: 0) { w in
                    w.u32(0)
                    w.fourCC(.vide)
                    w.zeros(12)
                    w.append(Array("VideoHandler".utf8))
                    w.u8(0)
                }
                w.box(.minf) { w in
                    w.fullBox(.vmhd, version: 0, flags: 1) { w in w.zeros(8) }  // graphicsmode, opcolor
                    w.box(.dinf) { w in
                        w.fullBox(.dref, version: 0, flags: 0) { w in
                            w.u32(1)
                            w.fullBox(.url, version: 0, flags: 1) { _ in }  // media in this file
                        }
                    }
                    w.box(.stbl) { w in
                        w.fullBox(.stsd, version: 0, flags: 0) { w in
                            w.u32(UInt32(truncatingIfNeeded: descriptions.count))
                            for d in descriptions { sampleEntry(d, into: &w) }
                        }
                        sampleTable(&w)
                    }
                }
            }
        }
    }

    /// `tkhd`: enabled, in movie and preview; the display size is the description's size
    /// stretched by its pixel aspect ratio, as FFmpeg writes it.
    private static func trackHeader(_ t: Track, into w: inout BoxWriter) {
        let long = t.presentationDuration > UInt64(UInt32.max) || t.creationTime > UInt64(UInt32.max)
        w.fullBox(.tkhd, version: long ? 1 : 0, flags: 7) { w in
            if long {
                w.u64(t.creationTime); w.u64(t.creationTime); w.u32(t.trackID); w.u32(0); w.u64(t.presentationDuration)
            } else {
                w.u32(UInt32(t.creationTime)); w.u32(UInt32(t.creationTime)); w.u32(t.trackID); w.u32(0)
                w.u32(UInt32(t.presentationDuration))
            }
            w.zeros(8)  // reserved
            w.u16(0); w.u16(0)  // layer, alternate_group
            w.u16(0); w.u16(0)  // volume 0 (video), reserved
            for v in matrix(t.orientation, width: t.description.width, height: t.description.height) { w.u32(v) }
            var width = t.description.width
            if let par = t.description.pixelAspectRatio, par.verticalSpacing > 0, par.horizontalSpacing != par.verticalSpacing {
                // width <= 2^17 and spacings < 2^32: the product fits 64 bits.
                width = Int((UInt64(width) &* UInt64(par.horizontalSpacing) &+ UInt64(par.verticalSpacing) / 2)
                            / UInt64(par.verticalSpacing))
            }
            w.fixed16(width)
            w.fixed16(t.description.height)
        }
    }

    /// The visual sample entry (`avc1`/`avc3`) with `avcC`, `pasp` and `colr`.
    static func sampleEntry(_ d: MP4SampleDescription, into w: inout BoxWriter) {
        w.box(d.format) { w in
            w.zeros(6)  // reserved
            w.u16(1)  // data_reference_index
            w.zeros(16)  // pre_defined, reserved, pre_defined[3]
            w.u16(UInt16(clamping: d.width))
            w.u16(UInt16(clamping: d.height))
            w.u32(0x0048_0000)  // horizresolution 72 dpi
            w.u32(0x0048_0000)  // vertresolution
            w.u32(0)  // reserved
            w.u16(1)  // frame_count
            w.zeros(32)  // compressorname: empty
            w.u16(0x0018)  // depth
            w.u16(0xFFFF)  // pre_defined -1
            if let record = d.decoderConfiguration {
                // Checked when the writer took the description (MP4Writer.placeInChunk).
                w.box(.avcC) { w in w.append((try? record.serialized()) ?? []) }
            }
            if let c = d.colour {
                w.box(.colr) { w in
                    w.fourCC(c.colourType)
                    if c.colourType == .nclx || c.colourType == "nclc" {
                        w.u16(c.colourPrimaries); w.u16(c.transferCharacteristics); w.u16(c.matrixCoefficients)
                        if c.colourType == .nclx { w.u8(c.fullRange ? 0x80 : 0) }  // QuickTime's nclc has no range byte
                    } else {
                        w.append(c.otherPayload)
                    }
                }
            }
            if let p = d.pixelAspectRatio {
                w.box(.pasp) { w in w.u32(p.horizontalSpacing); w.u32(p.verticalSpacing) }
            }
        }
    }
}
