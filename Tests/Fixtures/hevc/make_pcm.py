#!/usr/bin/env python3
"""Writes the PCM fixtures (pcm_*.265) with hevc_writer.py and records them in manifest.json with
the CRC-32 of libde265-dec265's decode (before and after the loop filters), checking that
ffmpeg's decode is the same picture. Run from this folder: python3 make_pcm.py

No encoder at hand writes PCM coding units (x265 and kvazaar never do), so these pictures are
built syntax element by syntax element from a fixed seed: a random coding quadtree whose leaves
are PCM (samples of a smooth test pattern with some noise, at the PCM bit depth) or intra
prediction without residual (random luma and chroma modes, 2Nx2N or NxN), optionally with
cu_transquant_bypass and SAO. Deblocking then runs across PCM/intra edges, and
pcm_loop_filter_disabled_flag decides whether it (and SAO) may touch PCM samples.
"""
import json, math, os, random, subprocess, zlib
import hevc_writer as hw
from make_fixtures import decode

VARIANTS = [
    dict(file="pcm_mixed.265", width=208, height=144, bit_depth=8, log2_min_cb=3, log2_ctb=5, sao=True,
         pcm_bits=(8, 8), log2_pcm=(3, 5), pcm_loop_filter_disabled=False, init_qp=32, transquant_bypass=False,
         deblocking=None, seed=1,
         features="PCM 8-32 at full bit depth beside prediction-only intra CUs (2Nx2N and NxN), deblocking and SAO over PCM"),
    dict(file="pcm_lowdepth_keep.265", width=200, height=136, crop=(6, 4), bit_depth=8, log2_min_cb=3, log2_ctb=4,
         sao=True, pcm_bits=(5, 4), log2_pcm=(4, 4), pcm_loop_filter_disabled=True, init_qp=37,
         transquant_bypass=False, deblocking=(2, 3), seed=2,
         features="PCM 16x16 only at 5/4 bits, pcm_loop_filter_disabled_flag (deblocking and SAO keep PCM samples), "
                  "CTB 16, deblocking offsets, conformance crop"),
    dict(file="pcm_main10.265", width=192, height=128, bit_depth=10, log2_min_cb=3, log2_ctb=6, sao=True,
         pcm_bits=(9, 10), log2_pcm=(3, 5), pcm_loop_filter_disabled=False, init_qp=30, transquant_bypass=False,
         deblocking=None, seed=3,
         features="Main 10, PCM at 9/10 bits, CTB 64 with implicit transform split, SAO offsets up to 31"),
    dict(file="pcm_bypass.265", width=160, height=96, bit_depth=8, log2_min_cb=3, log2_ctb=5, sao=False,
         pcm_bits=(7, 8), log2_pcm=(3, 4), pcm_loop_filter_disabled=False, init_qp=40, transquant_bypass=True,
         deblocking=None, seed=4,
         features="cu_transquant_bypass_flag beside PCM and intra CUs (bypass CUs keep their samples), QP 40"),
]


def pattern(x, y, plane, seed):
    """A smooth test picture with low noise: smooth enough that deblocking filters the CU edges."""
    phase = seed * 0.7 + plane * 1.3
    v = 0.5 + 0.25 * math.sin(x / 11.0 + phase) + 0.2 * math.cos(y / 7.0 - phase) + 0.05 * math.sin((x + y) / 3.0)
    return min(max(v, 0.0), 1.0)


class PictureWriter:
    def __init__(self, v):
        self.v = v
        self.rng = random.Random(v["seed"])
        self.min_cb = 1 << v["log2_min_cb"]
        self.cols = v["width"] // self.min_cb
        self.depth = [[0] * self.cols for _ in range(v["height"] // self.min_cb)]
        self.out = hw.BitWriter()
        hw.slice_header(self.out, v["sao"])
        self.cabac = hw.CABACEncoder(self.out, v["init_qp"])

    def write(self):
        v = self.v
        ctb = 1 << v["log2_ctb"]
        cols, rows = -(-v["width"] // ctb), -(-v["height"] // ctb)
        for ry in range(rows):
            for rx in range(cols):
                if v["sao"]:
                    self.sao(rx, ry)
                self.quadtree(rx * ctb, ry * ctb, v["log2_ctb"], 0)
                self.cabac.terminate(1 if (rx, ry) == (cols - 1, rows - 1) else 0)
        self.out.align_zero()
        return hw.nal_unit(19, self.out.to_bytes())

    def sao(self, rx, ry):
        c, rng = self.cabac, self.rng
        if rx > 0:
            merge = rng.random() < 0.3
            c.decision("sao_merge", 0, merge)
            if merge:
                return
        if ry > 0:
            merge = rng.random() < 0.3
            c.decision("sao_merge", 0, merge)
            if merge:
                return
        cmax = (1 << (min(self.v["bit_depth"], 10) - 5)) - 1
        kind = 0
        for cidx in range(3):
            if cidx < 2:
                kind = rng.choice([0, 1, 2])
                c.decision("sao_type_idx", 0, kind != 0)
                if kind:
                    c.bypass(kind == 2)
            if kind == 0:
                continue
            offsets = [rng.randint(0, cmax) for _ in range(4)]
            for o in offsets:
                for _ in range(o):
                    c.bypass(1)
                if o < cmax:
                    c.bypass(0)
            if kind == 1:
                for o in offsets:
                    if o:
                        c.bypass(rng.random() < 0.5)
                c.bypass_bits(rng.randint(0, 31), 5)
            elif cidx < 2:
                c.bypass_bits(rng.randint(0, 3), 2)

    def quadtree(self, x0, y0, log2, depth):
        v, size = self.v, 1 << log2
        inside = x0 + size <= v["width"] and y0 + size <= v["height"]
        if inside and log2 > v["log2_min_cb"]:
            ctx = 0
            if x0 > 0 and self.depth[y0 // self.min_cb][(x0 - 1) // self.min_cb] > depth:
                ctx += 1
            if y0 > 0 and self.depth[(y0 - 1) // self.min_cb][x0 // self.min_cb] > depth:
                ctx += 1
            split = self.rng.random() < (0.75 if log2 > 5 else 0.45)
            self.cabac.decision("split_cu_flag", ctx, split)
        else:
            split = log2 > v["log2_min_cb"]
        if split:
            half = size // 2
            for dy in (0, half):
                for dx in (0, half):
                    if x0 + dx < v["width"] and y0 + dy < v["height"]:
                        self.quadtree(x0 + dx, y0 + dy, log2 - 1, depth + 1)
            return
        for y in range(y0 // self.min_cb, (y0 + size) // self.min_cb):
            for x in range(x0 // self.min_cb, (x0 + size) // self.min_cb):
                self.depth[y][x] = depth
        self.coding_unit(x0, y0, log2)

    def coding_unit(self, x0, y0, log2):
        v, c, rng = self.v, self.cabac, self.rng
        if v["transquant_bypass"]:
            c.decision("cu_transquant_bypass_flag", 0, rng.random() < 0.4)
        nxn = False
        if log2 == v["log2_min_cb"]:
            nxn = log2 == 3 and rng.random() < 0.25
            c.decision("part_mode", 0, not nxn)
        if not nxn and v["log2_pcm"][0] <= log2 <= v["log2_pcm"][1]:
            pcm = rng.random() < 0.5
            c.terminate(pcm)
            if pcm:
                self.pcm_samples(x0, y0, 1 << log2)
                c.start()
                return
        parts = 4 if nxn else 1
        mpm = [rng.random() < 0.5 for _ in range(parts)]
        for flag in mpm:
            c.decision("prev_intra_luma_pred_flag", 0, flag)
        for flag in mpm:
            if flag:
                idx = rng.randint(0, 2)
                c.bypass(idx > 0)
                if idx > 0:
                    c.bypass(idx > 1)
            else:
                c.bypass_bits(rng.randint(0, 31), 5)
        chroma = rng.randint(0, 4)
        c.decision("intra_chroma_pred_mode", 0, chroma != 4)
        if chroma != 4:
            c.bypass_bits(chroma, 2)
        self.transform_tree(log2, 0, nxn)

    def transform_tree(self, log2, depth, nxn):
        """No residual: every coded block flag is 0. max_transform_hierarchy_depth_intra is 0,
        so split_transform_flag is never sent; a split is implied above the largest transform
        (32x32, or the CTB when smaller) and for NxN."""
        c = self.cabac
        split = log2 > min(5, self.v["log2_ctb"]) or (nxn and depth == 0)
        if log2 > 2 and depth == 0:
            c.decision("cbf_chroma", depth, 0)
            c.decision("cbf_chroma", depth, 0)
        if split:
            for _ in range(4):
                self.transform_tree(log2 - 1, depth + 1, nxn)
        else:
            c.decision("cbf_luma", 1 if depth == 0 else 0, 0)

    def pcm_samples(self, x0, y0, size):
        """pcm_alignment_zero_bits, then luma, Cb and Cr samples at the PCM bit depths."""
        v, out = self.v, self.out
        out.align_zero()
        for plane, (step, bits) in enumerate([(1, v["pcm_bits"][0]), (2, v["pcm_bits"][1]), (2, v["pcm_bits"][1])]):
            n = size // step
            top = (1 << bits) - 1
            for y in range(n):
                for x in range(n):
                    s = pattern((x0 // step + x) * step, (y0 // step + y) * step, plane, v["seed"])
                    noise = self.rng.uniform(-0.01, 0.01)
                    out.u(min(max(round((s + noise) * top), 0), top), bits)


def write(v):
    params = dict(v)
    stream = hw.vps(1 if v["bit_depth"] == 8 else 2) + hw.sps(params) + hw.pps(params) + PictureWriter(v).write()
    open(v["file"], "wb").write(stream)


def main():
    entries = []
    for v in VARIANTS:
        write(v)
        pix = "yuv420p" if v["bit_depth"] == 8 else "yuv420p10le"
        full = decode(v["file"])
        ff = subprocess.run(["ffmpeg", "-loglevel", "error", "-threads", "1", "-i", v["file"], "-f", "rawvideo",
                             "-pix_fmt", pix, "-"], check=True, capture_output=True).stdout
        # ffmpeg lets SAO change the chroma of PCM CUs that pcm_loop_filter_disabled_flag keeps
        # (libde265 and HM's PCM restoration keep all three planes), so it may differ there alone.
        differing = sum(a != b for a, b in zip(ff, full)) if len(ff) == len(full) else len(full)
        if differing and not v["pcm_loop_filter_disabled"]:
            raise SystemExit(f"{v['file']}: libde265 and ffmpeg decode different pictures")
        w, h = v["width"] - v.get("crop", (0, 0))[0], v["height"] - v.get("crop", (0, 0))[1]
        entries.append(dict(file=v["file"], size=f"{w}x{h}", params="", pix_fmt=pix, features=v["features"],
                            encoder="make_pcm.py", command="python3 make_pcm.py", expected="decodes",
                            crc32_prefilter="%08x" % zlib.crc32(decode(v["file"], "--disable-deblocking", "--disable-sao")),
                            crc32_full="%08x" % zlib.crc32(full)))
        if differing:
            entries[-1]["ffmpeg_differs"] = f"{differing} chroma samples of PCM CUs that SAO must keep"
        print(v["file"], os.path.getsize(v["file"]), "bytes", entries[-1]["crc32_full"])
    manifest = json.load(open("manifest.json"))
    names = {e["file"] for e in entries}
    manifest["streams"] = [e for e in manifest["streams"] if e["file"] not in names] + entries
    json.dump(manifest, open("manifest.json", "w"), indent=1)


if __name__ == "__main__":
    main()
