#!/usr/bin/env python3
"""Builds the colour-management fixtures in Tests/Fixtures/colour from one sRGB photo crop.

For each source profile P: NAME.png (or .jpg) holds the photo converted from sRGB into P by
lcms2 (Pillow's ImageCms, relative colorimetric, no black point compensation) with P embedded;
NAME.ref.png is lcms2's conversion of those pixels back from P to sRGB (sRGB.icc from
icc-profiles-free) as jpgicc makes it (precalculated 8-bit transform), NAME.exact.png the same
without lcms2's precalculation (cmsFLAGS_NOOPTIMIZE): our conversion must match both (ΔE2000). The LUT-only RGB profiles and the
ProPhoto profile are made here with liblcms2 through ctypes.

Usage: python3 make_colour_fixtures.py OUT_DIR STATUE_PPM HEIF_ARROW_REFERENCE_PNG [NAME...]
(STATUE_PPM: the kodim17 crop from the JPEG fixture sources; the PNG carries Apple's Display P3.
NAMEs: make only these fixtures, e.g. cmyk_fogra39.) The CMYK press profile is built from
icc-profiles-free's FOGRA39L.ti3 characterization data (Zlib licence) by ArgyllCMS's colprof
(Debian's argyll), so both packages are needed for that fixture.
"""
import ctypes as C, io, os, subprocess, sys, tempfile
from PIL import Image, ImageCms

out, statue, arrow, only = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])
ICC = '/usr/share/color/icc/'
SRGB = ICC + 'sRGB.icc'
lcms = C.CDLL('liblcms2.so.2')
vp = C.c_void_p
for name, res, args in [
    ('cmsOpenProfileFromFile', vp, [C.c_char_p, C.c_char_p]), ('cmsCreateLab4Profile', vp, [vp]),
    ('cmsCreateTransform', vp, [vp, C.c_uint32, vp, C.c_uint32, C.c_uint32, C.c_uint32]),
    ('cmsDoTransform', None, [vp, vp, vp, C.c_uint32]), ('cmsCreateProfilePlaceholder', vp, [vp]),
    ('cmsSetProfileVersion', None, [vp, C.c_double]), ('cmsSetDeviceClass', None, [vp, C.c_uint32]),
    ('cmsSetColorSpace', None, [vp, C.c_uint32]), ('cmsSetPCS', None, [vp, C.c_uint32]),
    ('cmsPipelineAlloc', vp, [vp, C.c_uint32, C.c_uint32]), ('cmsStageAllocCLut16bit', vp, [vp, C.c_uint32, C.c_uint32, C.c_uint32, vp]),
    ('cmsStageAllocToneCurves', vp, [vp, C.c_uint32, vp]), ('cmsBuildGamma', vp, [vp, C.c_double]),
    ('cmsStageSampleCLut16bit', C.c_int, [vp, vp, vp, C.c_uint32]), ('cmsPipelineInsertStage', C.c_int, [vp, C.c_int, vp]),
    ('cmsWriteTag', C.c_int, [vp, C.c_uint32, vp]), ('cmsMLUalloc', vp, [vp, C.c_uint32]),
    ('cmsMLUsetASCII', C.c_int, [vp, C.c_char_p, C.c_char_p, C.c_char_p]), ('cmsSaveProfileToMem', C.c_int, [vp, vp, C.POINTER(C.c_uint32)]),
    ('cmsPipelineSetSaveAs8bitsFlag', C.c_int, [vp, C.c_int]), ('cmsD50_XYZ', vp, []), ('cmsD50_xyY', vp, []),
    ('cmsCreateRGBProfile', vp, [vp, vp, vp]), ('cmsCreateGrayProfile', vp, [vp, vp]),
]:
    f = getattr(lcms, name); f.restype = res; f.argtypes = args

def sig(s): return int.from_bytes(s.encode(), 'big')

def save(h):
    n = C.c_uint32(0); lcms.cmsSaveProfileToMem(h, None, C.byref(n))
    buf = C.create_string_buffer(n.value); lcms.cmsSaveProfileToMem(h, buf, C.byref(n))
    return buf.raw[:n.value]

def describe(h, text):
    mlu = lcms.cmsMLUalloc(None, 1); lcms.cmsMLUsetASCII(mlu, b'en', b'US', text.encode())
    lcms.cmsWriteTag(h, sig('desc'), mlu); lcms.cmsWriteTag(h, sig('cprt'), mlu)
    lcms.cmsWriteTag(h, sig('wtpt'), lcms.cmsD50_XYZ())

def lut_profile(source_path, version, eight_bit, text, grid=17):
    """An RGB profile whose only transform is an A2B0 CLUT sampled from `source_path` (to Lab)."""
    src = lcms.cmsOpenProfileFromFile(source_path.encode(), b'r')
    lab = lcms.cmsCreateLab4Profile(None)
    xf = lcms.cmsCreateTransform(src, (4 << 16) | (3 << 3) | 2, lab, (10 << 16) | (3 << 3) | 2, 1, 0x0100)
    h = lcms.cmsCreateProfilePlaceholder(None)
    lcms.cmsSetProfileVersion(h, version); lcms.cmsSetDeviceClass(h, sig('mntr'))
    lcms.cmsSetColorSpace(h, sig('RGB ')); lcms.cmsSetPCS(h, sig('Lab '))
    pipe = lcms.cmsPipelineAlloc(None, 3, 3)
    ident = (vp * 3)(*[lcms.cmsBuildGamma(None, 1.0)] * 3)
    lcms.cmsPipelineInsertStage(pipe, 1, lcms.cmsStageAllocToneCurves(None, 3, ident))
    clut = lcms.cmsStageAllocCLut16bit(None, grid, 3, 3, None)
    SAMPLER = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_uint16), C.POINTER(C.c_uint16), vp)
    @SAMPLER
    def sample(i, o, cargo):
        lcms.cmsDoTransform(xf, i, o, 1); return 1
    lcms.cmsStageSampleCLut16bit(clut, sample, None, 0)
    lcms.cmsPipelineInsertStage(pipe, 1, clut)
    lcms.cmsPipelineInsertStage(pipe, 1, lcms.cmsStageAllocToneCurves(None, 3, ident))
    if eight_bit: lcms.cmsPipelineSetSaveAs8bitsFlag(pipe, 1)
    lcms.cmsWriteTag(h, sig('A2B0'), pipe)
    describe(h, text)
    return save(h)

def prophoto():
    class XYY(C.Structure): _fields_ = [('x', C.c_double), ('y', C.c_double), ('Y', C.c_double)]
    white = XYY(0.3457, 0.3585, 1.0)
    prim = (XYY * 3)(XYY(0.7347, 0.2653, 1), XYY(0.1596, 0.8404, 1), XYY(0.0366, 0.0001, 1))
    g = lcms.cmsBuildGamma(None, 1.8)
    h = lcms.cmsCreateRGBProfile(C.byref(white), prim, (vp * 3)(g, g, g))
    describe(h, 'ProPhoto RGB (lcms2-built)')
    return save(h)

def gray22():
    h = lcms.cmsCreateGrayProfile(lcms.cmsD50_xyY(), lcms.cmsBuildGamma(None, 2.2))
    describe(h, 'Gray gamma 2.2 (lcms2-built)')
    return save(h)

def fogra39():
    """A CMYK → Lab press profile (coated offset, ISO 12647-2) made by colprof from FOGRA39L.ti3."""
    work = tempfile.mkdtemp()
    with open(ICC + 'FOGRA39L.ti3', 'rb') as f, open(work + '/FOGRA39L.ti3', 'wb') as g: g.write(f.read())
    subprocess.run(['colprof', '-qm', '-al', '-D', 'FOGRA39L coated offset (colprof from icc-profiles-free FOGRA39L.ti3)',
                    '-C', 'Data: Kai-Uwe Behrmann, Zlib licence. Profile: no rights reserved (CC0)', 'FOGRA39L'],
                   cwd=work, check=True, stdout=subprocess.DEVNULL)
    return open(work + '/FOGRA39L.icc', 'rb').read()

def strip(profile, keep):
    """The profile with only the tags in `keep` (offsets rewritten), to keep fixtures small."""
    n = int.from_bytes(profile[128:132], 'big')
    tags = []
    for i in range(n):
        e = profile[132 + 12 * i: 144 + 12 * i]
        s, off, size = e[:4].decode(), int.from_bytes(e[4:8], 'big'), int.from_bytes(e[8:12], 'big')
        if s in keep: tags.append((s, profile[off:off + size]))
    body, table, pos = b'', b'', 128 + 4 + 12 * len(tags)
    for s, data in tags:
        table += s.encode() + pos.to_bytes(4, 'big') + len(data).to_bytes(4, 'big')
        data += b'\0' * (-len(data) % 4); body += data; pos += len(data)
    header = bytearray(profile[:128]); header[0:4] = pos.to_bytes(4, 'big'); header[84:100] = b'\0' * 16
    return bytes(header) + len(tags).to_bytes(4, 'big') + table + body

def source_image():
    photo = Image.open(statue).convert('RGB').resize((64, 96), Image.LANCZOS).crop((0, 16, 64, 64))
    img = Image.new('RGB', (64, 64)); img.paste(photo, (0, 0))
    import colorsys
    for y in range(48, 64):
        for x in range(64):  # a hue ramp at two saturations and a gray ramp: colours near every edge
            if y < 56: r, g, b = colorsys.hsv_to_rgb(x / 64, 1.0 if y < 52 else 0.5, 1.0 if y < 52 else 0.8)
            else: r = g = b = x / 63
            img.putpixel((x, y), (round(r * 255), round(g * 255), round(b * 255)))
    return img

src = source_image()
if not only: src.save(f'{out}/source_srgb.png')
srgb = ImageCms.getOpenProfile(SRGB)

def profile(b): return ImageCms.ImageCmsProfile(io.BytesIO(b))

def make(name, prof_bytes, mode='RGB', fmt='png', keep=None, forward=None):
    """`forward`: the profile the pixels are made with, when `prof_bytes` has no B2A (LUT-only).
    `prof_bytes` may be a function that makes the profile (called only when `name` is made)."""
    if only and name not in only: return
    if callable(prof_bytes): prof_bytes = prof_bytes()
    p = profile(forward or prof_bytes)
    conv = ImageCms.profileToProfile(src, srgb, p, renderingIntent=1, outputMode=mode)
    embedded = strip(prof_bytes, keep) if keep else prof_bytes
    path = f'{out}/{name}.{fmt}'
    if fmt == 'png': conv.save(path, icc_profile=embedded)
    else: conv.save(path, quality=95, icc_profile=embedded, subsampling=0)
    back = Image.open(path); back.load()
    ref = ImageCms.profileToProfile(back, profile(embedded), srgb, renderingIntent=1, outputMode='RGB')
    ref.save(f'{out}/{name}.ref.png')
    exact = ImageCms.profileToProfile(back, profile(embedded), srgb, renderingIntent=1, outputMode='RGB',
                                      flags=ImageCms.Flags.NOOPTIMIZE)
    exact.save(f'{out}/{name}.exact.png')

def apple_p3(): return Image.open(arrow).info['icc_profile']
adobe = open(ICC + 'compatibleWithAdobeRGB1998.icc', 'rb').read()
make('adobe_rgb', adobe)
make('display_p3', apple_p3)
make('prophoto', prophoto)
make('lut_mab', lut_profile(ICC + 'compatibleWithAdobeRGB1998.icc', 4.3, False, 'LUT-only Adobe RGB (mAB)', grid=9), forward=adobe)
make('lut_mft1', lut_profile(ICC + 'compatibleWithAdobeRGB1998.icc', 2.1, True, 'LUT-only Adobe RGB (mft1)', grid=9), forward=adobe)
make('lut_mft2', lut_profile(ICC + 'compatibleWithAdobeRGB1998.icc', 2.1, False, 'LUT-only Adobe RGB (mft2)', grid=9), forward=adobe)
make('gray', gray22, mode='L')
make('gray_linear', open(ICC + 'Gray.icc', 'rb').read(), mode='L')
make('cmyk_fogra39', fogra39, mode='CMYK', fmt='jpg',
     keep={'desc', 'wtpt', 'A2B0', 'cprt'})
# sRGB-tagged: must be recognised and left alone.
if not only: src.save(f'{out}/srgb_tagged.png', icc_profile=open(SRGB, 'rb').read())
