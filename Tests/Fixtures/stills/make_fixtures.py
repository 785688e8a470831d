#!/usr/bin/python3
"""Regenerates the GIF, TIFF and camera raw fixtures and manifest.txt.

Run from anywhere with Debian's python3 (Pillow 9.4), libtiff-tools (tiffcp, tiffset) and
ImageMagick (/usr/bin/convert). References are Pillow's decodes: manifest lines are
`name kind width height md5-of-RGBA-pixels [key=value ...]`; kinds: exact (8-bit exact),
near (JPEG-compressed: mean absolute difference <= 1.5 against Pillow's decode, stored as NAME.ref.png), raw (the embedded
preview that must be chosen, with its EXIF facts), error (the ImageCodecError kind).
"""
import hashlib, io, os, struct, subprocess, sys, zlib
from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawwriter as rw

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
manifest = []


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def md5(im):
    return hashlib.md5(im.convert('RGBA').tobytes()).hexdigest()


def record(name, kind, im, **extra):
    tail = ''.join(f' {k}={v}' for k, v in extra.items())
    manifest.append(f'{name} {kind} {im.width} {im.height} {md5(im)}{tail}')


def base(w=97, h=67):
    im = Image.new('RGB', (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            px[x, y] = ((x * 255) // (w - 1), (y * 255) // (h - 1), ((x ^ y) * 7) & 255)
    d = ImageDraw.Draw(im)
    d.ellipse((w // 5, h // 5, w // 2, h * 3 // 4), fill=(240, 30, 60))
    d.rectangle((w * 3 // 5, h // 8, w - 4, h // 2), fill=(20, 200, 90))
    return im


img = base()
img.save('_base.png')

# ---- GIF ----------------------------------------------------------------------------
pal = img.quantize(colors=200, dither=Image.Dither.NONE)
pal.save('gif_basic.gif')
record('gif_basic.gif', 'exact', Image.open('gif_basic.gif'), frames=1)
run('/usr/bin/convert', '_base.png', '-interlace', 'GIF', '-colors', '64', 'gif_interlaced.gif')
record('gif_interlaced.gif', 'exact', Image.open('gif_interlaced.gif'), frames=1)
small = img.quantize(colors=16, dither=Image.Dither.NONE)
small.save('gif_transparent.gif', transparency=3)
record('gif_transparent.gif', 'exact', Image.open('gif_transparent.gif'), frames=1)
frames = [base(40, 30).quantize(colors=32), base(40, 30).rotate(90).quantize(colors=32), base(40, 30).transpose(Image.FLIP_LEFT_RIGHT).quantize(colors=32)]
frames[0].save('gif_animated.gif', save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=0)
record('gif_animated.gif', 'exact', Image.open('gif_animated.gif'), frames=3, duration=0.6)
# The first frame at 6,4 on a 52x40 screen: outside it the canvas is transparent.
frames[0].save('_f.gif')
g = bytearray(open('_f.gif', 'rb').read())
struct.pack_into('<HH', g, 6, 52, 40)
at = g.index(b'\x2c', 13 + 3 * (2 << (g[10] & 7)) if g[10] & 0x80 else 13)
struct.pack_into('<HH', g, at + 1, 6, 4)
open('gif_offset.gif', 'wb').write(g)
canvas = Image.new('RGBA', (52, 40), (0, 0, 0, 0))
canvas.paste(frames[0].convert('RGBA'), (6, 4))
record('gif_offset.gif', 'exact', canvas, frames=1)

# ---- TIFF ---------------------------------------------------------------------------
img.save('tiff_rgb_none.tif')
record('tiff_rgb_none.tif', 'exact', img)
for name, args in [('tiff_rgb_lzw_pred.tif', ['-c', 'lzw:2']), ('tiff_rgb_packbits.tif', ['-c', 'packbits', '-r', '7']),
                   ('tiff_rgb_zip_tiled.tif', ['-c', 'zip', '-t', '-w', '32', '-l', '16']),
                   ('tiff_rgb_lzw_tiled.tif', ['-c', 'lzw', '-t', '-w', '48', '-l', '32']),
                   ('tiff_planar_lzw.tif', ['-c', 'lzw:2', '-p', 'separate', '-r', '10']),
                   ('tiff_bigtiff_zip.tif', ['-8', '-c', 'zip:2'])]:
    run('tiffcp', *args, 'tiff_rgb_none.tif', name)
    record(name, 'exact', Image.open(name) if 'bigtiff' not in name else img)
run('tiffcp', '-c', 'jpeg:90', '-r', '16', 'tiff_rgb_none.tif', 'tiff_rgb_jpeg.tif')
record('tiff_rgb_jpeg.tif', 'near', Image.open('tiff_rgb_jpeg.tif'))
Image.open('tiff_rgb_jpeg.tif').convert('RGB').save('tiff_rgb_jpeg.tif.ref.png')
run('tiffcp', '-c', 'jpeg:90', '-t', '-w', '32', '-l', '32', 'tiff_rgb_none.tif', 'tiff_rgb_jpeg_tiled.tif')
record('tiff_rgb_jpeg_tiled.tif', 'near', Image.open('tiff_rgb_jpeg_tiled.tif'))
Image.open('tiff_rgb_jpeg_tiled.tif').convert('RGB').save('tiff_rgb_jpeg_tiled.tif.ref.png')
gray = img.convert('L')
gray.save('tiff_gray_lzw.tif', compression='tiff_lzw')
record('tiff_gray_lzw.tif', 'exact', gray)
run('/usr/bin/convert', '_base.png', '-colorspace', 'gray', '-define', 'tiff:photometric=min-is-white', 'tiff_gray_miniswhite.tif')
record('tiff_gray_miniswhite.tif', 'exact', Image.open('tiff_gray_miniswhite.tif'))
bw = gray.point(lambda v: 255 if v > 110 else 0).convert('1')
bw.save('tiff_bilevel_packbits.tif', compression='packbits')
record('tiff_bilevel_packbits.tif', 'exact', bw)
pimg = img.quantize(colors=200, dither=Image.Dither.NONE)
pimg.save('tiff_palette.tif')
record('tiff_palette.tif', 'exact', pimg)
p4 = img.quantize(colors=16, dither=Image.Dither.NONE)
run('/usr/bin/convert', '_base.png', '+dither', '-colors', '16', '-depth', '4', '-type', 'palette', 'tiff_palette4.tif')
record('tiff_palette4.tif', 'exact', Image.open('tiff_palette4.tif'))
cmyk = img.convert('CMYK')
cmyk.save('tiff_cmyk.tif', compression='tiff_deflate')
record('tiff_cmyk.tif', 'exact', Image.open('tiff_cmyk.tif').convert('RGB'))
# CMYK with its ICC profile: lcms (tificc, relative colorimetric) is the reference, within 3.
cmyk.save('tiff_cmyk_icc.tif', compression='tiff_lzw', icc_profile=open('/usr/share/color/icc/ghostscript/default_cmyk.icc', 'rb').read())
run('tificc', '-t', '1', '-o', '/usr/share/color/icc/ghostscript/srgb.icc', 'tiff_cmyk_icc.tif', '_cmyk_ref.tif')
Image.open('_cmyk_ref.tif').convert('RGB').save('tiff_cmyk_icc.tif.ref.png')
os.remove('_cmyk_ref.tif')
manifest.append(f'tiff_cmyk_icc.tif icc 97 67 -')
run('/usr/bin/convert', '_base.png', '-depth', '16', '-compress', 'zip', 'tiff_rgb16_zip.tif')
record('tiff_rgb16_zip.tif', 'exact', img)
run('tiffcp', '-c', 'lzw:2', 'tiff_rgb16_zip.tif', 'tiff_rgb16_lzw_pred.tif')
record('tiff_rgb16_lzw_pred.tif', 'exact', img)
rgba = img.copy()
alpha = Image.new('L', img.size)
alpha.putdata([(x * 3 + y * 2) % 256 for y in range(img.height) for x in range(img.width)])
rgba.putalpha(alpha)
rgba.save('tiff_rgba_unassoc.tif', compression='tiff_lzw')
record('tiff_rgba_unassoc.tif', 'exact', rgba)
# Associated alpha: colour premultiplied (rounded down), so straight values come back as Pillow divides.
pre = Image.merge('RGBA', [c.point(lambda v: v) for c in rgba.split()])
data = [(r * a // 255, g * a // 255, b * a // 255, a) for r, g, b, a in rgba.getdata()]
pre.putdata(data)
pre.save('_pre.tif')
run('tiffset', '-s', '338', '1', '1', '_pre.tif')
os.rename('_pre.tif', 'tiff_rgba_assoc.tif')
record('tiff_rgba_assoc.tif', 'exact', Image.open('tiff_rgba_assoc.tif'))
run('tiffcp', '-c', 'lzw', 'tiff_rgb_none.tif', 'tiff_orient6.tif')
run('tiffset', '-s', '274', '6', 'tiff_orient6.tif')
record('tiff_orient6.tif', 'exact', img, orientation=6)
# A reduced-resolution IFD first (NewSubfileType 1), then the full image.
img.resize((24, 17)).save('_thumb.tif')
run('tiffset', '-s', '254', '1', '_thumb.tif')
run('tiffcp', '_thumb.tif', 'tiff_rgb_lzw_pred.tif', 'tiff_reduced_first.tif')
record('tiff_reduced_first.tif', 'exact', img)
icc = open('/usr/share/color/icc/ghostscript/a98.icc', 'rb').read()
img.save('tiff_icc_exif.tif', compression='tiff_lzw', icc_profile=icc)
run('exiftool', '-q', '-overwrite_original', '-Make=Epson', '-Model=Perfection V600', '-ExposureTime=1/125',
    '-FNumber=2.8', '-DateTimeOriginal=2023:01:02 03:04:05', 'tiff_icc_exif.tif')
record('tiff_icc_exif.tif', 'exact', img, icc=len(icc), make='Epson', exposure='1/125')
# libvips writes SampleFormat as three SHORTs stored out of line; JPEG pyramids.
run('vips', 'tiffsave', '_base.png', 'tiff_vips_lzw.tif', '--compression', 'lzw', '--predictor', 'horizontal')
record('tiff_vips_lzw.tif', 'exact', img)
run('vips', 'tiffsave', '_base.png', 'tiff_vips_jpeg_pyramid.tif', '--compression', 'jpeg', '--tile', '--pyramid',
    '--tile-width', '32', '--tile-height', '32')
record('tiff_vips_jpeg_pyramid.tif', 'exact', Image.open('tiff_vips_jpeg_pyramid.tif'))
# 16-bit gray: Pillow's I;16 conversion clips, so the reference is the high bytes.
run('/usr/bin/convert', '_base.png', '-colorspace', 'gray', '-depth', '16', 'tiff_gray16.tif')
g16 = Image.open('tiff_gray16.tif')
raw16 = g16.tobytes()
record('tiff_gray16.tif', 'exact', Image.frombytes('L', g16.size, bytes(raw16[i + 1] for i in range(0, len(raw16), 2))))
big_endian = img.copy()
run('tiffcp', '-B', '-c', 'lzw:2', 'tiff_rgb_none.tif', 'tiff_bigendian_lzw.tif')
record('tiff_bigendian_lzw.tif', 'exact', img)

# ---- raws ---------------------------------------------------------------------------
def jpeg(w, h, seed, **kw):
    im = base(w, h)
    ImageDraw.Draw(im).text((w // 3, h // 3), f'{seed}', fill=(255, 255, 255))
    b = io.BytesIO()
    im.save(b, 'JPEG', quality=45, **kw)
    return b.getvalue()


def jpeg_md5(data):
    return md5(Image.open(io.BytesIO(data)))


thumb, mid, big = jpeg(160, 120, 't'), jpeg(320, 213, 'm'), jpeg(800, 532, 'L')
facts = dict(make='Canon', model='EOS R5', exposure='1/125', iso=200)
filler = bytes(range(256)) * 16


def raw_record(file, preview, orientation, **extra):
    im = Image.open(io.BytesIO(preview))
    manifest.append(f'{file} raw {im.width} {im.height} {jpeg_md5(preview)} orientation={orientation}'
                    + ''.join(f' {k}={str(v).replace(" ", "_")}' for k, v in extra.items()))


# DNG: IFD0 a small preview, SubIFDs the CFA data and a big JPEG preview (compression 7).
t = rw.TIFFBuilder('<')
t.blob('thumb', thumb); t.blob('big', big); t.blob('raw', filler)
t.ifd('ifd0', [(254, 4, [1]), (256, 4, [160]), (257, 4, [120]), (259, 3, [7]), (262, 3, [6]), (273, 4, [('blob', 'thumb')]),
               (279, 4, [('len', 'thumb')]), (271, 2, rw.ascii('Canon')), (272, 2, rw.ascii('EOS R5')), (274, 3, [6]),
               (330, 4, [('ifd', 'cfa'), ('ifd', 'prev')]), (34665, 4, [('ifd', 'exif')]), (34853, 4, [('ifd', 'gps')]),
               (50706, 1, [1, 4, 0, 0])])
t.ifd('cfa', [(254, 4, [0]), (256, 4, [64]), (257, 4, [32]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
              (273, 4, [('blob', 'raw')]), (279, 4, [('len', 'raw')])])
t.ifd('prev', [(254, 4, [1]), (256, 4, [800]), (257, 4, [532]), (259, 3, [7]), (262, 3, [6]), (273, 4, [('blob', 'big')]),
               (279, 4, [('len', 'big')])])
t.ifd('exif', rw.exif_entries())
t.ifd('gps', rw.gps_entries())
open('raw_dng.dng', 'wb').write(t.build())
raw_record('raw_dng.dng', big, 6, name='Adobe_DNG', gps=1, **facts)

# CR2: "CR" 2.0 after the IFD0 offset; IFD0 a JPEG strip (compression 6, no photometric),
# IFD1 a 513/514 thumbnail, IFD3 lossless JPEG sensor data (SOF3) that must be skipped.
lossless = b'\xff\xd8\xff\xc3\x00\x0b\x0c\x00\x20\x00\x40\x01\x01\x11\x00' + filler + b'\xff\xd9'
t = rw.TIFFBuilder('<', header_extra=b'CR\x02\x00\x00\x00\x00\x00')
t.blob('mid', mid); t.blob('big', big); t.blob('thumb', thumb); t.blob('raw', lossless)
t.ifd('ifd0', [(256, 3, [800]), (257, 3, [532]), (259, 3, [6]), (273, 4, [('blob', 'big')]), (279, 4, [('len', 'big')]),
               (271, 2, rw.ascii('Canon')), (272, 2, rw.ascii('EOS R5')), (274, 3, [8]), (34665, 4, [('ifd', 'exif')])], 'ifd1')
t.ifd('ifd1', [(259, 3, [6]), (513, 4, [('blob', 'thumb')]), (514, 4, [('len', 'thumb')])], 'ifd2')
t.ifd('ifd2', [(256, 3, [320]), (257, 3, [213]), (259, 3, [6]), (273, 4, [('blob', 'mid')]), (279, 4, [('len', 'mid')])], 'ifd3')
t.ifd('ifd3', [(259, 3, [6]), (273, 4, [('blob', 'raw')]), (279, 4, [('len', 'raw')])])
t.ifd('exif', rw.exif_entries())
open('raw_cr2.cr2', 'wb').write(t.build())
raw_record('raw_cr2.cr2', big, 8, name='Canon_CR2', **facts)

# NEF (big-endian): IFD0 a thumbnail, SubIFD0 the full JPEG by 513/514, SubIFD1 the CFA data.
nikon = dict(make='NIKON CORPORATION', model='NIKON Z 6', exposure='1/125', iso=200)
t = rw.TIFFBuilder('>')
t.blob('thumb', thumb); t.blob('big', big); t.blob('raw', filler)
t.ifd('ifd0', [(254, 4, [1]), (271, 2, rw.ascii(nikon['make'])), (272, 2, rw.ascii(nikon['model'])), (274, 3, [3]),
               (330, 4, [('ifd', 'jpg'), ('ifd', 'cfa')]), (34665, 4, [('ifd', 'exif')]),
               (513, 4, [('blob', 'thumb')]), (514, 4, [('len', 'thumb')])])
t.ifd('jpg', [(254, 4, [1]), (259, 3, [6]), (513, 4, [('blob', 'big')]), (514, 4, [('len', 'big')])])
t.ifd('cfa', [(254, 4, [0]), (256, 4, [64]), (257, 4, [32]), (259, 3, [34713]), (262, 3, [32803]),
              (273, 4, [('blob', 'raw')]), (279, 4, [('len', 'raw')])])
t.ifd('exif', rw.exif_entries())
nef = t.build()
open('raw_nef.nef', 'wb').write(nef)
raw_record('raw_nef.nef', big, 3, name='Nikon_NEF', **nikon)

# ARW: IFD0 the preview by 513/514 and a CFA SubIFD; IFD1 the thumbnail.
sony = dict(make='SONY', model='ILCE-7M4', exposure='1/125', iso=200)
t = rw.TIFFBuilder('<')
t.blob('thumb', thumb); t.blob('big', big); t.blob('raw', filler)
t.ifd('ifd0', [(254, 4, [1]), (271, 2, rw.ascii('SONY')), (272, 2, rw.ascii('ILCE-7M4')), (274, 3, [1]),
               (330, 4, [('ifd', 'cfa')]), (34665, 4, [('ifd', 'exif')]),
               (513, 4, [('blob', 'big')]), (514, 4, [('len', 'big')])], 'ifd1')
t.ifd('ifd1', [(259, 3, [6]), (513, 4, [('blob', 'thumb')]), (514, 4, [('len', 'thumb')])])
t.ifd('cfa', [(256, 4, [64]), (257, 4, [32]), (259, 3, [32767]), (262, 3, [32803]), (273, 4, [('blob', 'raw')]),
              (279, 4, [('len', 'raw')])])
t.ifd('exif', rw.exif_entries())
open('raw_arw.arw', 'wb').write(t.build())
raw_record('raw_arw.arw', big, 1, name='Sony_ARW', **sony)

# PEF-like: Make PENTAX, preview by 513/514 in IFD0, CFA in IFD0 itself.
t = rw.TIFFBuilder('>')
t.blob('big', big); t.blob('raw', filler)
t.ifd('ifd0', [(256, 4, [64]), (257, 4, [32]), (259, 3, [65535]), (262, 3, [32803]), (273, 4, [('blob', 'raw')]),
               (279, 4, [('len', 'raw')]), (271, 2, rw.ascii('PENTAX')), (272, 2, rw.ascii('K-3')), (274, 3, [1]),
               (513, 4, [('blob', 'big')]), (514, 4, [('len', 'big')])])
open('raw_pef.pef', 'wb').write(t.build())
raw_record('raw_pef.pef', big, 1, name='Pentax_PEF', make='PENTAX')

# ORF: its large previews live in the Olympus maker note, which is not read: only the 160x120
# IFD1 thumbnail is found, so the file is refused.
t = rw.TIFFBuilder('<', magic=0x4F52)
t.blob('thumb', thumb); t.blob('raw', filler)
t.ifd('ifd0', [(256, 4, [64]), (257, 4, [32]), (259, 3, [1]), (262, 3, [32803]), (273, 4, [('blob', 'raw')]),
               (279, 4, [('len', 'raw')]), (271, 2, rw.ascii('OLYMPUS CORPORATION'))], 'ifd1')
t.ifd('ifd1', [(259, 3, [6]), (513, 4, [('blob', 'thumb')]), (514, 4, [('len', 'thumb')])])
open('raw_orf_small.orf', 'wb').write(t.build())
manifest.append('raw_orf_small.orf error 0 0 - kind=unsupported')

# RW2: magic 0x55, the preview in IFD0's JpgFromRaw (0x2E, UNDEFINED).
t = rw.TIFFBuilder('<', magic=0x55)
t.blob('raw', filler)
t.ifd('ifd0', [(2, 4, [64]), (3, 4, [32]), (271, 2, rw.ascii('Panasonic')), (272, 2, rw.ascii('DC-S5')), (274, 3, [1]),
               (0x2E, 7, big), (280, 4, [('blob', 'raw')])])
open('raw_rw2.rw2', 'wb').write(t.build())
raw_record('raw_rw2.rw2', big, 1, name='Panasonic_RW2', make='Panasonic')

# RAF: the header's JPEG carries the EXIF (orientation 6, Make FUJIFILM).
exif_tiff = rw.TIFFBuilder('<')
exif_tiff.ifd('ifd0', [(271, 2, rw.ascii('FUJIFILM')), (272, 2, rw.ascii('X-T5')), (274, 3, [6]), (34665, 4, [('ifd', 'exif')])])
exif_tiff.ifd('exif', rw.exif_entries())
raf_jpeg = jpeg(800, 532, 'F', exif=b'Exif\0\0' + exif_tiff.build())
open('raw_raf.raf', 'wb').write(rw.raf(raf_jpeg))
raw_record('raw_raf.raf', raf_jpeg, 6, name='Fujifilm_RAF', make='FUJIFILM', exposure='1/125')

# CR3: THMB 160x120, PRVW 320x213, track 1's sample 800x532 (chosen).
def blob_tiff(entries):
    b = rw.TIFFBuilder('<')
    b.ifd('ifd0', entries)
    return b.build()
cmt1 = blob_tiff([(271, 2, rw.ascii('Canon')), (272, 2, rw.ascii('EOS R5')), (274, 3, [6])])
cmt2 = blob_tiff(rw.exif_entries())
cmt4 = blob_tiff(rw.gps_entries())
open('raw_cr3.cr3', 'wb').write(rw.cr3(thumb, mid, big, cmt1, cmt2, cmt4, ((160, 120), (320, 213))))
raw_record('raw_cr3.cr3', big, 6, name='Canon_CR3', gps=1, **facts)
# A CR3 whose track sample is missing: PRVW (320x213) is the largest and too small.
open('raw_cr3_small.cr3', 'wb').write(rw.cr3(thumb, mid, b'', cmt1, cmt2, cmt4, ((160, 120), (320, 213))))
manifest.append('raw_cr3_small.cr3 error 0 0 - kind=unsupported')

# ---- hostile ------------------------------------------------------------------------
def tiff_strip(w, h, data, compression=1, spp=3, extra=(), order='<', bps=8):
    t = rw.TIFFBuilder(order)
    t.blob('s', data)
    t.ifd('ifd0', [(256, 4, [w]), (257, 4, [h]), (258, 3, [bps] * spp), (259, 3, [compression]), (262, 3, [2 if spp >= 3 else 1]),
                   (277, 3, [spp]), (273, 4, [('blob', 's')]), (279, 4, [('len', 's')]), (278, 4, [h])] + list(extra))
    return t.build()

# LZW: 60 KB of Clear codes (9 bits each) for a 4000x3000 strip, then nothing.
# Eight 9-bit codes fill 9 bytes exactly: repeat that pattern.
flood = int('100000000' * 8, 2).to_bytes(9, 'big') * (60_000 // 9)
open('bad_tiff_lzw_flood.tif', 'wb').write(tiff_strip(400, 300, flood, compression=5))
manifest.append('bad_tiff_lzw_flood.tif warn 400 300 -')
# LZW code 300 right after Clear: a code the table does not hold yet.
badcode = int('100000000' + '100101100' + '0' * 6, 2).to_bytes(3, 'big')
open('bad_tiff_lzw_code.tif', 'wb').write(tiff_strip(16, 16, badcode, compression=5))
manifest.append('bad_tiff_lzw_code.tif error 0 0 - kind=corrupt')
# Tiles whose offsets point past the end of the file.
t = rw.TIFFBuilder('<')
t.ifd('ifd0', [(256, 4, [64]), (257, 4, [64]), (258, 3, [8]), (259, 3, [1]), (262, 3, [1]), (322, 4, [32]), (323, 4, [32]),
               (324, 4, [10_000_000] * 4), (325, 4, [1024] * 4)])
open('bad_tiff_tiles_past_end.tif', 'wb').write(t.build())
manifest.append('bad_tiff_tiles_past_end.tif error 0 0 - kind=truncated')
# IFD loop: IFD0's next link points at IFD0, its SubIFDs at itself.
t = rw.TIFFBuilder('<')
t.ifd('ifd0', [(256, 4, [8]), (257, 4, [8]), (259, 3, [1]), (262, 3, [1]), (273, 4, [8]), (279, 4, [64]), (330, 4, [('ifd', 'ifd0')])], 'ifd0')
open('bad_tiff_ifd_loop.tif', 'wb').write(t.build())
manifest.append('bad_tiff_ifd_loop.tif ok 8 8 -')
# 2^32-pixel claims: 65536x65536 (over the dimension limit) and 60000x60000 (over the pixel limit).
open('bad_tiff_huge.tif', 'wb').write(tiff_strip(65536, 65536, b'\0' * 64))
manifest.append('bad_tiff_huge.tif error 0 0 - kind=limitExceeded')
open('bad_tiff_huge_pixels.tif', 'wb').write(tiff_strip(60000, 60000, b'\0' * 64))
manifest.append('bad_tiff_huge_pixels.tif error 0 0 - kind=limitExceeded')
# 240 MP of empty strips from a few hundred bytes: over the pixels-per-coded-byte work bound.
t = rw.TIFFBuilder('<')
t.ifd('ifd0', [(256, 4, [20000]), (257, 4, [12000]), (258, 3, [8]), (259, 3, [8]), (262, 3, [1]), (278, 4, [16]),
               (273, 4, [8] * 750), (279, 4, [0] * 750)])
open('bad_tiff_empty_strips.tif', 'wb').write(t.build())
manifest.append('bad_tiff_empty_strips.tif error 0 0 - kind=limitExceeded')
# Strip offset past the end of the file.
t = rw.TIFFBuilder('<')
t.ifd('ifd0', [(256, 4, [8]), (257, 4, [8]), (258, 3, [8]), (259, 3, [1]), (262, 3, [1]), (273, 4, [1 << 30]), (279, 4, [64])])
open('bad_tiff_offset_past_end.tif', 'wb').write(t.build())
manifest.append('bad_tiff_offset_past_end.tif error 0 0 - kind=truncated')
# IFD offset past the end.
open('bad_tiff_ifd_past_end.tif', 'wb').write(b'II*\0' + struct.pack('<I', 1 << 31) + b'\0' * 16)
manifest.append('bad_tiff_ifd_past_end.tif error 0 0 - kind=corrupt')
# A DNG whose preview offset lies past the end: no usable preview.
t = rw.TIFFBuilder('<')
t.ifd('ifd0', [(271, 2, rw.ascii('Canon')), (50706, 1, [1, 4, 0, 0]), (513, 4, [1 << 30]), (514, 4, [100000])])
open('bad_dng_preview_past_end.dng', 'wb').write(t.build())
manifest.append('bad_dng_preview_past_end.dng error 0 0 - kind=unsupported')

# GIF: a 1000x1000 frame whose data is 250 sub-blocks of Clear codes (a code flood).
def gif(w, h, data, min_code=8, flags=0xF7):
    head = b'GIF89a' + struct.pack('<HHBBB', w, h, flags, 0, 0) + bytes(range(256)) * 3
    desc = b'\x2c' + struct.pack('<HHHHB', 0, 0, w, h, 0) + bytes([min_code])
    blocks = b''.join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return head + desc + blocks + b'\0;'
clears = sum(256 << (9 * i) for i in range(8)).to_bytes(9, 'little') * (250 * 255 // 9)
open('bad_gif_lzw_flood.gif', 'wb').write(gif(1000, 1000, clears))
manifest.append('bad_gif_lzw_flood.gif warn 1000 1000 -')
open('bad_gif_code_size.gif', 'wb').write(gif(8, 8, b'\x00\x01', min_code=12))
manifest.append('bad_gif_code_size.gif error 0 0 - kind=corrupt')
# Clear (256), then code 300 (9 bits each, LSB first).
code = (300 << 9) | 256
open('bad_gif_bad_code.gif', 'wb').write(gif(8, 8, code.to_bytes(3, 'little')))
manifest.append('bad_gif_bad_code.gif error 0 0 - kind=corrupt')
# A 1x1 first frame on a 16000x16000 screen: 256 MP of canvas from 800 bytes.
g = bytearray(gif(1, 1, b'\x4c\x01'))
struct.pack_into('<HH', g, 6, 16000, 16000)
open('bad_gif_big_canvas.gif', 'wb').write(g)
manifest.append('bad_gif_big_canvas.gif error 0 0 - kind=limitExceeded')
open('bad_gif_huge.gif', 'wb').write(gif(65535, 65535, b'\x00'))
manifest.append('bad_gif_huge.gif error 0 0 - kind=limitExceeded')

for f in ['_base.png', '_f.gif', '_thumb.tif']:
    os.remove(f)
open('manifest.txt', 'w').write('\n'.join(manifest) + '\n')
print(len(manifest), 'fixtures')
