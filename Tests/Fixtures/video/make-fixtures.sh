#!/bin/sh
# Regenerates the video fixtures (ffmpeg with libx265/libx264, python3 for the synthesised and
# hostile files) and MANIFEST (MD5 of the first frame's planes as ffmpeg decodes them,
# rotation as ffprobe reports the display matrix).
set -e
cd "$(dirname "$0")"
F="ffmpeg -hide_banner -loglevel error -y"
SRC="-f lavfi -i testsrc2=size=128x96:rate=25:duration=0.12"
X265="-c:v libx265 -x265-params log-level=error:keyint=25 -tag:v hvc1"
$F $SRC $X265 -pix_fmt yuv420p hevc-moov-end.mp4
$F $SRC $X265 -pix_fmt yuv420p -movflags +faststart hevc-faststart.mp4
for r in 90 180 270; do
  # The rotate tag survives only a stream copy on ffmpeg 5.1 (an encode drops it).
  $F -i hevc-moov-end.mp4 -c copy -metadata:s:v:0 rotate=$r hevc-rot$r.mp4
done
$F $SRC $X265 -pix_fmt yuv420p -movflags use_metadata_tags \
   -metadata com.apple.quicktime.make=Apple -metadata com.apple.quicktime.model="iPhone 15 Pro" \
   -metadata com.apple.quicktime.creationdate=2024-06-01T12:34:56+0200 \
   -metadata com.apple.quicktime.location.ISO6709=+48.8584+002.2945+035.000/ \
   -metadata com.apple.quicktime.content.identifier=0A1B2C3D-LIVE \
   hevc-keys.mov
$F -f lavfi -i "testsrc2=size=160x120:rate=30:duration=0.1" -c:v libx265 -tag:v hvc1 -pix_fmt yuv420p10le \
   -x265-params log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc \
   -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc hevc-hlg10.mov
$F $SRC -c:v libx264 -pix_fmt yuv420p -x264-params log-level=error h264.mp4
$F $SRC -c:v libx264 -pix_fmt yuv420p -profile:v baseline h264.3gp
$F $SRC -c:v libx264 -pix_fmt yuv420p -f ipod h264.m4v
# A Live Photo movie named unlike its still: paired by this content identifier, which the
# still carries in its Apple maker note (Tests/Fixtures/metadata/apple-live.jpg).
$F -i h264.mp4 -c copy -movflags use_metadata_tags \
   -metadata com.apple.quicktime.content.identifier=FFCBAC24-E547-4BBC-AF47-38B1A3D845E3 live-uuid.mov
$F $SRC -c:v libx265 -x265-params log-level=error -tag:v hev1 -pix_fmt yuv420p hev1-source.tmp.mp4
python3 make-synthetic.py
rm -f hev1-source.tmp.mp4
# Reference planes of the first frame (decoded by ffmpeg) and the display matrix rotation.
: > MANIFEST
for f in *.mp4 *.mov *.m4v *.3gp; do
  case $f in hostile-*) continue;; esac
  pix=yuv420p; case $f in *hlg10*) pix=yuv420p10le;; esac
  md5=$(ffmpeg -hide_banner -loglevel error -autorotate 0 -i "$f" -frames:v 1 -f rawvideo -pix_fmt $pix - | md5sum | cut -d' ' -f1)
  rot=$(ffprobe -v error -select_streams v:0 -show_entries stream_side_data=rotation -of default=nw=1:nk=1 "$f" | head -1)
  echo "$f $pix $md5 rotation=${rot:-0}" >> MANIFEST
done
python3 hlg-reference.py
