#!/usr/bin/env python3
"""Makes the demo's format and colour-space variants of photos already in the demo.

  webp IN OUT ORIENTATION   a lossy WebP (q85) of IN, stored turned so that the EXIF
                            Orientation tag ORIENTATION (6 or 8) shows it upright again
  p3 IN OUT                 IN (sRGB) converted to Display P3, JPEG q92 with a P3 profile
  adobe IN OUT              IN (sRGB) converted to Adobe RGB (1998), JPEG q92 with its profile

The wide-gamut copies hold the same colours as IN in other numbers: a gallery that reads the
embedded profile shows them like IN; one that ignores it shows them dull (P3) or washed out
(Adobe RGB). The profiles are written here (matrix/TRC ICC v2, D50, Bradford-adapted
colorants, the primaries and white of each standard), so nothing with another licence goes in.
Needs Pillow with littlecms2 and WebP (Debian's python3-pil).
"""
import io
import struct
import sys

from PIL import Image, ImageCms

D50 = (0.9642, 1.0, 0.8249)
SPACES = {
    # name: (primaries xy, white xy, tone curve: ("gamma", g) or ("srgb",))
    "p3": (((0.680, 0.320), (0.265, 0.690), (0.150, 0.060)), (0.3127, 0.3290), ("srgb",), "Display P3 (gallery demo)"),
    "adobe": (((0.640, 0.330), (0.210, 0.710), (0.150, 0.060)), (0.3127, 0.3290), ("gamma", 563 / 256), "Adobe RGB (1998) compatible (gallery demo)"),
}


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def inverse(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def xyz(xy):
    x, y = xy
    return [x / y, 1.0, (1 - x - y) / y]


def colorants(primaries, white):
    """Columns: the primaries' XYZ, scaled to give the white, then Bradford-adapted to D50."""
    p = [xyz(c) for c in primaries]
    m = [[p[j][i] for j in range(3)] for i in range(3)]
    s = mat_vec(inverse(m), xyz(white))
    m = [[m[i][j] * s[j] for j in range(3)] for i in range(3)]
    bradford = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    src, dst = mat_vec(bradford, xyz(white)), mat_vec(bradford, D50)
    scale = [[dst[i] / src[i] if i == j else 0 for j in range(3)] for i in range(3)]
    adapt = mat_mul(inverse(bradford), mat_mul(scale, bradford))
    return mat_mul(adapt, m), adapt


def s15(v):
    return struct.pack(">i", round(v * 65536))


def profile(space):
    primaries, white, curve, text = SPACES[space]
    m, adapt = colorants(primaries, white)
    desc = b"desc" + bytes(4) + struct.pack(">I", len(text) + 1) + text.encode() + b"\0" + bytes(12) + bytes(67)
    cprt = b"text" + bytes(4) + b"CC0: no rights reserved\0"
    if curve[0] == "gamma":
        trc = b"curv" + bytes(4) + struct.pack(">IH", 1, round(curve[1] * 256)) + bytes(2)
    else:  # the sRGB curve as a parametric curve (type 3)
        trc = b"para" + bytes(4) + struct.pack(">H", 3) + bytes(2)
        trc += b"".join(s15(v) for v in (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
    tags = [("desc", desc), ("cprt", cprt), ("wtpt", b"XYZ " + bytes(4) + b"".join(s15(v) for v in D50))]
    for k, name in enumerate(("rXYZ", "gXYZ", "bXYZ")):
        tags.append((name, b"XYZ " + bytes(4) + b"".join(s15(m[i][k]) for i in range(3))))
    tags.append(("chad", b"sf32" + bytes(4) + b"".join(s15(adapt[i][j]) for i in range(3) for j in range(3))))
    tags += [("rTRC", trc), ("gTRC", trc), ("bTRC", trc)]
    offset = 128 + 4 + 12 * len(tags)
    table, body = struct.pack(">I", len(tags)), b""
    for name, data in tags:
        data += bytes(-len(data) % 4)
        table += name.encode() + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = offset + len(body)
    header = struct.pack(">I", size) + b"lcms" + bytes([2, 0x40, 0, 0]) + b"mntrRGB XYZ "
    header += struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + bytes(24) + struct.pack(">I", 0)
    header += b"".join(s15(v) for v in D50) + bytes(128 - len(header) - 12 - 48) + bytes(48)
    header = header[:128]
    return header + table + body


def convert(src, dst, space):
    icc = profile(space)
    image = Image.open(src).convert("RGB")
    srgb = ImageCms.createProfile("sRGB")
    wide = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    out = ImageCms.profileToProfile(image, srgb, wide, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB")
    out.save(dst, "JPEG", quality=92, icc_profile=icc)


def webp(src, dst, orientation):
    image = Image.open(src).convert("RGB")
    # Stored turned the other way, so that the tag turns it back.
    stored = image.transpose(Image.Transpose.ROTATE_90 if orientation == 6 else Image.Transpose.ROTATE_270)
    exif = Image.Exif()
    exif[0x0112] = orientation
    stored.save(dst, "WEBP", quality=85, exif=exif.tobytes())


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "webp":
        webp(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif kind in SPACES:
        convert(sys.argv[2], sys.argv[3], kind)
    else:
        sys.exit("usage: make_variants.py webp IN OUT 6|8 | p3 IN OUT | adobe IN OUT")
