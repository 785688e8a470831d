#!/usr/bin/env python3
"""Rebuilds the HEVC conformance fixtures: tiny x265 streams (ffmpeg + libx265) and the CRC-32
of libde265's decode of each, before the loop filters (--disable-deblocking --disable-sao)
and with them. Run from this folder: python3 make_fixtures.py [PHOTO.jpg]

The tile and dependent-slice streams need kvazaar, which x265 cannot stand in for and Debian 12
does not package: set FFMPEG_KVAZAAR to an ffmpeg built with libkvazaar (the static ffmpeg in
PyPI's imageio-ffmpeg wheel has it). Without it their recorded entries are kept as they are.

The byte layout the CRCs cover is libde265-dec265's -o output: Y, then Cb and Cr, cropped to
the conformance window, one byte per sample at 8 bits, two (little-endian) above 8 bits.
"""
import json, subprocess, sys, zlib, os

def stream(name, size, params, pix="yuv420p", src=None, features="", encoder="x265"):
    return dict(file=name + ".265", size=size, params=params, pix_fmt=pix, source=src or f"testsrc2=size={size}",
                features=features, encoder=encoder)

def kvazaar(name, size, params, features):
    return stream(name, size, params, features=features, encoder="kvazaar")

STREAMS = [
    stream("ctu16_wpp", "176x144", "ctu=16", features="CTB 16, wavefront (x265 default), sign hiding, RDOQ, cu_qp_delta"),
    stream("ctu32_tu3", "176x144", "ctu=32:tu-intra-depth=3", features="CTB 32, transform tree depth 3"),
    stream("ctu64_tu4", "192x128", "ctu=64:tu-intra-depth=4:max-tu-size=32",
           features="CTB 64 with implicit transform split, QG 32 inside CTB 64"),
    stream("nowpp", "176x144", "ctu=32:wpp=0", features="one substream, no entry points"),
    stream("nosignhide", "176x144", "ctu=16:signhide=0:rdoq-level=0", features="no sign data hiding"),
    stream("tskip", "176x144", "ctu=16:tskip=1:rdoq-level=2", features="transform_skip_flag on 4x4 blocks"),
    stream("scaling_default", "176x144", "ctu=32:scaling-list=default", features="default scaling lists (SPS)"),
    stream("lossless", "64x48", "ctu=16:lossless=1", features="cu_transquant_bypass everywhere"),
    stream("cu_lossless", "96x64", "ctu=16:cu-lossless=1:qp=30", features="cu_transquant_bypass per CU"),
    stream("main10", "176x144", "ctu=32", "yuv420p10le", features="Main 10"),
    stream("gray", "176x144", "ctu=16", "gray", features="4:0:0"),
    stream("gray10", "96x64", "ctu=16", "gray10le", features="4:0:0 at 10 bits"),
    stream("slices_wpp", "176x144", "ctu=16:slices=3", features="3 slices with wavefront"),
    stream("odd_size", "100x76", "ctu=16", features="conformance window crop (pictures coded at 104x80)"),
    stream("qp48", "128x96", "ctu=32:qp=48", features="high QP"),
    stream("qp4", "64x64", "ctu=16:qp=4", features="low QP, long coeff_abs_level_remaining codes"),
    stream("aq_qg16", "176x144", "ctu=64:aq-mode=2:aq-strength=2:qg-size=16", features="cu_qp_delta in 16x16 groups"),
    stream("filters", "176x144", "ctu=32:sao=1:deblock=2,-1", features="SAO and deblocking with offsets (full reference)"),
    stream("strong_smoothing", "256x192", "ctu=64:strong-intra-smoothing=1", features="strong intra smoothing of 32x32"),
    stream("yuv444", "64x64", "ctu=16", "yuv444p", features="4:4:4 (Main 4:4:4), intra 4x4 chroma"),
    stream("yuv444_10", "96x64", "ctu=32:tu-intra-depth=2", "yuv444p10le", features="4:4:4 at 10 bits, 32x32 chroma blocks"),
    stream("yuv444_tskip", "96x64", "ctu=16:tskip=1:signhide=0:rdoq-level=0", "yuv444p",
           features="4:4:4 with transform skip on 4x4 chroma, no sign hiding"),
    stream("yuv444_scaling", "96x64", "ctu=32:scaling-list=scaling_list.txt", "yuv444p",
           features="4:4:4 with transmitted scaling lists (32x32 chroma factors from the 16x16 lists)"),
    stream("yuv444_lossless", "64x48", "ctu=16:cu-lossless=1:qp=30", "yuv444p", features="4:4:4 with cu_transquant_bypass"),
    stream("yuv422", "176x144", "ctu=16", "yuv422p", features="4:2:2: stacked chroma blocks, table 8-3 modes, 4:2:2 deblocking grid"),
    stream("yuv422_10", "176x144", "ctu=32:tu-intra-depth=3", "yuv422p10le", features="4:2:2 at 10 bits (Canon HIF's format)"),
    stream("yuv422_ctu64", "192x128", "ctu=64:tu-intra-depth=4:max-tu-size=32:sao=1", "yuv422p",
           features="4:2:2 with CTB 64, implicit splits, SAO"),
    stream("yuv422_qp", "96x64", "ctu=16:qp=40:cbqpoffs=-4:crqpoffs=3", "yuv422p",
           features="4:2:2 at high QP with chroma QP offsets (QpC = Min(qPi, 51))"),
    stream("yuv422_lossless", "64x48", "ctu=16:cu-lossless=1:qp=30:tskip=1", "yuv422p",
           features="4:2:2 with cu_transquant_bypass and transform skip"),
    stream("yuv422_slices", "176x144", "ctu=16:slices=5", "yuv422p", features="4:2:2 with 5 slices and wavefront"),
    stream("slices_wpp_ctu32", "176x144", "ctu=32:slices=2", "yuv420p10le", features="2 slices with wavefront at 10 bits"),
    stream("main12", "64x64", "ctu=16", "yuv420p12le", features="12 bits: must be refused as unsupported"),
    stream("scaling_file", "176x144", "ctu=32:scaling-list=scaling_list.txt", features="scaling lists transmitted in the SPS"),
    stream("scaling_file_10bit", "176x144", "ctu=16:scaling-list=scaling_list.txt:tskip=1:signhide=0", "yuv420p10le",
           features="Main 10 with transmitted scaling lists and transform skip"),
    kvazaar("kvz_tiles_2x2", "320x192", "tiles=2x2", "2x2 uniform tiles in one slice: entry points, CABAC reset per tile"),
    kvazaar("kvz_tiles_2x1", "176x144", "tiles=2x1", "2 tile columns of 2 and 1 CTBs (uniform spacing, uneven split)"),
    kvazaar("kvz_tiles_split", "320x192", "tiles-width-split=64,tiles-height-split=128",
            "explicit tile column and row sizes (uniform_spacing_flag 0)"),
    kvazaar("kvz_tiles_3x2_slices", "320x192", "tiles=3x2,slices=tiles",
            "a slice per tile (6 slices), no filtering across tiles"),
    kvazaar("kvz_wpp_dependent", "320x192", "wpp=1,slices=wpp",
            "wavefront with a dependent slice segment per CTB row"),
    kvazaar("kvz_default", "320x192", "", "kvazaar's defaults: wavefront, SAO, deblocking, its own mode decisions"),
]

# Streams whose filtered picture libde265 and ffmpeg decode differently: the filtered check
# uses ffmpeg's (ours matches it), recorded as crc32_full_ffmpeg.
FFMPEG_FILTERED = {"slices_wpp.265", "kvz_tiles_3x2_slices.265"}

def decode(path, *flags):
    out = path + ".tmp.yuv"
    subprocess.run(["libde265-dec265", "-q", *flags, "-o", out, path], check=True, capture_output=True)
    data = open(out, "rb").read()
    os.remove(out)
    return data

def main():
    entries = []
    photo = sys.argv[1] if len(sys.argv) > 1 else None
    streams = list(STREAMS)
    if photo:
        streams.append(dict(file="photo_320x200.265", size="320x200", params="", pix_fmt="yuv420p", source=photo,
                            features="a photograph, x265 defaults (SAO, deblocking, WPP)"))
    # Without a photograph on the command line, keep the recorded entries of streams made from one.
    # Keep the entries of streams this script does not make: from a photograph when none is given,
    # and those of other generators (make_pcm.py) always.
    kept = []
    if os.path.exists("manifest.json"):
        names = {s["file"] for s in streams}
        kept = [e for e in json.load(open("manifest.json"))["streams"]
                if e["file"] not in names and (not photo or e.get("encoder") not in ("x265", "kvazaar", None))]
    kvazaar_ffmpeg = os.environ.get("FFMPEG_KVAZAAR")
    if not kvazaar_ffmpeg and os.path.exists("manifest.json"):
        recorded = {e["file"]: e for e in json.load(open("manifest.json"))["streams"]}
        kept += [recorded[s["file"]] for s in streams if s.get("encoder", "x265") == "kvazaar" and s["file"] in recorded]
        streams = [s for s in streams if s.get("encoder", "x265") != "kvazaar"]
    for s in streams:
        if s["source"].startswith("testsrc2"):
            inp = ["-f", "lavfi", "-i", s["source"]]
            vf = []
        else:
            inp = ["-i", s["source"]]
            vf = ["-vf", "scale=" + s["size"].replace("x", ":")]
        if s.get("encoder", "x265") == "kvazaar":
            tool = kvazaar_ffmpeg
            codec = ["-c:v", "libkvazaar"] + (["-kvazaar-params", s["params"]] if s["params"] else [])
        else:
            tool = "ffmpeg"
            codec = ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=1" + (":" + s["params"] if s["params"] else "")]
        cmd = [tool, "-hide_banner", "-loglevel", "error", *inp, *vf, "-frames:v", "1", "-pix_fmt", s["pix_fmt"],
               *codec, s["file"], "-y"]
        subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL if s.get("encoder", "x265") == "kvazaar" else None)
        e = dict(s)
        e["command"] = " ".join(cmd).replace(s["source"], os.path.basename(s["source"]) if not s["source"].startswith("testsrc2") else s["source"])
        if kvazaar_ffmpeg:
            e["command"] = e["command"].replace(kvazaar_ffmpeg, "ffmpeg")
        del e["source"]
        if s["pix_fmt"].endswith("12le"):
            e["expected"] = "unsupported"
        else:
            e["expected"] = "decodes"
            e["crc32_prefilter"] = "%08x" % zlib.crc32(decode(s["file"], "--disable-deblocking", "--disable-sao"))
            e["crc32_full"] = "%08x" % zlib.crc32(decode(s["file"]))
            if s["file"] in FFMPEG_FILTERED:
                ff = subprocess.run(["ffmpeg", "-loglevel", "error", "-threads", "1", "-i", s["file"], "-f", "rawvideo",
                                     "-pix_fmt", s["pix_fmt"], "-"], check=True, capture_output=True).stdout
                e["crc32_full_ffmpeg"] = "%08x" % zlib.crc32(ff)
        entries.append(e)
    entries += kept
    json.dump(dict(reference="libde265-dec265 1.0.11 (Debian), x265 and kvazaar via ffmpeg", streams=entries),
              open("manifest.json", "w"), indent=1)

if __name__ == "__main__":
    main()
