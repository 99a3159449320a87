#!/usr/bin/env python3
"""Helper of make-fixtures.sh: derived and broken streams, AVCC conversions, and the manifest.

    fixturetool.py build STREAMS WORK DESCRIPTIONS MANIFEST

Every fact in the manifest comes from FFmpeg: access-unit sizes and flags from
`ffprobe -f h264 -show_packets`, decoded frame sizes from `ffprobe -show_frames`, and syntax
elements (profile, level, POC type, entropy coder, NAL unit types per access unit, slice types,
SEI payload types) from the `trace_headers` bitstream filter. The script's own NAL split (the
Annex B rule: start codes 00 00 01, zero bytes before a start code belong to the framing) is
checked against FFmpeg's NAL unit list for every stream FFmpeg can decompose.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

# ---------------------------------------------------------------------------------------------
# Annex B


def split_annexb(data):
    """Returns [(nal_start, nal_end)] for an Annex B stream; bytes before the first start code
    are skipped and zero bytes before a start code (trailing_zero_8bits) are not part of a NAL."""
    units = []
    i = data.find(b"\x00\x00\x01")
    while i != -1:
        start = i + 3
        nxt = data.find(b"\x00\x00\x01", start)
        end = len(data) if nxt == -1 else nxt
        while end > start and data[end - 1] == 0:
            end -= 1
        if end > start:
            units.append((start, end))
        i = nxt
    return units


def nal_type(data, span):
    return data[span[0]] & 0x1F


def escape(rbsp):
    """Adds emulation_prevention_three_byte where the RBSP has 00 00 followed by 00..03."""
    out = bytearray()
    zeros = 0
    for b in rbsp:
        if zeros >= 2 and b <= 3:
            out.append(3)
            zeros = 0
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return bytes(out)


def annexb(nals):
    return b"".join(b"\x00\x00\x00\x01" + n for n in nals)


# ---------------------------------------------------------------------------------------------
# FFmpeg


def run(args):
    return subprocess.run(args, check=False, capture_output=True, text=True)


def ffprobe_packets(path):
    out = run(["ffprobe", "-v", "error", "-f", "h264", "-show_packets", "-show_entries",
               "packet=size,flags", "-of", "csv=p=0", path]).stdout
    packets = []
    for line in out.splitlines():
        if line.strip():
            size, flags = line.split(",")[:2]
            packets.append((int(size), flags))
    return packets


def ffprobe_frames(path):
    # -flags unaligned: apply cropping on the left even when it breaks FFmpeg's alignment.
    out = run(["ffprobe", "-v", "quiet", "-flags", "unaligned", "-f", "h264", "-show_frames", "-show_entries",
               "frame=width,height", "-of", "json", path]).stdout
    return [(f["width"], f["height"]) for f in json.loads(out or "{}").get("frames", [])]


def framemd5(path):
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-f", "h264", "-i", path, "-f", "framemd5", "-"]).stdout
    return [line.split(",")[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]


TRACE_LINE = re.compile(r"\[trace_headers @ [^\]]+\] (.*)$")
ELEMENT = re.compile(r"^(\d+)\s+(\S+)\s+[01]+ = (-?\d+)$")


def trace(path):
    """FFmpeg's trace_headers decomposition: a list of packets, each a list of NAL units, each
    a dict of syntax element name -> value (first occurrence) plus 'sei_types'."""
    err = run(["ffmpeg", "-nostdin", "-nostats", "-v", "trace", "-f", "h264", "-i", path, "-c", "copy",
               "-bsf:v", "trace_headers", "-f", "null", "-"]).stderr
    packets = None
    failures = 0
    for line in err.splitlines():
        m = TRACE_LINE.search(line)
        if not m:
            continue
        text = m.group(1).strip()
        if text.startswith("Packet:"):
            packets = [] if packets is None else packets
            packets.append([])
            continue
        if packets is None:
            continue  # the extradata block before the first packet
        if text.startswith("Failed") or "rror" in text:
            failures += 1
        e = ELEMENT.match(text)
        if not e:
            continue
        name, value = e.group(2), int(e.group(3))
        if name == "forbidden_zero_bit":
            packets[-1].append({"sei_types": []})
            continue
        if not packets[-1]:
            continue
        nal = packets[-1][-1]
        if name == "last_payload_type_byte":
            nal["sei_types"].append(value)  # payload types < 255 in every stream here
        nal.setdefault(name, value)
    return packets or [], failures


# ---------------------------------------------------------------------------------------------
# Facts


def sps_size(sps):
    """Cropped width and height from an SPS's syntax elements (7.4.2.1.1)."""
    chroma = sps.get("chroma_format_idc", 1)
    if sps.get("separate_colour_plane_flag", 0):
        chroma = 0
    sub_w = {1: 2, 2: 2, 3: 1}.get(chroma, 1)
    sub_h = {1: 2, 2: 1, 3: 1}.get(chroma, 1)
    frame_mbs_only = sps["frame_mbs_only_flag"]
    unit_x = 1 if chroma == 0 else sub_w
    unit_y = (2 - frame_mbs_only) * (1 if chroma == 0 else sub_h)
    width = (sps["pic_width_in_mbs_minus1"] + 1) * 16
    height = (2 - frame_mbs_only) * (sps["pic_height_in_map_units_minus1"] + 1) * 16
    coded = (width, height)
    if sps.get("frame_cropping_flag", 0):
        width -= unit_x * (sps["frame_crop_left_offset"] + sps["frame_crop_right_offset"])
        height -= unit_y * (sps["frame_crop_top_offset"] + sps["frame_crop_bottom_offset"])
    return (width, height), coded


def counts(values):
    out = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (len(kv[0]), kv[0])))


SLICE_TYPES = {0: "P", 1: "B", 2: "I", 3: "SP", 4: "SI"}


def annexb_facts(path, strict, syntax_from=None):
    """Facts of an Annex B stream. strict: the stream is well-formed, so FFmpeg's NAL list must
    equal this script's split and the sizes computed from the SPS must equal the decoded ones.
    syntax_from: a stream with the same SPS to trace when FFmpeg cannot decompose this one."""
    data = open(path, "rb").read()
    packets = ffprobe_packets(path)
    frames = ffprobe_frames(path)
    traced, failures = trace(path)
    spans = split_annexb(data)
    split_types = [nal_type(data, s) for s in spans]
    # NAL unit types per access unit: ffprobe's packet boundaries over this script's split.
    per_packet, offset = [], 0
    for size, _ in packets:
        per_packet.append([nal_type(data, sp) for sp in spans if offset <= sp[0] < offset + size])
        offset += size
    traced_per_packet = [[n["nal_unit_type"] for n in p if "nal_unit_type" in n] for p in traced]
    if strict:
        assert traced_per_packet == per_packet, (path, traced_per_packet, per_packet)
        assert sum(s for s, _ in packets) == len(data), path
        assert failures == 0, path
    nals = [n for p in traced for n in p]
    if syntax_from and not any(n.get("nal_unit_type") == 7 for n in nals):
        nals = [n for p in trace(syntax_from)[0] for n in p if n.get("nal_unit_type") == 7]
    spss = [n for n in nals if n.get("nal_unit_type") == 7]
    ppss = [n for n in nals if n.get("nal_unit_type") == 8]
    slices = [n for n in nals if n.get("nal_unit_type") in (1, 5) and "slice_type" in n]
    sps = spss[0]
    (width, height), (coded_w, coded_h) = sps_size(sps)
    resolutions = []
    for s in spss:
        size = list(sps_size(s)[0])
        if not resolutions or resolutions[-1] != size:
            resolutions.append(size)
    decoded = []
    for f in frames:
        if not decoded or decoded[-1] != list(f):
            decoded.append(list(f))
    if strict:
        assert decoded == resolutions, (path, decoded, resolutions)
    chroma = sps.get("chroma_format_idc", 1)
    return {
        "profile_idc": sps["profile_idc"],
        "level_idc": sps["level_idc"],
        "chroma_format_idc": chroma,
        "bit_depth_luma": sps.get("bit_depth_luma_minus8", 0) + 8,
        "bit_depth_chroma": sps.get("bit_depth_chroma_minus8", 0) + 8,
        "width": width,
        "height": height,
        "coded_width": coded_w,
        "coded_height": coded_h,
        "frame_mbs_only": sps["frame_mbs_only_flag"] == 1,
        "mbaff": sps.get("mb_adaptive_frame_field_flag", 0) == 1,
        "poc_type": sps["pic_order_cnt_type"],
        "entropy_coder": ("CABAC" if ppss[0]["entropy_coding_mode_flag"] else "CAVLC") if ppss else None,
        "frame_count": len(frames),
        "idr_count": sum(1 for p in per_packet if 5 in p),
        "access_unit_count": len(packets),
        "access_unit_sizes": [s for s, _ in packets],
        "nal_type_counts": counts(split_types),
        "slice_type_counts": {k: v for k, v in
                              sorted(counts(SLICE_TYPES[n["slice_type"] % 5] for n in slices).items())},
        "field_slices": sum(1 for n in slices if n.get("field_pic_flag", 0) == 1),
        "reference_b_slices": sum(1 for n in slices if n["slice_type"] % 5 == 1 and n["nal_ref_idc"] > 0),
        "max_slices_per_access_unit": max((sum(1 for t in p if t in (1, 5)) for p in per_packet), default=0),
        "sei_payload_type_counts": counts(t for n in nals for t in n["sei_types"]),
        "resolutions": resolutions,
    }


# ---------------------------------------------------------------------------------------------
# Derived streams


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def nal_list(data):
    return [data[a:b] for a, b in split_annexb(data)]


USER_DATA_UUID = b"SWIFTH264FIXTURE"  # 16 bytes: uuid_iso_iec_11578
# RBSP bytes that need emulation prevention: 00 00 00, 00 00 01, 00 00 02, 00 00 03 (escaped
# to 00 00 03 03), and 00 00 at the very end of the payload.
USER_DATA = bytes.fromhex("000000 000001 000002 000003 00000303 0000 04 000000000000 0000")


def emulation_sei():
    payload = USER_DATA_UUID + USER_DATA
    assert len(payload) < 255
    rbsp = bytes([5, len(payload)]) + payload + b"\x80"
    return b"\x06" + escape(rbsp)


class Bits:
    """A bit cursor over an RBSP, for the few header fields the PAFF rewrite touches."""

    def __init__(self, rbsp):
        self.bits = "".join(f"{b:08b}" for b in rbsp)
        self.pos = 0

    def u(self, n):
        value = int(self.bits[self.pos:self.pos + n] or "0", 2)
        self.pos += n
        return value

    def ue(self):
        zeros = 0
        while self.bits[self.pos + zeros] == "0":
            zeros += 1
        self.pos += zeros
        return self.u(zeros + 1) - 1

    def rest(self):
        """The bits from here up to (not including) rbsp_stop_one_bit."""
        return self.bits[self.pos:self.bits.rindex("1")]


def ue_bits(value):
    code = bin(value + 1)[2:]
    return "0" * (len(code) - 1) + code


def rbsp_bytes(bits):
    bits += "1"
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


def unescape(ebsp):
    return re.sub(b"\x00\x00\x03", b"\x00\x00", ebsp)  # every 00 00 03 in an EBSP is an escape


def paff_from_fields(fields):
    """Field pictures (PAFF) from an x264 all-intra Main CAVLC encode of separated fields
    (top, bottom, top, ... each a half-height progressive IDR picture with POC type 2):
    the SPS gets frame_mbs_only_flag 0 (mb_adaptive_frame_field_flag 0, so field pictures, not
    MBAFF); each slice gets field_pic_flag 1 and bottom_field_flag; the bottom field of each pair
    becomes a non-IDR reference I field with the top field's frame_num 0. The slice data is
    copied bit for bit. The result is a valid stream but its pictures are not the source's:
    field macroblocks read their coefficients in field scan order and filter horizontal
    macroblock edges with bS 3, where x264 coded frame scan and bS 4."""
    out = []
    picture = 0
    for nal in nal_list(fields):
        kind = nal[0] & 0x1F
        bits = Bits(unescape(nal[1:]))
        if kind == 7:
            head = bits.bits[:24]
            assert bits.u(8) in (66, 77)  # x264 labels this Constrained Baseline
            bits.u(16)
            sps_id = bits.ue()
            log2_max_frame_num = bits.ue() + 4
            poc_type = bits.ue()
            assert poc_type == 2
            refs, gaps = bits.ue(), bits.u(1)
            width, height = bits.ue(), bits.ue()
            assert bits.u(1) == 1
            # Main (77), constraint_set0_flag 0 (Baseline has no field pictures), constraint_set1_flag 1.
            head = f"{77:08b}" + "01" + head[10:]
            new = (head + ue_bits(sps_id) + ue_bits(log2_max_frame_num - 4) + ue_bits(poc_type) + ue_bits(refs) +
                   str(gaps) + ue_bits(width) + ue_bits(height) + "0" + "0" + bits.rest())
        elif kind == 8 or kind == 6:
            new = None
        else:
            assert kind == 5
            first_mb, slice_type, pps_id = bits.ue(), bits.ue(), bits.ue()
            assert slice_type % 5 == 2 and first_mb == 0
            frame_num = bits.u(log2_max_frame_num)
            idr_pic_id = bits.ue()
            marking = bits.u(2)
            assert frame_num == 0 and marking == 0
            bottom = picture % 2
            fields_header = ue_bits(first_mb) + ue_bits(slice_type) + ue_bits(pps_id) + "0" * log2_max_frame_num + "1" + str(bottom)
            if bottom:
                new = fields_header + "0" + bits.rest()  # adaptive_ref_pic_marking_mode_flag
                nal = bytes([(nal[0] & 0x60) | 1])  # nal_unit_type 1, same nal_ref_idc
            else:
                new = fields_header + ue_bits((picture // 2) % 2) + "00" + bits.rest()
            picture += 1
        if new is None:
            if picture % 2 == 0:
                out.append(nal)  # PPS and SEI before a top field only
            continue
        if kind == 7 and picture % 2 == 1:
            continue  # no parameter sets between the two fields of a frame
        out.append(nal[:1] + escape(rbsp_bytes(new)))
    return annexb(out)


def derive(out, work):
    """Writes the streams made from the encoded ones; returns {file: (expect, strict)}."""
    extra = {}
    base = open(os.path.join(out, "baseline-cavlc.264"), "rb").read()
    nals = nal_list(base)
    spans = split_annexb(base)

    # Truncated in the middle of the last IDR slice; the stream ends there.
    last = [sp for sp in spans if nal_type(base, sp) == 5][-1]
    cut = last[0] + (last[1] - last[0]) // 2
    write(os.path.join(out, "truncated.264"), base[:cut])
    extra["truncated.264"] = ({"truncated": True, "truncated_nal_type": nal_type(base, last),
                               "truncated_nal_size": cut - last[0],
                               "untruncated_nal_size": last[1] - last[0]}, False)

    # Every PPS removed.
    write(os.path.join(out, "missing-pps.264"), annexb(n for n in nals if n[0] & 0x1F != 8))
    extra["missing-pps.264"] = ({"missing_pps": True, "sps_facts_from": "baseline-cavlc.264"}, False)

    # Zero bytes (trailing_zero_8bits) after every NAL unit, before the next start code.
    write(os.path.join(out, "trailing-zeros.264"), b"".join(b"\x00\x00\x00\x01" + n + b"\x00\x00\x00" for n in nals))
    extra["trailing-zeros.264"] = ({"trailing_zero_bytes_per_nal": 3, "same_nal_units_as": "baseline-cavlc.264"}, True)

    # Leading garbage before the first start code.
    garbage = b"GARBAGE\xff\xfe\x01\x02\x03\x04\x05\x06\x07"
    assert b"\x00\x00\x01" not in garbage
    write(os.path.join(out, "leading-garbage.264"), garbage + base)
    extra["leading-garbage.264"] = ({"leading_garbage_bytes": len(garbage),
                                     "same_nal_units_as": "baseline-cavlc.264"}, False)

    # A crafted user-data SEI whose payload needs every kind of emulation prevention.
    sei = emulation_sei()
    pps_index = next(i for i, n in enumerate(nals) if n[0] & 0x1F == 8)
    crafted = nals[:pps_index + 1] + [sei] + nals[pps_index + 1:]
    write(os.path.join(out, "emulation-prevention.264"), annexb(crafted))
    assert b"\x00\x00\x03\x03" in sei and b"\x00\x00\x03\x00" in sei
    extra["emulation-prevention.264"] = ({
        "crafted_sei_nal_index": pps_index + 1,
        "crafted_sei_nal_hex": sei.hex(),
        "crafted_sei_rbsp_hex": (bytes([6, 5, len(USER_DATA_UUID + USER_DATA)]) + USER_DATA_UUID + USER_DATA + b"\x80").hex(),
        "crafted_sei_emulation_prevention_bytes": len(sei) - 1 - (2 + len(USER_DATA_UUID + USER_DATA) + 1),
        "user_data_unregistered_uuid_hex": USER_DATA_UUID.hex(),
        "user_data_unregistered_payload_hex": USER_DATA.hex(),
    }, True)
    assert framemd5(os.path.join(out, "emulation-prevention.264")) == framemd5(os.path.join(out, "baseline-cavlc.264"))

    # cabac_zero_words after every slice: each slice NAL unit ends in 00 00 03 00 00 03.
    cabac = open(os.path.join(out, "main-cabac-bframes.264"), "rb").read()
    padded = [n + b"\x00\x00\x03\x00\x00\x03" if n[0] & 0x1F in (1, 5) else n for n in nal_list(cabac)]
    write(os.path.join(out, "cabac-zero-words.264"), annexb(padded))
    assert framemd5(os.path.join(out, "cabac-zero-words.264")) == framemd5(os.path.join(out, "main-cabac-bframes.264"))
    extra["cabac-zero-words.264"] = ({"cabac_zero_words_per_slice": 2, "slice_nal_suffix_hex": "000003000003",
                                      "same_pictures_as": "main-cabac-bframes.264"}, True)

    # PAFF field pictures, rewritten from an encode of separated fields (x264 makes MBAFF only).
    fields = open(os.path.join(work, "fields.264"), "rb").read()
    write(os.path.join(out, "paff-fields.264"), paff_from_fields(fields))
    # FFmpeg must decode it without a single complaint, as 64x64 frames woven from the fields.
    check = run(["ffmpeg", "-nostdin", "-v", "warning", "-err_detect", "crccheck+bitstream+buffer+explode",
                 "-f", "h264", "-i", os.path.join(out, "paff-fields.264"), "-f", "null", "-"])
    assert check.returncode == 0 and not check.stderr.strip(), check.stderr
    extra["paff-fields.264"] = ({}, True)

    # AVCC: 4- and 2-byte lengths from main-cabac-bframes; 1-byte lengths from a tiny encode
    # without SEI (every NAL unit < 256 bytes).
    for name, source, length, drop in (("avcc-len4", "avcc-source.264", 4, ()),
                                       ("avcc-len2", "avcc-source.264", 2, ()),
                                       ("avcc-len1", "tiny.264", 1, (6,))):
        extra[name + ".avcc"] = avcc(out, os.path.join(work, source), name, length, drop, work)
    return extra


def avcc_record(sps, pps, length):
    assert sps[1] in (66, 77, 88), "the High-profile avcC extension is not written here"
    return (bytes([1, sps[1], sps[2], sps[3], 0xFC | (length - 1), 0xE1]) + len(sps).to_bytes(2, "big") + sps +
            bytes([1]) + len(pps).to_bytes(2, "big") + pps)


def avcc(out, source, name, length, drop, work):
    data = open(source, "rb").read()
    packets = ffprobe_packets(source)
    spans = split_annexb(data)
    offset = 0
    samples = []
    for size, _ in packets:
        samples.append([data[a:b] for a, b in spans if offset <= a < offset + size])
        offset += size
    assert offset == len(data)
    params = [n for s in samples for n in s if n[0] & 0x1F in (7, 8)]
    spss = {n for n in params if n[0] & 0x1F == 7}
    ppss = {n for n in params if n[0] & 0x1F == 8}
    assert len(spss) == 1 and len(ppss) == 1, "one SPS and one PPS go into the avcC record"
    sps, pps = spss.pop(), ppss.pop()
    samples = [[n for n in s if n[0] & 0x1F not in (7, 8) and n[0] & 0x1F not in drop] for s in samples]
    body = bytearray()
    sizes = []
    for s in samples:
        start = len(body)
        for n in s:
            assert len(n) < 1 << (8 * length), (name, len(n))
            body += len(n).to_bytes(length, "big") + n
        sizes.append(len(body) - start)
    write(os.path.join(out, name + ".avcc"), bytes(body))
    write(os.path.join(out, name + ".avcc-config"), avcc_record(sps, pps, length))
    # Check: back to Annex B (parameter sets from the record first) decodes to the same pictures.
    back = os.path.join(work, name + ".back.264")
    write(back, annexb([sps, pps] + [n for s in samples for n in s]))
    assert framemd5(back) == framemd5(source), name
    types = [n[0] & 0x1F for s in samples for n in s]
    return {
        "length_size": length,
        "config_file": name + ".avcc-config",
        "source": back,
        "access_unit_sizes": sizes,
        "nal_type_counts": counts(types),
        "removed_nal_types": sorted({7, 8} | set(drop)),
    }


# ---------------------------------------------------------------------------------------------


def tool_version(args, pattern):
    out = run(args)
    m = re.search(pattern, out.stdout + out.stderr)
    return m.group(0) if m else "unknown"


def build(out, work, descriptions, manifest_path):
    desc = dict(line.rstrip("\n").split("\t", 1) for line in open(descriptions) if line.strip())
    desc.update({
        "truncated.264": "Broken: baseline-cavlc.264 cut in the middle of its second IDR slice NAL unit; the file ends there",
        "missing-pps.264": "Broken: baseline-cavlc.264 with every PPS removed; slices refer to a PPS that never arrives",
        "trailing-zeros.264": "baseline-cavlc.264 with 3 zero bytes (trailing_zero_8bits) after every NAL unit, before the next 4-byte start code",
        "leading-garbage.264": "baseline-cavlc.264 preceded by 16 non-zero bytes with no start code",
        "emulation-prevention.264": "baseline-cavlc.264 with a crafted user_data_unregistered SEI after the first PPS whose payload holds 00 00 00, 00 00 01, 00 00 02 and 00 00 03 (escaped as 00 00 03 00 ... 00 00 03 03)",
        "cabac-zero-words.264": "main-cabac-bframes.264 with two cabac_zero_words after every slice: each slice NAL unit ends in 00 00 03 00 00 03",
        "paff-fields.264": "Field pictures (PAFF): Main, CAVLC, every frame a top IDR I field and a bottom non-IDR reference I field (field_pic_flag 1, mb_adaptive_frame_field_flag 0); made by rewriting the SPS and slice headers of an x264 encode of separated fields (the slice data is copied, so the decoded pictures are valid but scrambled: field scan order)",
        "avcc-len4.avcc": "AVCC (length-prefixed, 4-byte lengths) of main-cabac-bframes.264, access units back to back; SPS and PPS only in avcc-len4.avcc-config (an AVCDecoderConfigurationRecord)",
        "avcc-len2.avcc": "AVCC with 2-byte lengths of main-cabac-bframes.264; SPS and PPS only in avcc-len2.avcc-config",
        "avcc-len1.avcc": "AVCC with 1-byte lengths of a 32x32 Main stream (QP 40, SEI removed so every NAL unit is < 256 bytes); SPS and PPS only in avcc-len1.avcc-config",
    })
    extra = derive(out, work)
    fixtures = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".avcc-config"):
            continue
        path = os.path.join(out, name)
        data = open(path, "rb").read()
        entry = {"file": name, "kind": "avcc" if name.endswith(".avcc") else "annexb",
                 "description": desc[name], "bytes": len(data),
                 "sha256": hashlib.sha256(data).hexdigest()}
        expect, strict = {}, True
        if name.endswith(".avcc"):
            info = extra[name]
            facts = annexb_facts(info["source"], True)
            facts["access_unit_sizes"] = info["access_unit_sizes"]
            facts["nal_type_counts"] = info["nal_type_counts"]
            entry["length_size"] = info["length_size"]
            entry["config_file"] = info["config_file"]
            expect = {"removed_nal_types": info["removed_nal_types"]}
        else:
            if name in extra:
                expect, strict = extra[name]
            source = expect.get("sps_facts_from")
            facts = annexb_facts(path, strict, os.path.join(out, source) if source else None)
        entry.update(facts)
        entry["expect"] = expect
        fixtures.append(entry)
    manifest = {
        "generator": "Fixtures/make-fixtures.sh",
        "tools": {
            "x264": tool_version(["x264", "--version"], r"x264 [0-9.]+ [0-9a-f]+"),
            "ffmpeg": tool_version(["ffmpeg", "-version"], r"ffmpeg version \S+"),
        },
        "fixtures": fixtures,
    }
    text = json.dumps(manifest, indent=1)
    # One line per list of numbers and per small object, so the manifest reads as a table.
    text = re.sub(r"\[[-0-9,\s]*\]", lambda m: re.sub(r"\s+", "", m.group(0)).replace(",", ", "), text)
    text = re.sub(r"\{[^{}\[\]]*\}", lambda m: re.sub(r"\s*\n\s*", " ", m.group(0)) if len(m.group(0)) < 400 else m.group(0), text)
    with open(manifest_path, "w") as f:
        f.write(text + "\n")
    update_readme(os.path.join(os.path.dirname(manifest_path), "README.md"), fixtures)


def update_readme(path, fixtures):
    """Rewrites the table between the README's table markers from the manifest."""
    begin, end = "<!-- fixture table: generated by make-fixtures.sh -->", "<!-- end of fixture table -->"
    text = open(path).read()
    if begin not in text or end not in text:
        return
    rows = ["| file | bytes | profile | level | size | frames | AUs | IDR | POC | entropy | what |",
            "|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|"]
    for f in fixtures:
        rows.append(f"| `{f['file']}` | {f['bytes']} | {f['profile_idc']} | {f['level_idc']} | "
                    f"{f['width']}x{f['height']} | {f['frame_count']} | {f['access_unit_count']} | {f['idr_count']} | "
                    f"{f['poc_type']} | {f['entropy_coder'] or '-'} | {f['description']} |")
    total = sum(f["bytes"] for f in fixtures) + sum(
        os.path.getsize(os.path.join(os.path.dirname(path), "Streams", f["config_file"])) for f in fixtures if "config_file" in f)
    rows.append("")
    rows.append(f"{len(fixtures)} streams, {total} bytes in all (with the AVCC configuration records).")
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    with open(path, "w") as f:
        f.write(head + begin + "\n" + "\n".join(rows) + "\n" + end + tail)


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] != "build":
        sys.exit(__doc__)
    build(*sys.argv[2:])
