#!/usr/bin/env python3
"""Regenerates the WebP conformance fixtures and manifest.json.

Sources are small crops of the gallery's demo photographs (Debian wallpaper packages, see
deploy/demo/ATTRIBUTION.md) plus generated patterns, written as PNG to a scratch folder and
encoded with cwebp (Debian `webp` 1.2.4) with the options listed per file. The manifest
records, for each fixture, how it was made and the MD5 of dwebp's default decode (RGB bytes
from -ppm, or RGBA from -pam when the file has alpha; animations via `webpmux -get frame 1`
placed on the canvas). Run from this folder: python3 make_fixtures.py SRC_PHOTO.jpg
"""
import hashlib, json, os, subprocess, sys, tempfile
from PIL import Image, ImageDraw

photo = sys.argv[1]
tmp = tempfile.mkdtemp()

def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def source(name, size, kind):
    path = os.path.join(tmp, name + ".png")
    if kind == "photo":
        im = Image.open(photo).convert("RGB")
        w, h = im.size
        im = im.crop((w // 4, h // 4, w // 4 + size[0] * 16, h // 4 + size[1] * 16)).resize(size, Image.BILINEAR)
    elif kind == "alpha":
        im = Image.open(photo).convert("RGB").resize(size, Image.LANCZOS).convert("RGBA")
        a = Image.new("L", size, 0)
        d = ImageDraw.Draw(a)
        d.ellipse((2, 2, size[0] - 3, size[1] - 3), fill=255)
        d.rectangle((0, 0, size[0] // 3, size[1] // 4), fill=96)
        im.putalpha(a)
    elif kind == "gray":
        im = Image.open(photo).convert("L").resize(size, Image.LANCZOS).convert("RGB")
    elif kind == "palette":
        im = Image.open(photo).convert("RGB").resize(size, Image.LANCZOS).quantize(colors=12).convert("RGB")
    elif kind == "twocolour":
        im = Image.new("RGB", size, (20, 40, 200))
        d = ImageDraw.Draw(im)
        for i in range(0, size[0], 4):
            d.line((i, 0, size[0] - i, size[1]), fill=(250, 250, 10))
    im.save(path)
    return path

def md5_of_decode(webp, alpha):
    out = os.path.join(tmp, "ref." + ("pam" if alpha else "ppm"))
    run("dwebp", webp, "-pam" if alpha else "-ppm", "-o", out)
    im = read_netpbm(out)
    return hashlib.md5(im.tobytes()).hexdigest(), im.size

def read_netpbm(path):
    data = open(path, "rb").read()
    if data.startswith(b"P7"):
        end = data.index(b"ENDHDR\n") + 7
        fields = dict(l.split(b" ", 1) for l in data[3:end - 7].split(b"\n") if b" " in l)
        w, h, depth = int(fields[b"WIDTH"]), int(fields[b"HEIGHT"]), int(fields[b"DEPTH"])
        return Image.frombytes("RGBA" if depth == 4 else "RGB", (w, h), data[end:end + w * h * depth])
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return Image.frombytes("RGB", (w, h), parts[4][:w * h * 3])

cases = [
    # name, size, source kind, cwebp options, alpha
    ("lossy_q75_64x48", (64, 48), "photo", ["-q", "75"], False),
    ("lossy_q20_sharp_64x48", (64, 48), "photo", ["-q", "20", "-sharpness", "7", "-f", "80"], False),
    ("lossy_q95_sns0_48x40", (48, 40), "photo", ["-q", "95", "-sns", "0", "-f", "0"], False),
    ("lossy_simple_filter_40x40", (40, 40), "photo", ["-q", "50", "-f", "60", "-strong", "-nostrong", "-af"], False),
    ("lossy_segments1_33x17", (33, 17), "photo", ["-q", "60", "-segments", "1"], False),
    ("lossy_segments4_sns100_96x64", (96, 64), "photo", ["-q", "40", "-segments", "4", "-sns", "100"], False),
    ("lossy_partitions8_128x96", (128, 96), "photo", ["-q", "70", "-partition_limit", "100", "-pass", "2"], False),
    ("lossy_17x33", (17, 33), "photo", ["-q", "80", "-m", "6"], False),
    ("lossy_1x1", (1, 1), "photo", ["-q", "80"], False),
    ("lossy_2x3", (2, 3), "photo", ["-q", "80"], False),
    ("lossy_gray_64x64", (64, 64), "gray", ["-q", "85", "-m", "0"], False),
    ("lossy_q100_m6_80x60", (80, 60), "photo", ["-q", "100", "-m", "6"], False),
    ("lossy_alpha_lossless_48x48", (48, 48), "alpha", ["-q", "75", "-alpha_filter", "best"], True),
    ("lossy_alpha_q50_none_40x30", (40, 30), "alpha", ["-q", "75", "-alpha_q", "50", "-alpha_filter", "none"], True),
    ("lossy_alpha_fast_33x21", (33, 21), "alpha", ["-q", "75", "-alpha_filter", "fast", "-alpha_method", "0"], True),
    ("lossy_alpha_raw_19x11", (19, 11), "alpha", ["-q", "75", "-alpha_method", "0", "-alpha_filter", "none", "-alpha_cleanup"], True),
    ("lossless_z0_64x48", (64, 48), "photo", ["-lossless", "-z", "0"], False),
    ("lossless_z6_64x48", (64, 48), "photo", ["-lossless", "-z", "6"], False),
    ("lossless_z9_48x40", (48, 40), "photo", ["-lossless", "-z", "9"], False),
    ("lossless_near60_40x40", (40, 40), "photo", ["-near_lossless", "60"], False),
    ("lossless_palette_50x30", (50, 30), "palette", ["-lossless", "-z", "6"], False),
    ("lossless_twocolour_37x23", (37, 23), "twocolour", ["-lossless", "-z", "9"], False),
    ("lossless_alpha_exact_40x32", (40, 32), "alpha", ["-lossless", "-exact", "-z", "5"], True),
    ("lossless_alpha_33x17", (33, 17), "alpha", ["-lossless", "-q", "100", "-m", "6"], True),
    ("lossless_1x1", (1, 1), "photo", ["-lossless"], False),
    ("lossless_gray_17x33", (17, 33), "gray", ["-lossless", "-z", "3"], False),
]

manifest = []
for name, size, kind, options, alpha in cases:
    src = source(name, size, kind)
    out = name + ".webp"
    run("cwebp", *options, src, "-o", out)
    digest, dims = md5_of_decode(out, alpha)
    manifest.append({"file": out, "made": "cwebp " + " ".join(options) + f" ({kind} source {size[0]}x{size[1]})",
                     "width": dims[0], "height": dims[1], "alpha": alpha, "md5": digest})

# EXIF orientation 6 and an ICC profile, added with webpmux to a lossy file.
exif = os.path.join(tmp, "exif.bin")
im = Image.new("RGB", (1, 1))
ex = Image.Exif(); ex[0x0112] = 6; ex[0x010F] = "TestMake"; ex[0x0110] = "TestModel"
open(exif, "wb").write(ex.tobytes())
run("webpmux", "-set", "exif", exif, "lossy_q75_64x48.webp", "-o", "exif_orientation6.webp")
icc = "/usr/share/color/icc/ghostscript/a98.icc"
run("webpmux", "-set", "icc", icc, "lossless_z6_64x48.webp", "-o", "icc_a98.webp")
for f, base in [("exif_orientation6.webp", "lossy_q75_64x48"), ("icc_a98.webp", "lossless_z6_64x48")]:
    digest, dims = md5_of_decode(f, False)
    manifest.append({"file": f, "made": f"webpmux -set {'exif (orientation 6, make/model)' if 'exif' in f else 'icc a98.icc'} on {base}.webp",
                     "width": dims[0], "height": dims[1], "alpha": False, "md5": digest})

# An animation: two frames, the first smaller than the canvas and offset.
f1 = source("anim1", (24, 16), "photo"); f2 = source("anim2", (40, 30), "twocolour")
run("cwebp", "-q", "70", f1, "-o", os.path.join(tmp, "f1.webp"))
run("cwebp", "-lossless", f2, "-o", os.path.join(tmp, "f2.webp"))
run("webpmux", "-frame", os.path.join(tmp, "f1.webp"), "+100+6+4", "-frame", os.path.join(tmp, "f2.webp"), "+100+0+0",
    "-o", "animated_40x30.webp")
run("webpmux", "-get", "frame", "1", "animated_40x30.webp", "-o", os.path.join(tmp, "frame1.webp"))
fd, _ = md5_of_decode(os.path.join(tmp, "frame1.webp"), True)
fr = read_netpbm(os.path.join(tmp, "ref.pam"))
canvas = Image.new("RGBA", (40, 30), (0, 0, 0, 0))
canvas.paste(fr, (6, 4))
manifest.append({"file": "animated_40x30.webp", "made": "webpmux: frame 1 lossy q70 24x16 at +6+4, frame 2 lossless 40x30; canvas 40x30; reference = dwebp of `webpmux -get frame 1` placed on a transparent canvas",
                 "width": 40, "height": 30, "alpha": True, "md5": hashlib.md5(canvas.tobytes()).hexdigest()})

json.dump({"tool": "cwebp/dwebp/webpmux 1.2.4 (Debian webp)", "files": manifest}, open("manifest.json", "w"), indent=1)
print(len(manifest), "fixtures")
