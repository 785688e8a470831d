#!/usr/bin/env python3
"""Writes Tests/Fixtures/heic/generated/chroma_*.heic: 4:2:2 and 4:4:4 HEIF files (Canon .HIF
is 4:2:2 at 10 bits) and their libheif 1.23 references (reference/gen_chroma_*.png, via
pillow-heif). Single images come from heif-enc (-p chroma=...); the grid, which exercises the
tile-by-tile path with odd tile edges, is written by heif_writer.py around ffmpeg/libx265 tiles."""
import os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heif_writer import *
from make_generated import source, save, OUT
import pillow_heif

TMP = tempfile.mkdtemp()

def heif_enc(name, rgb, chroma, bits):
    src = os.path.join(TMP, "src.png")
    Image.fromarray(rgb).save(src)
    if bits > 8:
        # heif-enc writes more than 8 bits only from a 16-bit PNG.
        subprocess.run(["convert", src, "-depth", "16", "PNG48:" + src], check=True)
    path = os.path.join(OUT, name)
    subprocess.run(["heif-enc", "-q", "50", "-b", str(bits), "-p", f"chroma={chroma}", "-o", path, src],
                   check=True, capture_output=True)
    save(name, open(path, "rb").read())

def tile(iid, rgb, pix, chroma, bits):
    src = os.path.join(TMP, "tile.png"); out = os.path.join(TMP, "tile.265")
    Image.fromarray(rgb).save(src)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", "scale=out_color_matrix=bt709:out_range=pc",
                    "-pix_fmt", pix, "-c:v", "libx265", "-x265-params", "log-level=error:range=full:colormatrix=bt709",
                    "-frames:v", "1", out], check=True)
    raw, data = hvc_item_from_annexb(open(out, "rb").read(), chroma=chroma, bd=bits)
    h, w = rgb.shape[:2]
    return Item(iid, "hvc1", data, [(hvcC_box(raw), True), (ispe(w, h), False)], hidden=True)

def main():
    s = source(150, 100, seed=3)
    heif_enc("chroma422_8bit.heic", s, 422, 8)
    heif_enc("chroma422_10bit.heic", s, 422, 10)
    heif_enc("chroma444_10bit.heic", s, 444, 10)
    # 2x2 grid of 64x48 4:2:2 10-bit full-range tiles, cut to 123x90 (odd width).
    big = source(128, 96, seed=4)
    tiles = [tile(10 + i, big[(i // 2) * 48:(i // 2 + 1) * 48, (i % 2) * 64:(i % 2 + 1) * 64], "yuv422p10le", 2, 10)
             for i in range(4)]
    g = Item(1, "grid", grid(2, 2, 123, 90), [(ispe(123, 90), False), (nclx(1, 13, 1, True), False)], idat=True)
    save("chroma422_10bit_grid.heic", write([g] + tiles, 1, refs=[("dimg", 1, [t.iid for t in tiles])]))

if __name__ == "__main__":
    main()
