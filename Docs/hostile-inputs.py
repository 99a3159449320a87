#!/usr/bin/env python3
"""Writes the hostile inputs of Docs/Limits.md ("Resource classes") into a directory.

    python3 Docs/hostile-inputs.py OUT_DIR [--big STREAM]

Each file reproduces one class of input that once made `h264` use memory, time or output out
of proportion to it, at the sizes the measurements in Docs/Limits.md use:

  format-changes-200k.264   32 SPS, 256 PPS, then 200,000 access units, each an SPS 0 whose
  format-changes-1m.264     level_idc alternates and a 3-byte IDR slice (1,000,000: 14 MB)
  flv-huge-header.flv       a 16.7 MB AVC sequence header (31 SPS, 224 PPS of 65,535 bytes),
                            then 1,000 keyframe tags
  avcc-huge-record.avcc     700 bytes of IDR samples, and avcc-huge-record.avcC: an 18.7 MB
                            record (31 SPS, 255 PPS of 65,535 bytes)
  pps-240x64k.264           1 SPS, 240 PPS of 65,535 bytes, then 10,000 tiny access units
  sei-16m.264               one SEI NAL unit with a 16 MiB user_data_unregistered payload
  bad-headers-20m.264       20 MB of `00 00 01 80` (a NAL unit header with forbidden_zero_bit)
  no-start-code-1g.bin      1 GiB of 0xFF bytes
  big-1g.264                with --big STREAM: STREAM repeated to 1 GiB (a real stream)
"""
import os
import struct
import sys


class Bits:
    def __init__(self):
        self.bits = []

    def u(self, value, n):
        self.bits += [(value >> (n - 1 - i)) & 1 for i in range(n)]

    def ue(self, value):
        v = value + 1
        n = v.bit_length()
        self.u(0, n - 1)
        self.u(v, n)

    def se(self, value):
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def trailing(self):
        self.bits.append(1)
        while len(self.bits) % 8:
            self.bits.append(0)

    def bytes(self):
        out = bytearray()
        for i in range(0, len(self.bits), 8):
            byte = 0
            for b in self.bits[i:i + 8]:
                byte = byte << 1 | b
            out.append(byte)
        return bytes(out)


def sps(sps_id, level=30):
    b = Bits()
    b.u(0x67, 8); b.u(66, 8); b.u(0xC0, 8); b.u(level, 8)
    b.ue(sps_id); b.ue(0); b.ue(2); b.ue(1); b.u(0, 1); b.ue(0); b.ue(0)
    b.u(1, 1); b.u(1, 1); b.u(0, 1); b.u(0, 1)
    b.trailing()
    return b.bytes()


def pps(pps_id, sps_id):
    b = Bits()
    b.u(0x68, 8); b.ue(pps_id); b.ue(sps_id); b.u(0, 1); b.u(0, 1)
    b.ue(0); b.ue(0); b.ue(0); b.u(0, 1); b.u(0, 2); b.se(0); b.se(0); b.se(0); b.u(0, 3)
    b.trailing()
    return b.bytes()


def padded(unit, size):
    return unit + b"\x5a" * (size - len(unit))


IDR = bytes([0x65, 0x88, 0x80])
SC4 = b"\x00\x00\x00\x01"
SC3 = b"\x00\x00\x01"


def format_changes(count):
    out = bytearray()
    for i in range(32):
        out += SC4 + sps(i)
    for i in range(256):
        out += SC4 + pps(i, i % 32)
    a, b = SC4 + sps(0, 10) + SC3 + IDR, SC4 + sps(0, 11) + SC3 + IDR
    pair = a + b
    out += pair * (count // 2) + (a if count % 2 else b"")
    return bytes(out)


def avcc_record(pps_count):
    s = [padded(sps(i), 65535) for i in range(31)]
    p = [padded(pps(i, 0), 65535) for i in range(pps_count)]
    out = bytearray([1, s[0][1], s[0][2], s[0][3], 0xFF, 0xE0 | len(s)])
    for u in s:
        out += struct.pack(">H", len(u)) + u
    out.append(len(p))
    for u in p:
        out += struct.pack(">H", len(u)) + u
    return bytes(out)


def flv_tag(tag_type, timestamp, body):
    header = bytes([tag_type]) + struct.pack(">I", len(body))[1:] + struct.pack(">I", timestamp)[1:] \
        + bytes([timestamp >> 24 & 0xFF]) + b"\x00\x00\x00"
    return header + body + struct.pack(">I", len(body) + 11)


def flv_huge_header(pps_count, keyframes):
    out = bytearray(b"FLV\x01\x01\x00\x00\x00\x09\x00\x00\x00\x00")
    out += flv_tag(9, 0, b"\x17\x00\x00\x00\x00" + avcc_record(pps_count))
    sample = struct.pack(">I", len(IDR)) + IDR
    for i in range(keyframes):
        out += flv_tag(9, i * 40, b"\x17\x01\x00\x00\x00" + sample)
    return bytes(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    write("format-changes-200k.264", format_changes(200_000))
    write("format-changes-1m.264", format_changes(1_000_000))
    write("flv-huge-header.flv", flv_huge_header(224, 1000))
    write("avcc-huge-record.avcc", (struct.pack(">I", len(IDR)) + IDR) * 100)
    write("avcc-huge-record.avcC", avcc_record(255))
    write("pps-240x64k.264", SC4 + sps(0) + b"".join(SC4 + padded(pps(i, 0), 65535) for i in range(240))
          + (SC3 + IDR) * 10_000)
    payload = 16 << 20
    size = payload + 16
    sei = bytearray([0x06, 5])
    while size >= 255:
        sei.append(0xFF)
        size -= 255
    sei.append(size)
    sei += bytes(range(16)) + b"\x41" * payload + b"\x80"
    write("sei-16m.264", SC4 + bytes(sei))
    write("bad-headers-20m.264", b"\x00\x00\x01\x80" * (5 << 20))
    with open(os.path.join(out, "no-start-code-1g.bin"), "wb") as f:
        chunk = b"\xff" * (1 << 20)
        for _ in range(1024):
            f.write(chunk)
    if "--big" in sys.argv:
        stream = open(sys.argv[sys.argv.index("--big") + 1], "rb").read()
        with open(os.path.join(out, "big-1g.264"), "wb") as f:
            written = 0
            while written < 1 << 30:
                f.write(stream)
                written += len(stream)


if __name__ == "__main__":
    main()
