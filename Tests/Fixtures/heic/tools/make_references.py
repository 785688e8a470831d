#!/usr/bin/env python3
"""Builds the lean reference data of Tests/Fixtures/heic from libheif 1.23 (pip install pillow-heif).

- Large fixtures keep no full-size PNG: index.json holds the CRC-32 (zlib) of the reference's raw pixel
  bytes (8-bit, row-major, the decoder's own channel layout) and reference/NAME.r8.png, the
  reference box-reduced by 8 in displayed orientation (means of 8x8 blocks anchored at the top
  left, rounded half up), which is what a 1/8 decode must give.
- Small fixtures are compared against reference/NAME.png as copied from the shared fixtures.
- generated/*.heic are made by make_generated.py; their references are written here too.
"""
import json, os, sys, zlib
import numpy as np
from PIL import Image
import pillow_heif

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

def box_reduce(a, f):
    h, w = a.shape[:2]
    oh, ow = (h + f - 1) // f, (w + f - 1) // f
    pad = np.zeros((oh * f, ow * f) + a.shape[2:], dtype=np.int64)
    cnt = np.zeros((oh * f, ow * f), dtype=np.int64)
    pad[:h, :w] = a; cnt[:h, :w] = 1
    s = pad.reshape(oh, f, ow, f, *a.shape[2:]).sum(axis=(1, 3))
    n = cnt.reshape(oh, f, ow, f).sum(axis=(1, 3))
    if a.ndim == 3: n = n[..., None]
    return ((s + n // 2) // n).astype(np.uint8)

def libheif_pixels(path):
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
    im = heif.to_pillow()
    return np.asarray(im)

def main():
    index = {}
    for name in sys.argv[1:]:
        path = os.path.join(ROOT, name)
        a = libheif_pixels(path)
        stem = os.path.splitext(os.path.basename(name))[0]
        index[name] = {"width": int(a.shape[1]), "height": int(a.shape[0]),
                       "crc32": zlib.crc32(np.ascontiguousarray(a).tobytes()),
                       "reduced8": f"reference/{stem}.r8.png"}
        Image.fromarray(box_reduce(a.astype(np.int64), 8)).save(os.path.join(ROOT, "reference", f"{stem}.r8.png"), optimize=True)
    out = os.path.join(ROOT, "reference", "index.json")
    old = json.load(open(out)) if os.path.exists(out) else {}
    old.update(index)
    json.dump(old, open(out, "w"), indent=1, sort_keys=True)

if __name__ == "__main__":
    main()
