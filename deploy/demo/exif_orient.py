#!/usr/bin/env python3
"""Writes a copy of a JPEG with an EXIF orientation tag (1-8), standard library only.

The pixels are untouched: every APP1 Exif segment of the input is dropped and one new APP1
holding a minimal big-endian TIFF (IFD0 with the single Orientation entry) is inserted after
SOI and any APP0. A viewer that honours EXIF then turns the picture; one that does not shows
it as stored. Used to make the derived demo photos documented in ATTRIBUTION.md.

usage: exif_orient.py IN.jpg OUT.jpg ORIENTATION
"""
import struct
import sys


def exif_segment(orientation):
    # TIFF header (MM, 42, IFD0 at 8), IFD0 with one SHORT entry, next-IFD offset 0.
    tiff = b"MM" + struct.pack(">HI", 42, 8)
    tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def rewrite(data, orientation):
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG (no SOI)")
    pos = 2
    head = []
    rest_start = None
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise ValueError("marker expected at offset %d" % pos)
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if not (0xE0 <= marker <= 0xEF or marker == 0xFE):
            rest_start = pos
            break
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if length < 2 or pos + 2 + length > len(data):
            raise ValueError("bad segment length at offset %d" % pos)
        segment = data[pos:pos + 2 + length]
        is_exif = marker == 0xE1 and segment[4:10] == b"Exif\x00\x00"
        if not is_exif:
            head.append((marker, segment))
        pos += 2 + length
    if rest_start is None:
        raise ValueError("no image data after the APPn segments")
    app0 = [s for m, s in head if m == 0xE0]
    others = [s for m, s in head if m != 0xE0]
    return b"\xff\xd8" + b"".join(app0) + exif_segment(orientation) + b"".join(others) + data[rest_start:]


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in [str(i) for i in range(1, 9)]:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    out = rewrite(data, int(sys.argv[3]))
    with open(sys.argv[2], "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
