#!/usr/bin/python3
"""Copies the JPEG conformance fixtures from a fixture folder (the one holding the JPEG matrix
and libjpeg-turbo test images with their manifest.json) into this folder.

References (djpeg 2.1.5 PNM decodes) are stored compact: identical files once, pixel rows
Sub-filtered (each sample minus the same channel of the pixel to its left, mod 256) and zlib
compressed, as `<name>.z` = 4-byte big-endian raw size + zlib stream of
"<PNM header><filtered samples>". References above 1 MB keep only their zlib CRC-32
(the test then requires a bit-exact decode). `reference/index.json` maps every manifest
reference path to {"file": ..., "crc32": ..., "size": ...}.
Run: /usr/bin/python3 tools/pack_references.py FIXTURE_DIR
"""
import hashlib, json, os, shutil, struct, sys, zlib

src = sys.argv[1]
dst = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
manifest = json.load(open(os.path.join(src, 'manifest.json')))
shutil.copy(os.path.join(src, 'manifest.json'), os.path.join(dst, 'manifest.json'))
for sub in ('generated', 'libjpeg-turbo', 'reference'):
    os.makedirs(os.path.join(dst, sub), exist_ok=True)
wanted_kinds = {'full', 's1_2', 's1_4', 's1_8', 'rgb_naive_full', 'full_oriented'}
index, stored = {}, {}

def pnm_split(d):
    fields, i = [], 0
    magic = d[:2]
    i = 2
    while len(fields) < 3:
        while d[i] in b' \t\r\n': i += 1
        j = i
        while d[j] not in b' \t\r\n': j += 1
        fields.append(int(d[i:j])); i = j
    i += 1
    return magic, fields, d[:i], d[i:]

for f in manifest['files']:
    name = f['file']
    shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    for kind, ref in f.get('references', {}).items():
        if kind not in wanted_kinds:
            continue
        d = open(os.path.join(src, ref), 'rb').read()
        h = hashlib.sha256(d).hexdigest()
        entry = {'crc32': zlib.crc32(d), 'size': len(d)}
        if len(d) <= 1_000_000:
            if h not in stored:
                magic, (w, hh, _), header, px = pnm_split(d)
                ch = 3 if magic == b'P6' else 1
                out = bytearray(px)
                rb = w * ch
                for y in range(hh):
                    base = y * rb
                    for x in range(rb - 1, ch - 1, -1):
                        out[base + x] = (px[base + x] - px[base + x - ch]) & 255
                blob = struct.pack('>I', len(d)) + zlib.compress(header + bytes(out), 9)
                fn = 'reference/' + os.path.basename(ref) + '.z'
                open(os.path.join(dst, fn), 'wb').write(blob)
                stored[h] = fn
            entry['file'] = stored[h]
        index[ref] = entry
json.dump(index, open(os.path.join(dst, 'reference', 'index.json'), 'w'), indent=1, sort_keys=True)
shutil.copy(os.path.join(src, 'libjpeg-turbo', 'LICENSE.txt'), os.path.join(dst, 'libjpeg-turbo', 'LICENSE.txt'))
