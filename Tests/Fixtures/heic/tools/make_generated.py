#!/usr/bin/env python3
"""Writes Tests/Fixtures/heic/generated/*.heic: small HEIF files for cases the shared fixtures
lack (transforms, iden, VUI and nclx colour, odd grids, thumbnails, hostile structures). HEVC
streams come from ffmpeg's libx265; the container is written by heif_writer.py. References
(reference/gen_*.png) come from libheif 1.23 via pillow-heif; hostile files get none."""
import os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heif_writer import *
import pillow_heif

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "generated")
TMP = tempfile.mkdtemp()

def source(w, h, seed=1):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    a = np.stack([x * 255 / w, y * 255 / h, 128 + 100 * np.sin(x / 7.0) * np.cos(y / 5.0)], -1) + rng.normal(0, 12, (h, w, 3))
    a[h // 3:h // 2, w // 4:w // 2] = [250, 20, 30]
    a[h // 2:2 * h // 3, w // 2:3 * w // 4] = [20, 30, 240]
    return np.clip(a, 0, 255).astype(np.uint8)

def encode(rgb, pix="yuvj420p", params="range=full:colormatrix=smpte170m", vf="scale=out_range=pc"):
    src = os.path.join(TMP, "src.png"); out = os.path.join(TMP, "out.265")
    Image.fromarray(rgb).save(src)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", vf, "-pix_fmt", pix, "-c:v", "libx265",
                    "-x265-params", "log-level=error:" + params, "-frames:v", "1", out], check=True)
    return open(out, "rb").read()

def coded(iid, rgb, props=(), hidden=False, **kw):
    chroma = {"yuvj420p": 1, "yuv420p": 1, "yuv444p10le": 3, "yuv444p": 3, "gray": 0}.get(kw.get("pix", "yuvj420p"), 1)
    bd = 10 if "10" in kw.get("pix", "") else 8
    raw, data = hvc_item_from_annexb(encode(rgb, **kw), chroma=chroma, bd=bd)
    h, w = rgb.shape[:2]
    return Item(iid, "hvc1", data, [(hvcC_box(raw), True), (ispe(w, h), False)] + list(props), hidden=hidden)

def save(name, data, reference=True):
    path = os.path.join(OUT, name)
    open(path, "wb").write(data)
    if reference:
        im = pillow_heif.open_heif(path, convert_hdr_to_8bit=True).to_pillow()
        im.save(os.path.join(ROOT, "reference", "gen_" + os.path.splitext(name)[0] + ".png"))

def main():
    s96 = source(96, 64)
    save("rot90_mirror0.heic", write([coded(1, s96, [(irot(1), True), (imir(0), True)])], 1))
    # Crop edges even in the turned image: libheif crops the planes as they are.
    save("mirror1_rot270_clap_even.heic", write([coded(1, s96, [(imir(1), True), (irot(3), True), (clap(40, 1, 70, 1, 4, 1, -5, 1), True)])], 1))
    # Odd top edge: libheif first upsamples 4:2:0 to 4:4:4 (bilinear), we keep nearest chroma.
    save("clap_odd_top.heic", write([coded(1, s96, [(imir(1), True), (irot(3), True), (clap(40, 1, 70, 1, 4, 1, -6, 1), True)])], 1))
    save("vui709_limited.heic", write([coded(1, s96, pix="yuv420p", params="range=limited:colormatrix=bt709:colorprim=bt709:transfer=bt709",
                                             vf="scale=out_color_matrix=bt709:out_range=tv")], 1))
    save("nclx709_full_over_vui601_limited.heic", write([coded(1, s96, [(nclx(1, 13, 1, True), False)], pix="yuv420p",
                                                               params="range=limited:colormatrix=smpte170m", vf="scale=out_range=tv")], 1))
    save("yuv444_10bit_limited_nclx.heic", write([coded(1, s96, [(nclx(1, 13, 1, False), False)], pix="yuv444p10le",
                                                        params="range=limited:colormatrix=bt709", vf="scale=out_color_matrix=bt709:out_range=tv")], 1))
    # 3x2 grid of 64x48 tiles, output 158x90 (cut inside the last tiles), turned 180 degrees;
    # and 157x90, whose odd width makes libheif upsample chroma bilinearly before turning.
    big = source(192, 96, seed=2)
    tiles = [coded(10 + i, big[(i // 3) * 48:(i // 3 + 1) * 48, (i % 3) * 64:(i % 3 + 1) * 64], hidden=True) for i in range(6)]
    for w, name in ((158, "grid_3x2_rot180.heic"), (157, "grid_3x2_odd_rot180.heic")):
        g = Item(1, "grid", grid(2, 3, w, 90), [(ispe(w, 90), False), (irot(2), True)], idat=True)
        save(name, write([g] + tiles, 1, refs=[("dimg", 1, [t.iid for t in tiles])]))
    # iden over a hidden coded item: the source mirrors, the iden turns.
    src = coded(2, s96, [(imir(1), True)], hidden=True)
    iden = Item(1, "iden", b"", [(ispe(96, 64), False), (irot(1), True)])
    save("iden_rot90_of_mirror.heic", write([iden, src], 1, refs=[("dimg", 1, [2])]))
    # Thumbnail item beside the primary.
    thumb = coded(2, np.asarray(Image.fromarray(s96).resize((48, 32))))
    save("with_thumbnail.heic", write([coded(1, s96), thumb], 1, refs=[("thmb", 2, [1])]))
    # Hostile structures (no reference: each must fail cleanly).
    save("hostile_grid_cycle.heic", write([Item(1, "grid", grid(1, 1, 64, 64), [(ispe(64, 64), False)], idat=True)], 1,
                                          refs=[("dimg", 1, [1])]), reference=False)
    chain = [Item(i, "iden", b"", [], hidden=i > 1) for i in range(1, 13)] + [coded(13, s96, hidden=True)]
    save("hostile_iden_chain.heic", write(chain, 1, refs=[("dimg", i, [i + 1]) for i in range(1, 13)]), reference=False)
    save("hostile_ispe_65535.heic", write([Item(1, "hvc1", coded(1, s96).data, [(coded(1, s96).props[0]), (ispe(65535, 65535), False)])], 1), reference=False)
    many = Item(1, "grid", grid(129, 129, 1024, 1024), [(ispe(1024, 1024), False)], idat=True)
    save("hostile_grid_16641_tiles.heic", write([many], 1, refs=[("dimg", 1, list(range(2, 2 + 129 * 129)))], iref_version=0), reference=False)
    cycle = [Item(1, "iden", b"", [(ispe(96, 64), False)]), Item(2, "iden", b"", [(ispe(96, 64), False)], hidden=True)]
    save("hostile_iden_cycle.heic", write(cycle, 1, refs=[("dimg", 1, [2]), ("dimg", 2, [1])]), reference=False)
    save("hostile_essential_unknown.heic", write([coded(1, s96, [(box("zzzz", b"\0\0\0\0"), True)])], 1), reference=False)

if __name__ == "__main__":
    main()
