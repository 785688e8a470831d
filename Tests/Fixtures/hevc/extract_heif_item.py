#!/usr/bin/env python3
"""Writes the first hvc1 item of a HEIF file (its hvcC parameter sets, then its length-prefixed
NAL units) as an Annex B stream: python3 extract_heif_item.py IN.heic OUT.265
A minimal box walk for fixtures only (infe version 2 or 3 entries, iloc construction method 0)."""
import struct, sys
data = open(sys.argv[1], 'rb').read()
def boxes(buf, off, end):
    while off + 8 <= end:
        size, typ = struct.unpack('>I4s', buf[off:off+8]); hdr = 8
        if size == 1: size = struct.unpack('>Q', buf[off+8:off+16])[0]; hdr = 16
        elif size == 0: size = end - off
        yield typ.decode('latin1'), off + hdr, off + size
        off += size
meta = next((s, e) for t, s, e in boxes(data, 0, len(data)) if t == 'meta')
ms, me = meta[0] + 4, meta[1]
sub = {t: (s, e) for t, s, e in boxes(data, ms, me)}
# iinf
s, e = sub['iinf']; ver = data[s]; p = s + 4
cnt = struct.unpack('>H' if ver == 0 else '>I', data[p:p+(2 if ver == 0 else 4)])[0]; p += 2 if ver == 0 else 4
items = {}
for t, bs, be in boxes(data, p, e):
    v = data[bs]; q = bs + 4
    if v >= 2:
        iid = struct.unpack('>H' if v == 2 else '>I', data[q:q+(2 if v == 2 else 4)])[0]; q += 2 if v == 2 else 4
        q += 2; itype = data[q:q+4].decode('latin1'); items[iid] = itype
# iloc
s, e = sub['iloc']; v = data[s]; p = s + 4
a = data[p]; b = data[p+1]; p += 2
osz, lsz, bsz = a >> 4, a & 15, b >> 4; isz = b & 15 if v in (1, 2) else 0
def rd(n):
    global p
    if n == 0: return 0
    val = int.from_bytes(data[p:p+n], 'big'); p += n; return val
n = rd(2) if v < 2 else rd(4)
locs = {}
for _ in range(n):
    iid = rd(2) if v < 2 else rd(4)
    if v in (1, 2): rd(2)
    rd(2); base = rd(bsz); ec = rd(2); ext = []
    for _ in range(ec):
        if v in (1, 2) and isz > 0: rd(isz)
        eo = rd(osz); el = rd(lsz); ext.append((base + eo, el))
    locs[iid] = ext
# iprp
s, e = sub['iprp']
ip = {t: (a_, b_) for t, a_, b_ in boxes(data, s, e)}
props = [(t, a_, b_) for t, a_, b_ in boxes(data, *ip['ipco'])]
s, e = ip['ipma']; v = data[s]; fl = int.from_bytes(data[s+1:s+4], 'big'); p = s + 4
ec = rd(4); assoc = {}
for _ in range(ec):
    iid = rd(2) if v < 1 else rd(4); c = rd(1); lst = []
    for _ in range(c):
        x = rd(2) if fl & 1 else rd(1)
        lst.append(x & (0x7fff if fl & 1 else 0x7f))
    assoc[iid] = lst
iid = next(i for i, t in sorted(items.items()) if t == 'hvc1')
hv = next(props[k-1] for k in assoc[iid] if props[k-1][0] == 'hvcC')
_, s, e = hv
c = data[s:e]; lsize = (c[21] & 3) + 1; narr = c[22]; q = 23; out = b''
for _ in range(narr):
    q += 1; nn = struct.unpack('>H', c[q:q+2])[0]; q += 2
    for _ in range(nn):
        L = struct.unpack('>H', c[q:q+2])[0]; q += 2; out += b'\0\0\0\1' + c[q:q+L]; q += L
for off, ln in locs[iid]:
    blob = data[off:off+ln]; r = 0
    while r < len(blob):
        L = int.from_bytes(blob[r:r+lsize], 'big'); r += lsize; out += b'\0\0\0\1' + blob[r:r+L]; r += L
open(sys.argv[2], 'wb').write(out)
print("item", iid, "bytes", len(out), "types", set(items.values()))
