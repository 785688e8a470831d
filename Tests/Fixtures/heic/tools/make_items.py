#!/usr/bin/env python3
"""Writes the HEIF fixtures of the orientation, overlay and alpha-grid checks into
Tests/Fixtures/heic/generated/ (and libheif 1.23's pictures of them into reference/, via
pillow-heif), with heif_writer.py around libx265 streams:

- orient_*.heic: four flat quadrants (red top left, green top right, blue bottom left, white
  bottom right, as displayed) stored turned or mirrored so that `irot`/`imir` must be applied
  for the picture to show upright; the gallery's browser test looks for the quadrants.
- iovl_*.heic: `iovl` derived items over hidden coded items (fill colour, offsets in and off
  the canvas, negative offsets, a grid input, 32-bit fields).
- alpha_grid.heic: a 3x2 colour grid whose alpha is a 3x2 grid of monochrome tiles.
- thumb_magenta.heic: a 2x2 grid with a plain magenta `thmb` item, to see which one a render used.
- hostile_iovl_*.heic: overlays that must fail with a typed error (no reference).

Usage: make_items.py [--big-alpha PATH] (the big one is a 4000x3000 grid with grid alpha for
the memory figure in docs/heif-hevc.md; it is not committed)."""
import os, struct, sys
import numpy as np
from PIL import Image
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heif_writer import *
from make_generated import OUT, ROOT, coded, save, source
import pillow_heif

QUADRANTS = [(230, 30, 30), (30, 200, 40), (30, 40, 220), (245, 245, 245)]

def quadrants(w, h):
    a = np.zeros((h, w, 3), np.uint8)
    a[:h // 2, :w // 2] = QUADRANTS[0]; a[:h // 2, w // 2:] = QUADRANTS[1]
    a[h // 2:, :w // 2] = QUADRANTS[2]; a[h // 2:, w // 2:] = QUADRANTS[3]
    return a

def check_upright(name, shown):
    got = np.asarray(pillow_heif.open_heif(os.path.join(OUT, name)).to_pillow().convert("RGB")).astype(int)
    assert got.shape == shown.shape, (name, got.shape, shown.shape)
    assert np.abs(got - shown.astype(int)).max() < 40, name

def orientation():
    # Displayed 600x800 portrait; stored landscape, turned back by irot 1 (anticlockwise).
    shown = quadrants(600, 800)
    save("orient_irot1.heic", write([coded(1, np.ascontiguousarray(np.rot90(shown, -1)), [(irot(1), True)])], 1))
    check_upright("orient_irot1.heic", shown)
    # Displayed 800x600; stored mirrored left-right, imir axis 1 mirrors it back.
    shown = quadrants(800, 600)
    save("orient_imir1.heic", write([coded(1, np.ascontiguousarray(shown[:, ::-1]), [(imir(1), True)])], 1))
    check_upright("orient_imir1.heic", shown)
    # Displayed 600x800: stored turned and flipped top-bottom; irot 3 then imir 0 (ipma order).
    shown = quadrants(600, 800)
    stored = np.rot90(shown[::-1, :], 1)
    save("orient_irot3_imir0.heic", write([coded(1, np.ascontiguousarray(stored), [(irot(3), True), (imir(0), True)])], 1))
    check_upright("orient_irot3_imir0.heic", shown)

def iovl_data(fill, w, h, offsets, long=False):
    f = 4 if long else 2
    body = bytes([0, 1 if long else 0]) + struct.pack(">HHHH", *fill)
    body += w.to_bytes(f, "big") + h.to_bytes(f, "big")
    for x, y in offsets:
        body += x.to_bytes(f, "big", signed=True) + y.to_bytes(f, "big", signed=True)
    return body

def overlays():
    a = source(64, 48, seed=3); b = source(40, 32, seed=4)
    inputs = [coded(2, a, hidden=True), coded(3, b, hidden=True)]
    # Two inputs, the second over the first, one partly off the right edge; fill shows around.
    ov = Item(1, "iovl", iovl_data((0x2000, 0x8000, 0xC0FF, 0xFFFF), 100, 70, [(10, 5), (70, 30)]), [(ispe(100, 70), False)], idat=True)
    save("iovl_two_inputs.heic", write([ov] + inputs, 1, refs=[("dimg", 1, [2, 3])]))
    # Negative offsets (both inputs cut at the top left), 32-bit fields, a turned input.
    c = coded(4, b, [(irot(1), True)], hidden=True)
    ov = Item(1, "iovl", iovl_data((0xFFFF, 0xFFFF, 0, 0), 80, 60, [(-20, -10), (-8, 30)], long=True), [(ispe(80, 60), False)], idat=True)
    save("iovl_negative_long.heic", write([ov, inputs[0], c], 1, refs=[("dimg", 1, [2, 4])]))
    # The overlay turned by its own irot, over a 2x2 grid input and a coded input.
    big = source(64, 64, seed=5)
    tiles = [coded(10 + i, big[(i // 2) * 32:(i // 2 + 1) * 32, (i % 2) * 32:(i % 2 + 1) * 32], hidden=True) for i in range(4)]
    g = Item(5, "grid", grid(2, 2, 60, 60), [(ispe(60, 60), False)], hidden=True, idat=True)
    ov = Item(1, "iovl", iovl_data((0, 0, 0, 0xFFFF), 90, 64, [(25, 2), (0, 0)]), [(ispe(90, 64), False), (irot(1), True)], idat=True)
    save("iovl_grid_rot90.heic", write([ov, g, inputs[1]] + tiles, 1,
                                       refs=[("dimg", 1, [5, 3]), ("dimg", 5, [t.iid for t in tiles])]))
    # Hostile: a canvas over the limits, offsets that overflow, a self-reference, a missing
    # input, fewer offsets than inputs, version 1.
    def hostile(name, data, refs, extra=()):
        ov = Item(1, "iovl", data, [(ispe(64, 48), False)], idat=True)
        save(name, write([ov, inputs[0]] + list(extra), 1, refs=refs), reference=False)
    hostile("hostile_iovl_huge_canvas.heic", iovl_data((0, 0, 0, 0), 0xFFFFFFFF, 0xFFFFFFFF, [(0, 0)], long=True), [("dimg", 1, [2])])
    hostile("hostile_iovl_offset_overflow.heic", iovl_data((0, 0, 0, 0), 64, 48, [(0x7FFFFFFF, 0x7FFFFFFF)], long=True), [("dimg", 1, [2])])
    hostile("hostile_iovl_self.heic", iovl_data((0, 0, 0, 0), 64, 48, [(0, 0), (0, 0)]), [("dimg", 1, [2, 1])])
    hostile("hostile_iovl_missing_input.heic", iovl_data((0, 0, 0, 0), 64, 48, [(0, 0), (0, 0)]), [("dimg", 1, [2, 9])])
    hostile("hostile_iovl_short.heic", iovl_data((0, 0, 0, 0), 64, 48, [(0, 0)]), [("dimg", 1, [2, 2])])
    hostile("hostile_iovl_zero_canvas.heic", iovl_data((0, 0, 0, 0), 0, 48, [(0, 0)]), [("dimg", 1, [2])])
    hostile("hostile_iovl_no_inputs.heic", iovl_data((0, 0, 0, 0), 64, 48, []), [])
    # 200 draws of one input: each is decoded in full, so their pixels count against the limit.
    hostile("hostile_iovl_200_draws.heic", iovl_data((0, 0, 0, 0), 64, 48, [(0, 0)] * 200), [("dimg", 1, [2] * 200)])

def alpha_grid_file(w, h, tw, th, seed=6):
    cols, rows = -(-w // tw), -(-h // th)
    rgb = source(cols * tw, rows * th, seed=seed)
    yy, xx = np.mgrid[0:rows * th, 0:cols * tw]
    alpha = np.clip(255 * (xx / (cols * tw)) + 60 * np.sin(yy / 9.0), 0, 255).astype(np.uint8)
    n = rows * cols
    colour = [coded(10 + i, rgb[(i // cols) * th:(i // cols + 1) * th, (i % cols) * tw:(i % cols + 1) * tw], hidden=True)
              for i in range(n)]
    a_tiles = [coded(10 + n + i, np.repeat(alpha[(i // cols) * th:(i // cols + 1) * th, (i % cols) * tw:(i % cols + 1) * tw, None], 3, 2),
                     hidden=True, pix="gray", params="range=full", vf="format=gray") for i in range(n)]
    g = Item(1, "grid", grid(rows, cols, w, h), [(ispe(w, h), False)], idat=True)
    ag = Item(2, "grid", grid(rows, cols, w, h), [(ispe(w, h), False), (auxC(b"urn:mpeg:hevc:2015:auxid:1"), True)], hidden=True, idat=True)
    return write([g, ag] + colour + a_tiles, 1, refs=[("dimg", 1, [t.iid for t in colour]), ("dimg", 2, [t.iid for t in a_tiles]),
                                                      ("auxl", 2, [1])])

def marked_thumbnail():
    # A 2x2 grid whose thmb item is plain magenta: a render that used the thumbnail shows it.
    big = quadrants(128, 96)
    tiles = [coded(10 + i, np.ascontiguousarray(big[(i // 2) * 48:(i // 2 + 1) * 48, (i % 2) * 64:(i % 2 + 1) * 64]), hidden=True) for i in range(4)]
    g = Item(1, "grid", grid(2, 2, 128, 96), [(ispe(128, 96), False)], idat=True)
    magenta = np.zeros((48, 64, 3), np.uint8); magenta[:] = (230, 20, 230)
    save("thumb_magenta.heic", write([g, coded(2, magenta)] + tiles, 1, refs=[("dimg", 1, [t.iid for t in tiles]), ("thmb", 2, [1])]))

def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--big-alpha":
        open(sys.argv[2], "wb").write(alpha_grid_file(4000, 3000, 512, 512))
        return
    orientation()
    overlays()
    save("alpha_grid.heic", alpha_grid_file(150, 90, 64, 48))
    marked_thumbnail()

if __name__ == "__main__":
    main()
