#!/usr/bin/env python3
"""Files ffmpeg does not write: a co64 copy of hevc-moov-end.mp4 and hostile files for the demuxer."""
import struct

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta"}


def parse(data, start=0, end=None):
    end = len(data) if end is None else end
    out, at = [], start
    while at < end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        body = data[at + header:at + size]
        out.append([kind, parse(data, at + header, at + size) if kind in CONTAINERS else body])
        at += size
    return out


def build(boxes):
    out = b""
    for kind, body in boxes:
        payload = build(body) if isinstance(body, list) else body
        out += struct.pack(">I4s", 8 + len(payload), kind) + payload
    return out


def find(boxes, path):
    for kind, body in boxes:
        if kind == path[0]:
            return body if len(path) == 1 else find(body, path[1:])
    return None


def stbl_of(boxes):
    return find(boxes, [b"moov", b"trak", b"mdia", b"minf", b"stbl"])


def replace(stbl, kind, body):
    for entry in stbl:
        if entry[0] == kind:
            entry[1] = body
            return
    raise KeyError(kind)


src = open("hevc-moov-end.mp4", "rb").read()

# co64: the same file with its chunk offsets as 64-bit entries (moov is at the end, so the
# offsets into mdat do not move).
boxes = parse(src)
stbl = stbl_of(boxes)
for entry in stbl:
    if entry[0] == b"stco":
        count = struct.unpack(">I", entry[1][4:8])[0]
        offsets = struct.unpack(">%dI" % count, entry[1][8:8 + 4 * count])
        entry[0] = b"co64"
        entry[1] = entry[1][:8] + b"".join(struct.pack(">Q", o) for o in offsets)
open("hevc-co64.mp4", "wb").write(build(boxes))


def hostile(name, data):
    open("hostile-" + name + ".mp4", "wb").write(data)


fast = open("hevc-faststart.mp4", "rb").read()
moov_at = fast.index(b"moov") - 4
hostile("truncated-moov", fast[:moov_at + 300])

boxes = parse(src)
stbl = stbl_of(boxes)
stco = find(stbl, [b"stco"])
count = struct.unpack(">I", stco[4:8])[0]
replace(stbl, b"stco", stco[:8] + struct.pack(">I", 0xFFFFFF00) * count)
hostile("offset-past-end", build(boxes))

boxes = parse(src)
stbl = stbl_of(boxes)
replace(stbl, b"stsz", struct.pack(">IIII", 0, 0, 0xFFFFFFFF, 7))
hostile("huge-stsz", build(boxes))

boxes = parse(src)
stbl = stbl_of(boxes)
replace(stbl, b"stsc", struct.pack(">II", 0, 0x7FFFFFFF) + struct.pack(">III", 1, 1, 1))
hostile("huge-stsc", build(boxes))

boxes = parse(src)
stbl = stbl_of(boxes)
replace(stbl, b"stsz", struct.pack(">IIII", 0, 0x7FFFFFF0, 3, 0))
hostile("huge-sample", build(boxes))

boxes = parse(src)
stbl = stbl_of(boxes)
replace(stbl, b"stss", struct.pack(">III", 0, 1, 99))
hostile("sync-past-end", build(boxes))

# A top-level box of size 0 ("to the end of the file") before moov: moov is never reached.
ftyp_end = struct.unpack(">I", src[:4])[0]
hostile("zero-size", src[:ftyp_end] + struct.pack(">I4s", 0, b"free") + src[ftyp_end:])
# A box whose size is smaller than its header.
hostile("size-loop", src[:ftyp_end] + struct.pack(">I4s", 4, b"free") + src[ftyp_end:])
# A 64-bit size pointing far past the end of the file.
hostile("largesize", src[:ftyp_end] + struct.pack(">I4sQ", 1, b"mdat", 1 << 60) + src[ftyp_end:])
# A child of moov (trak) claiming more bytes than moov holds.
moov_at = src.index(b"moov") - 4
trak_at = src.index(b"trak", moov_at) - 4
hostile("child-overruns", src[:trak_at] + struct.pack(">I", 0x7FFFFFFF) + src[trak_at + 4:])

# hev1 with its parameter sets only in the stream: hvcC keeps its fixed fields and lists no
# arrays; the VPS, SPS and PPS are put in front of the first sample (length-prefixed).
src = open("hev1-source.tmp.mp4", "rb").read()
boxes = parse(src)
stbl = stbl_of(boxes)
stsd = find(stbl, [b"stsd"])
at = stsd.index(b"hvcC") - 4
size = struct.unpack(">I", stsd[at:at + 4])[0]
hvcc = stsd[at + 8:at + size]
nals, i = [], 23
for _ in range(hvcc[22]):
    count = struct.unpack(">H", hvcc[i + 1:i + 3])[0]
    i += 3
    for _ in range(count):
        n = struct.unpack(">H", hvcc[i:i + 2])[0]
        nals.append(hvcc[i + 2:i + 2 + n])
        i += 2 + n
empty = hvcc[:22] + b"\0"
entry_at = 8
entry_size = struct.unpack(">I", stsd[entry_at:entry_at + 4])[0]
new_stsd = stsd[:at] + struct.pack(">I4s", 8 + len(empty), b"hvcC") + empty + stsd[at + size:]
delta_entry = len(new_stsd) - len(stsd)
new_stsd = new_stsd[:entry_at] + struct.pack(">I", entry_size + delta_entry) + new_stsd[entry_at + 4:]
replace(stbl, b"stsd", new_stsd)
prefix = b"".join(struct.pack(">I", len(n)) + n for n in nals)
stco = find(stbl, [b"stco"])
first = struct.unpack(">I", stco[8:12])[0]
stsz = find(stbl, [b"stsz"])
count = struct.unpack(">I", stsz[8:12])[0]
sizes = list(struct.unpack(">%dI" % count, stsz[12:12 + 4 * count]))
sizes[0] += len(prefix)
replace(stbl, b"stsz", stsz[:12] + struct.pack(">%dI" % count, *sizes))
out = b""
for kind, body in boxes:
    if kind == b"mdat":
        rel = first - (len(out) + 8)
        body = body[:rel] + prefix + body[rel:]
    out += build([[kind, body]])
open("hevc-hev1-inband.mp4", "wb").write(out)
