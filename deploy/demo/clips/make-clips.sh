#!/bin/sh
# deploy/demo/clips/make-clips.sh SUNSET.jpg
# Remakes the demo's movies from one demo photo, "Sunset" by Aitzol Berasategi
# (lomiri-wallpapers-16.04: /usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg, in the demo
# as Landscapes/Sunset_by_Aitzol_Berasategi.jpg; licence in ATTRIBUTION.md): a slow pan across
# it, 3 s at 640x360, as H.264 (plays in every browser) and as HEVC in a QuickTime file (as
# iPhones record; Chromium on Linux cannot play it, so its page shows the poster and the
# download link), and a Live Photo: a still and a 1.5 s movie of the same base name.
# Needs ffmpeg with libx264 and libx265 (Debian's). The files are committed beside this script:
# make-demo only copies them; nothing here runs when the gallery does.
set -eu
src="${1:?usage: make-clips.sh SUNSET.jpg}"
cd "$(dirname "$0")"
F="ffmpeg -hide_banner -loglevel error -y"
pan="scale=1280:-2,crop=640:360:x='t*(iw-640)/3':y='(ih-360)/2',format=yuv420p"
$F -loop 1 -i "$src" -t 3 -r 25 -vf "$pan" -c:v libx264 -preset slow -crf 28 -profile:v high \
   -x264-params log-level=error -movflags +faststart Sunset_pan_H264.mp4
$F -loop 1 -i "$src" -t 3 -r 25 -vf "$pan" -c:v libx265 -preset slow -crf 30 -tag:v hvc1 \
   -x265-params log-level=error -movflags +faststart Sunset_pan_HEVC.mov
$F -loop 1 -i "$src" -t 1.5 -r 25 -vf "$pan" -c:v libx264 -preset slow -crf 30 -profile:v main \
   -x264-params log-level=error -movflags +faststart+use_metadata_tags \
   -metadata com.apple.quicktime.content.identifier=DEMO-LIVE-0001 IMG_0001.MOV
$F -i IMG_0001.MOV -frames:v 1 -q:v 3 IMG_0001.JPG
ls -l Sunset_pan_H264.mp4 Sunset_pan_HEVC.mov IMG_0001.MOV IMG_0001.JPG
