#!/usr/bin/env python3
"""Regenerates the motion photo fixtures: a small JPEG still (ffmpeg) with a one-second H.264
clip (ffmpeg's libx264) inside it, in the layouts phones write, and MANIFEST (each file's
movie range and the clip's MD5, so tests need no tool).

- motion-google.jpg: Google's Motion Photo: XMP with GCamera:MotionPhoto="1" and a
  Container:Directory (Primary image, then the MotionPhoto item with its Item:Length), the
  MP4 appended after the JPEG's EOI, as Pixel phones write it.
- motion-samsung.jpg: Samsung's: the marker MotionPhoto_Data after the EOI, the MP4, then a
  short SEF-like trailer (which must not be served).
"""
import hashlib, os, subprocess, struct, tempfile

here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp()
ff = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
subprocess.run(ff + ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=15:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                     "-profile:v", "main", "-movflags", "+faststart", "-x264-params", "log-level=error", tmp + "/clip.mp4"], check=True)
subprocess.run(ff + ["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", "-q:v", "4", tmp + "/still.jpg"], check=True)
clip = open(tmp + "/clip.mp4", "rb").read()
still = open(tmp + "/still.jpg", "rb").read()
assert still[:2] == b"\xff\xd8" and still[-2:] == b"\xff\xd9"

def with_xmp(jpeg, xmp):
    payload = b"http://ns.adobe.com/xap/1.0/\x00" + xmp.encode()
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]

google_xmp = f"""<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
 xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
 GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="0">
<Container:Directory><rdf:Seq>
<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="{len(clip)}" Item:Padding="0"/></rdf:li>
</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>"""
google = with_xmp(still, google_xmp) + clip
samsung = still + b"MotionPhoto_Data" + clip + b"\x00" * 8 + b"SEFH" + struct.pack("<I", 24) + b"SEFT"

manifest = []
for name, data, start in [("motion-google.jpg", google, len(google) - len(clip)),
                          ("motion-samsung.jpg", samsung, len(still) + len("MotionPhoto_Data"))]:
    assert data[start:start + len(clip)] == clip
    open(os.path.join(here, name), "wb").write(data)
    manifest.append(f"{name} start={start} length={len(clip)} md5={hashlib.md5(clip).hexdigest()}")
open(os.path.join(here, "still.jpg"), "wb").write(still)
manifest.append(f"still.jpg (the same still, no movie) md5={hashlib.md5(still).hexdigest()}")
open(os.path.join(here, "MANIFEST"), "w").write("\n".join(manifest) + "\n")
