/// The scalar values of a ``SliceHeader`` in four 128-bit words: nine 32-bit lanes and 28
/// byte lanes, each value at the full width of its public type (nothing is narrowed, so every
/// value a property can hold reads back exactly).
///
/// Why a few words: a struct of many stored scalars is copied and destroyed field by field,
/// and across modules through its value witnesses (a tuple holding it through the runtime's
/// generic tuple witnesses: measured, more than about seven stored leaves); four words are
/// moved like any small struct. A lane is read by shifting its word (a load the compiler
/// narrows) and written with one store of its width at its place in memory. (A `SIMD16<UInt32>`
/// also copies as one value, but lane arithmetic on it made the compiler keep the header in
/// vector registers and store all 64 bytes back after every element coded.)
///
/// The coding functions do not read back a lane they have just written (they keep the value
/// in a local): a byte stored and then read by a wider load stalls the processor.
///
/// Measured against plain stored properties (issue 28, release builds, medians of alternating
/// runs, Docs/Benchmarks.md): a `SliceHeader` of 36 stored scalars parsed 12% fewer headers per
/// second with a new header per slice (`slice_headers_per_s`) and 42% fewer into a kept header
/// (`slice_headers_reused_per_s`: so wide a struct is copied and destroyed through its value
/// witnesses, field by field, with their retains and releases: a third of that loop's profile),
/// and `h264 inspect` of
/// small-nal.264 took 12% more CPU time. The lanes cost their accessors here: each is forced
/// inline (`@inline(__always)`, so that its offset is a constant and the switch folds away);
/// without that, both slice-header keys fell 40-42%. (``SliceHeader``'s public properties, one
/// lane each, are left to the inliner: forcing them too gained 5-6% on the slice-header keys
/// and 5% on `access_units_gbps`, not worth 58 annotations.)
///
/// Lanes of ``SliceHeader`` (byte offsets: byte `b` is bits `8 * (b % 16)` and up of word
/// `b / 16`; a 32-bit lane `k` is bytes `4k..<4k+4`):
///
/// | bytes | values |
/// |---|---|
/// | 0...35, 32-bit | `first_mb_in_slice`, `frame_num`, `idr_pic_id`, `pic_order_cnt_lsb`, `delta_pic_order_cnt_bottom`, `delta_pic_order_cnt[0]`, `delta_pic_order_cnt[1]`, `slice_group_change_cycle`, the NAL unit header's extension bits |
/// | 36...39 | NAL unit header: `forbidden_zero_bit`, `nal_ref_idc`, `nal_unit_type`, extension flag |
/// | 40...51 | `slice_type`, `pic_parameter_set_id`, `colour_plane_id`, `redundant_pic_cnt`, `num_ref_idx_l0/l1_active_minus1`, `cabac_init_idc`, `slice_qp_delta`, `slice_qs_delta`, `disable_deblocking_filter_idc`, `slice_alpha_c0_offset_div2`, `slice_beta_offset_div2` |
/// | 52...58 | flags: `field_pic_flag`, `bottom_field_flag`, `direct_spatial_mv_pred_flag`, `num_ref_idx_active_override_flag`, `ref_pic_list_modification_flag_l0/l1`, `sp_for_switch_flag` (59 unused, 0) |
/// | 60...63 (32-bit lane 15) | `dec_ref_pic_marking()`: its three flags and whether it is there; all 0 while it is absent |
@usableFromInline
struct SliceHeaderFields: Hashable, Sendable {
    // Four 128-bit words: bytes 0...15, 16...31, 32...47, 48...63.
    @usableFromInline var w0: UInt128
    @usableFromInline var w1: UInt128
    @usableFromInline var w2: UInt128
    @usableFromInline var w3: UInt128

    /// Every lane 0.
    @inlinable init() { w0 = 0; w1 = 0; w2 = 0; w3 = 0 }

    /// The lanes of a fresh header for `nalUnitHeader` (``SliceHeader/init(nalUnitHeader:)``):
    /// every value 0 but the NAL unit header's and `slice_type` (I, 2), made in registers and
    /// stored whole, so that the wide loads that read them back are served by the stores
    /// (bytes stored one by one and read back by a wider load stall the processor).
    @inlinable @inline(__always) init(nalUnitHeader h: NALUnitHeader, sliceType: SliceType) {
        w0 = 0; w1 = 0; w3 = 0
        // Bytes 32...35: the extension bits; 36...39: the header's bytes; 40: slice_type.
        var low = UInt64(h.extensionBits)
        low |= UInt64(h.forbiddenZeroBit) &<< 32
        low |= UInt64(h.nalRefIdc) &<< 40
        low |= UInt64(h.nalUnitType.rawValue) &<< 48
        low |= UInt64(h.extensionFlag ? 1 : 0) &<< 56
        w2 = UInt128(low) | UInt128(sliceType.rawValue) &<< 64
    }

    /// The 128-bit word holding byte `offset` (0...63).
    @inlinable @inline(__always) func word128(_ offset: Int) -> UInt128 {
        switch offset &>> 4 {
        case 0: return w0
        case 1: return w1
        case 2: return w2
        default: return w3
        }
    }

    /// Stores `value` at byte `offset` of the 128-bit word that holds it (`offset % 16` plus
    /// the value's size is at most 16).
    @inlinable @inline(__always) mutating func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        #if _endian(little)
        let at = offset & 15
        #else
        let at = 16 &- (offset & 15) &- MemoryLayout<T>.size
        #endif
        switch offset &>> 4 {
        case 0: withUnsafeMutableBytes(of: &w0) { $0.storeBytes(of: value, toByteOffset: at, as: T.self) }
        case 1: withUnsafeMutableBytes(of: &w1) { $0.storeBytes(of: value, toByteOffset: at, as: T.self) }
        case 2: withUnsafeMutableBytes(of: &w2) { $0.storeBytes(of: value, toByteOffset: at, as: T.self) }
        default: withUnsafeMutableBytes(of: &w3) { $0.storeBytes(of: value, toByteOffset: at, as: T.self) }
        }
    }

    /// The 32-bit lane `lane` (0...15): bits `32 * (lane % 4)` and up of a 128-bit word.
    @inlinable subscript(word lane: Int) -> UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word128(lane &<< 2) &>> ((lane & 3) &* 32)) }
        @inline(__always) set { store(newValue, at: lane &<< 2) }
    }

    /// The byte lane at byte offset `offset` (0...63): bits `8 * (offset % 16)` and up of a
    /// 128-bit word.
    @inlinable subscript(byte offset: Int) -> UInt8 {
        @inline(__always) get { UInt8(truncatingIfNeeded: word128(offset) &>> ((offset & 15) &* 8)) }
        @inline(__always) set { store(newValue, at: offset) }
    }

    /// `IdrPicFlag` of the NAL unit header in lanes 36...39 and 8 (``NALUnitHeader/idrPicFlag``,
    /// without building the header).
    @inlinable var idrPicFlag: Bool {
        @inline(__always) get {
            let type = self[byte: 38]
            return type == NALUnitType.idrSlice.rawValue
                || (type == NALUnitType.sliceExtension.rawValue && !self[flag: 39] && self[word: 8] >> 22 == 0)
        }
    }

    /// A flag held in the byte lane at `offset` (0 or 1).
    @inlinable subscript(flag offset: Int) -> Bool {
        @inline(__always) get { self[byte: offset] != 0 }
        @inline(__always) set { self[byte: offset] = newValue ? 1 : 0 }
    }
}
