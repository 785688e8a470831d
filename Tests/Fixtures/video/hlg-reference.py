#!/usr/bin/env python3
"""Reference poster of hevc-hlg10.mov from the spec formulas, in float64 (no tables):
ffmpeg's first frame (yuv420p10le) -> BT.2020 NCL R'G'B' (limited range, chroma repeated)
-> HLG inverse OETF and OOTF for 1000 cd/m2, gamma 1.2 (BT.2100 Table 5)
-> BT.2390 EETF (sec. 5.4.1) on max(R,G,B), 1000 -> 203 cd/m2, same ratio on R, G, B
-> /203, sRGB curve, 8 bits, BT.2020 primaries kept.  Writes hevc-hlg10.reference.png."""
import subprocess
import numpy as np
import struct
import zlib

W, H = 160, 120
raw = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "hevc-hlg10.mov", "-frames:v", "1",
                      "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-"], check=True, capture_output=True).stdout
s = np.frombuffer(raw, dtype="<u2").astype(np.float64)
Y = s[:W * H].reshape(H, W)
U = s[W * H:W * H + W * H // 4].reshape(H // 2, W // 2).repeat(2, 0).repeat(2, 1)
V = s[W * H + W * H // 4:].reshape(H // 2, W // 2).repeat(2, 0).repeat(2, 1)
y = (Y / 4 - 16) / 219
pb = (U / 4 - 128) / 224
pr = (V / 4 - 128) / 224
kr, kb = 0.2627, 0.0593
r = np.clip(y + 2 * (1 - kr) * pr, 0, 1)
b = np.clip(y + 2 * (1 - kb) * pb, 0, 1)
g = np.clip(y - 2 * kb * (1 - kb) / (1 - kb - kr) * pb - 2 * kr * (1 - kr) / (1 - kb - kr) * pr, 0, 1)

a = 0.17883277
bb = 1 - 4 * a
c = 0.5 - a * np.log(4 * a)


def hlg_inv(e):
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - c) / a) + bb) / 12)


R, G, B = hlg_inv(r), hlg_inv(g), hlg_inv(b)
Ys = kr * R + (1 - kr - kb) * G + kb * B
gain = 1000 * np.power(np.maximum(Ys, 1e-12), 0.2)
R, G, B = R * gain, G * gain, B * gain

m1, m2 = 2610 / 16384, 2523 / 4096 * 128
c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32


def pq_inv(L):
    y = np.power(np.maximum(L, 0) / 10000, m1)
    return np.power((c1 + c2 * y) / (1 + c3 * y), m2)


def pq(e):
    p = np.power(np.maximum(e, 0), 1 / m2)
    return 10000 * np.power(np.maximum(p - c1, 0) / (c2 - c3 * p), 1 / m1)


span = pq_inv(1000)
maxlum = pq_inv(203) / span
ks = 1.5 * maxlum - 0.5


def eetf(L):
    e1 = np.minimum(pq_inv(L) / span, 1)
    t = (e1 - ks) / (1 - ks)
    p = (2 * t**3 - 3 * t**2 + 1) * ks + (t**3 - 2 * t**2 + t) * (1 - ks) + (-2 * t**3 + 3 * t**2) * maxlum
    return pq(np.where(e1 < ks, e1, p) * span)


M = np.maximum(np.maximum(R, G), np.maximum(B, 1e-9))
ratio = eetf(M) / M / 203
out = np.stack([R * ratio, G * ratio, B * ratio], -1)
out = np.clip(out, 0, 1)
enc = np.where(out <= 0.0031308, out * 12.92, 1.055 * np.power(out, 1 / 2.4) - 0.055)
pixels = np.round(enc * 255).astype(np.uint8)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


rows = b"".join(b"\0" + pixels[i].tobytes() for i in range(H))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
open("hevc-hlg10.reference.png", "wb").write(png)
