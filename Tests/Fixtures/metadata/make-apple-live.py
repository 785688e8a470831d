#!/usr/bin/env python3
"""Writes apple-live.jpg: a JPEG whose EXIF holds Make "Apple" and an Apple maker note (laid
out as ExifTool's Apple tag table describes it: "Apple iOS\\0", version 1, "MM", an IFD whose
offsets count from the note's start) with MakerNoteVersion 12 and the media group UUID
(0x0011) of a Live Photo; ../video/live-uuid.mov carries the same content identifier.
`exiftool -Apple:all apple-live.jpg` reads MediaGroupUUID back."""
import os, struct

UUID = b"FFCBAC24-E547-4BBC-AF47-38B1A3D845E3\0"
here = os.path.dirname(os.path.abspath(__file__))

note = bytearray(b"Apple iOS\0" + b"\0\x01" + b"MM")
note += struct.pack(">H", 2)
note += struct.pack(">HHI", 0x0001, 9, 1) + struct.pack(">i", 12)
note += struct.pack(">HHII", 0x0011, 2, len(UUID), 14 + 2 + 24 + 4)
note += b"\0\0\0\0" + UUID

make = b"Apple\0"
tiff = bytearray(300 + len(note))
tiff[0:8] = b"MM\0*" + struct.pack(">I", 8)
ifd0 = struct.pack(">H", 2) + struct.pack(">HHII", 0x010F, 2, len(make), 200) + struct.pack(">HHII", 0x8769, 4, 1, 100) + b"\0\0\0\0"
exif = struct.pack(">H", 1) + struct.pack(">HHII", 0x927C, 7, len(note), 300) + b"\0\0\0\0"
tiff[8:8 + len(ifd0)] = ifd0
tiff[100:100 + len(exif)] = exif
tiff[200:206] = make
tiff[300:] = note

base = open(os.path.join(here, "../jpeg/generated/flower_444_q75.jpg"), "rb").read()
app1 = b"Exif\0\0" + bytes(tiff)
segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
open(os.path.join(here, "apple-live.jpg"), "wb").write(base[:2] + segment + base[2:])
