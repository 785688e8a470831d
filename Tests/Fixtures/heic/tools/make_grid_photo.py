"""Makes a camera-style HEIC grid of any size from one photo, for benchmarks (the result is
never committed): the photo is scaled to cover the grid, cut into tiles by ffmpeg's `untile`
filter and encoded as one intra-only libx265 stream (every frame an IDR picture), whose access
units become the hidden `hvc1` tile items of a `grid` item, as Samsung's 200 MP photos are.

    python3 make_grid_photo.py SOURCE.jpg OUT.heic [WIDTH HEIGHT [TILE [CRF]]]

Defaults: 16320x12240 (200 MP, Samsung HP2 sensors) in 512x512 tiles (32x24), CRF 24.
Needs ffmpeg with libx265; about a minute per 100 MP on one core."""
import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heif_writer import *

def access_units(stream):
    """(parameter sets, [VCL NALs of each picture]) of an Annex B stream."""
    params, pictures = [], []
    for nal in split_annexb(stream):
        kind = nal[0] >> 1
        if kind in (32, 33, 34):
            if nal not in params: params.append(nal)
        elif kind < 32:
            if nal[2] & 0x80 or not pictures: pictures.append([])  # first_slice_segment_in_pic_flag
            pictures[-1].append(nal)
    return params, pictures

def main():
    source, out = sys.argv[1], sys.argv[2]
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 16320
    height = int(sys.argv[4]) if len(sys.argv) > 4 else 12240
    tile = int(sys.argv[5]) if len(sys.argv) > 5 else 512
    crf = sys.argv[6] if len(sys.argv) > 6 else "24"
    cols, rows = (width + tile - 1) // tile, (height + tile - 1) // tile
    with tempfile.TemporaryDirectory() as tmp:
        stream_path = os.path.join(tmp, "tiles.265")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", source,
                        "-vf", f"scale={cols * tile}:{rows * tile}:flags=bicubic,untile={cols}x{rows}",
                        "-pix_fmt", "yuv420p", "-c:v", "libx265",
                        "-x265-params", f"crf={crf}:keyint=1:log-level=error", "-f", "hevc", stream_path], check=True)
        stream = open(stream_path, "rb").read()
    params, pictures = access_units(stream)
    if len(pictures) != cols * rows:
        sys.exit(f"expected {cols * rows} pictures, got {len(pictures)}")
    # hvcC from the parameter sets and the first picture (all tiles share them).
    first = b"".join(b"\0\0\1" + n for n in params + pictures[0])
    hvcc, _ = hvc_item_from_annexb(first)
    tile_props = [(hvcC_box(hvcc), True), (ispe(tile, tile), False)]
    items = [Item(1, "grid", grid(rows, cols, width, height), [(ispe(width, height), False), (nclx(1, 13, 6, False), False)], idat=True)]
    for i, nals in enumerate(pictures):
        data = b"".join(len(n).to_bytes(4, "big") + n for n in nals)
        items.append(Item(2 + i, "hvc1", data, tile_props, hidden=True))
    with open(out, "wb") as f:
        f.write(write(items, 1, refs=[("dimg", 1, [2 + i for i in range(len(pictures))])]))
    print(f"{out}: {width}x{height}, {cols}x{rows} tiles of {tile}x{tile}, {os.path.getsize(out)} bytes")

if __name__ == "__main__":
    main()
