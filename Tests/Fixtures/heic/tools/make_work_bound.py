"""Grids for the HEIF work bound (`DecodeLimits.maxPixelsPerCodedByte`, `HEIFDecodeWork`):
two hostile files of a few KB that would make a decoder decode 200 MP, and one flat but honest
grid just above the free 16.7 MP. Tiles are flat 512x512 libx265 pictures (about 110 bytes
each). Written to ../generated; no references (the tests only plan, probe and estimate them)."""
import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heif_writer import *

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "generated")

def flat_tile(colour):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.265")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"color=c={colour}:s=512x512", "-frames:v", "1",
                        "-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "crf=24:keyint=1:log-level=error", path], check=True)
        return hvc_item_from_annexb(open(path, "rb").read())

def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f: f.write(data)
    print(name, len(data), "bytes")

def main():
    raw, data = flat_tile("black")
    props = [(hvcC_box(raw), True), (ispe(512, 512), False)]
    cols, rows = 32, 24  # 16384x12288: 201 MP, 768 tiles
    g = Item(1, "grid", grid(rows, cols, cols * 512, rows * 512), [(ispe(cols * 512, rows * 512), False)], idat=True)
    # One coded item named by all 768 cells.
    save("hostile_grid_768_uses.heic", write([g, Item(2, "hvc1", data, props, hidden=True)], 1, refs=[("dimg", 1, [2] * (cols * rows))]))
    # 768 items whose iloc entries all point at the same bytes.
    items = [g, Item(2, "hvc1", data, props, hidden=True)] + [Item(i, "hvc1", b"", props, hidden=True, same_as=2) for i in range(3, 2 + cols * rows)]
    save("hostile_grid_shared_range.heic", write(items, 1, refs=[("dimg", 1, list(range(2, 2 + cols * rows)))]))
    # Honest but flat: 10x8 distinct tiles of alternating colours, 21 MP from about 9 KB.
    tiles = [flat_tile(c) for c in ("black", "gray")]
    cols, rows = 10, 8
    g = Item(1, "grid", grid(rows, cols, cols * 512, rows * 512), [(ispe(cols * 512, rows * 512), False)], idat=True)
    items = [g] + [Item(2 + i, "hvc1", tiles[i % 2][1], [(hvcC_box(tiles[i % 2][0]), True), (ispe(512, 512), False)], hidden=True)
                   for i in range(cols * rows)]
    save("grid_80_flat_tiles.heic", write(items, 1, refs=[("dimg", 1, list(range(2, 2 + cols * rows)))]))

if __name__ == "__main__":
    main()
