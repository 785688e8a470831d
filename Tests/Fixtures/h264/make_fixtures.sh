#!/usr/bin/env bash
# Regenerates the H.264 fixtures and manifest.json: one intra picture per stream, written by
# the x264 CLI (and ffmpeg's libx264 for one), with the MD5 of each plane of ffmpeg's decode.
#   Tests/Fixtures/h264/make_fixtures.sh
# Needs x264, ffmpeg, python3. The photo source is a JPEG fixture of this repository.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PHOTO="$HERE/../jpeg/generated/odd_1001x667_420.jpg"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$HERE"
rm -f ./*.264 manifest.json

# source NAME W H KIND [PIX_FMT]: raw frame $TMP/NAME.yuv from the photo or ffmpeg's testsrc2.
source_yuv() {
    local name=$1 w=$2 h=$3 kind=$4 fmt=${5:-yuv420p}
    if [[ $kind == photo ]]; then
        ffmpeg -v error -y -i "$PHOTO" -vf "scale=$w:$h" -pix_fmt "$fmt" -frames:v 1 -f rawvideo "$TMP/$name.yuv"
    else
        ffmpeg -v error -y -f lavfi -i "testsrc2=size=${w}x$h:rate=1" -pix_fmt "$fmt" -frames:v 1 -f rawvideo "$TMP/$name.yuv"
    fi
}

# enc NAME W H KIND X264-OPTIONS...: one intra frame.
enc() {
    local name=$1 w=$2 h=$3 kind=$4; shift 4
    local csp=i420 fmt=yuv420p
    for a in "$@"; do [[ $a == i400 ]] && { csp=i400; fmt=gray; }; done
    source_yuv "$name" "$w" "$h" "$kind" "$fmt"
    x264 --quiet --frames 1 --keyint 1 --input-res "${w}x$h" --input-csp "$csp" "$@" -o "$name.264" "$TMP/$name.yuv" 2>/dev/null
}

enc base_photo_176x144      176 144 photo --profile baseline --qp 26
enc base_synth_qp10_64x48   64 48   synth --profile baseline --qp 10
enc base_photo_qp45_98x62   98 62   photo --profile baseline --qp 45
enc base_slices4_160x96     160 96  photo --profile baseline --qp 30 --slices 4
enc base_nodeblock_128x96   128 96  photo --profile baseline --qp 32 --no-deblock
enc base_deblock_m3p2_96x80 96 80   photo --profile baseline --qp 34 --deblock -3:2
enc base_deblock_p4m2_96x80 96 80   synth --profile baseline --qp 38 --deblock 4:-2
enc base_slices_nofilter_112x64 112 64 photo --profile baseline --qp 36 --slices 3 --deblock 6:6
enc main_photo_176x144      176 144 photo --profile main --qp 26
enc main_synth_qp16_80x64   80 64   synth --profile main --qp 16
enc main_photo_qp44_98x62   98 62   photo --profile main --qp 44
enc main_slices3_144x112    144 112 photo --profile main --qp 30 --slices 3
enc main_crf_352x288        352 288 photo --profile main --crf 20 --preset veryslow
enc high_photo_176x144      176 144 photo --profile high --qp 26
enc high_synth_160x128      160 128 synth --profile high --qp 22 --preset veryslow
enc high_cavlc_176x144      176 144 photo --profile high --qp 28 --no-cabac
enc high_no8x8_128x80       128 80  photo --profile high --qp 30 --no-8x8dct
enc high_jvt_cabac_176x144  176 144 photo --profile high --qp 28 --cqm jvt
enc high_jvt_cavlc_144x96   144 96  photo --profile high --qp 30 --cqm jvt --no-cabac
enc high_cqm_custom_120x88  120 88  photo --profile high --qp 24 \
    --cqm4iy 6,12,14,18,12,15,19,23,14,19,24,28,18,23,28,34 --cqm4ic 8,10,12,14,10,12,14,16,12,14,16,18,14,16,18,20 \
    --cqm8i 6,10,12,14,16,18,20,22,10,12,14,16,18,20,22,24,12,14,16,18,20,22,24,26,14,16,18,20,22,24,26,28,16,18,20,22,24,26,28,30,18,20,22,24,26,28,30,32,20,22,24,26,28,30,32,34,22,24,26,28,30,32,34,36
enc high_gray_176x144       176 144 photo --profile high --qp 26 --output-csp i400
enc high_qp51_98x62         98 62   photo --profile high --qp 51
enc high_qp0ish_64x48       64 48   synth --profile high --qp 1
enc high_slices4_cavlc_160x96 160 96 photo --profile high --qp 27 --slices 4 --no-cabac
enc high_photo_1280x720     1280 720 photo --profile high --crf 30 --preset medium

# ffmpeg's libx264, with VUI colour description.
ffmpeg -v error -y -i "$PHOTO" -vf scale=192:128 -frames:v 1 -c:v libx264 -pix_fmt yuv420p \
    -x264-params keyint=1:qp=27:8x8dct=1:cabac=1 -color_primaries bt709 -color_trc bt709 -colorspace bt709 \
    -bsf:v h264_mp4toannexb -f h264 ffmpeg_vui_192x128.264

# Refused streams (no reference planes).
source_yuv refuse 64 48 synth
x264 --quiet --frames 2 --keyint 1 --input-res 64x48 --tff -o refuse_interlaced.264 "$TMP/refuse.yuv" 2>/dev/null || true
ffmpeg -v error -y -f lavfi -i testsrc2=size=64x48:rate=1 -frames:v 1 -c:v libx264 -pix_fmt yuv422p -x264-params keyint=1 -f h264 refuse_422.264
ffmpeg -v error -y -f lavfi -i testsrc2=size=64x48:rate=1 -frames:v 1 -c:v libx264 -pix_fmt yuv420p10le -x264-params keyint=1 -f h264 refuse_10bit.264
ffmpeg -v error -y -f lavfi -i testsrc2=size=64x48:rate=1 -frames:v 1 -c:v libx264 -pix_fmt yuv444p -x264-params keyint=1 -f h264 refuse_444.264

python3 - <<'PY'
import hashlib, json, os, subprocess
streams = []
for f in sorted(os.listdir('.')):
    if not f.endswith('.264'):
        continue
    if f.startswith('refuse_'):
        streams.append({"file": f, "expected": "unsupported"})
        continue
    probe = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                            'stream=width,height,pix_fmt', '-of', 'csv=p=0', f], capture_output=True, text=True).stdout.split(',')
    w, h, fmt = int(probe[0]), int(probe[1]), probe[2].strip()
    gray = fmt.startswith('gray') or '_gray_' in f
    # ffmpeg decodes 4:0:0 as yuv420p with grey chroma; its gray conversion would rescale the
    # luma, so the Y plane of the native output is the reference.
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-i', f, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt',
                          'yuv420p', '-'], capture_output=True, check=True).stdout
    c = ((w + 1) // 2) * ((h + 1) // 2)
    assert w * h + 2 * c == len(raw), (f, len(raw))
    sizes = [w * h] if gray else [w * h, c, c]
    md5s, off = [], 0
    for s in sizes:
        md5s.append(hashlib.md5(raw[off:off + s]).hexdigest())
        off += s
    # The same before the deblocking filter (ffmpeg -skip_loop_filter all).
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-skip_loop_filter', 'all', '-i', f, '-frames:v', '1', '-f', 'rawvideo',
                          '-pix_fmt', 'yuv420p', '-'], capture_output=True, check=True).stdout
    unfiltered, off = [], 0
    for s in sizes:
        unfiltered.append(hashlib.md5(raw[off:off + s]).hexdigest())
        off += s
    streams.append({"file": f, "width": w, "height": h, "planes": md5s, "planes_unfiltered": unfiltered})
json.dump({"generator": "make_fixtures.sh", "streams": streams}, open('manifest.json', 'w'), indent=1)
PY
ls -l *.264 | awk '{s+=$5} END {print s " bytes of streams"}'
