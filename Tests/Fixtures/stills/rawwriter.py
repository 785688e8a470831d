"""Small writers for TIFF-shaped camera raws, RAF and CR3, built from the documented layouts
(ExifTool's tag tables, Laurent Clevy's CR2/CR3 descriptions, the RAF header), with real JPEG
previews and a few KB of filler where the sensor data would be. Used by make_fixtures.py."""
import struct

TYPES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1}


class TIFFBuilder:
    """IFDs with entries (tag, type, values); values may name blobs and other IFDs:
    ('blob', name) -> offset, ('len', name) -> length, ('ifd', name) -> IFD offset."""

    def __init__(self, order='<', magic=42, header_extra=b''):
        self.order, self.magic, self.header_extra = order, magic, header_extra
        self.blobs, self.ifds = [], []

    def blob(self, name, data):
        self.blobs.append((name, data))

    def ifd(self, name, entries, next_ifd=None):
        self.ifds.append((name, entries, next_ifd))

    def _value(self, v, blobs, ifds):
        if isinstance(v, tuple) and isinstance(v[0], str):
            kind, name = v
            return {'blob': lambda: blobs[name][0], 'len': lambda: blobs[name][1], 'ifd': lambda: ifds[name]}[kind]()
        return v

    def _pack(self, type_, values, blobs, ifds):
        o = self.order
        if type_ in (2, 7) or (type_ == 1 and isinstance(values, (bytes, bytearray))):
            return bytes(values)
        vals = [self._value(v, blobs, ifds) for v in values]
        if type_ == 1: return bytes(vals)
        if type_ == 3: return struct.pack(o + 'H' * len(vals), *vals)
        if type_ == 4: return struct.pack(o + 'I' * len(vals), *vals)
        if type_ == 5: return b''.join(struct.pack(o + 'II', n, d) for n, d in vals)
        raise ValueError(type_)

    def build(self, first='ifd0'):
        o = self.order
        head = (b'II' if o == '<' else b'MM') + struct.pack(o + 'H', self.magic) + b'\0\0\0\0' + self.header_extra
        pos = len(head)
        blobs = {}
        for name, data in self.blobs:
            pos += pos & 1
            blobs[name] = (pos, len(data))
            pos += len(data)
        # Pass 1: IFD positions (sizes do not depend on pointer values).
        ifds, sizes = {}, {}
        for name, entries, _ in self.ifds:
            pos += pos & 1
            ifds[name] = pos
            extra = 0
            for tag, type_, values in entries:
                n = len(self._pack(type_, values, {k: (0, 0) for k in blobs}, {k: 0 for k in [i[0] for i in self.ifds]}))
                if n > 4: extra += n + (n & 1)
            sizes[name] = 2 + 12 * len(entries) + 4 + extra
            pos += sizes[name]
        out = bytearray(head)
        struct.pack_into(o + 'I', out, 4, ifds[first])
        for name, data in self.blobs:
            out += b'\0' * (blobs[name][0] - len(out))
            out += data
        for name, entries, next_ifd in self.ifds:
            out += b'\0' * (ifds[name] - len(out))
            data_at = ifds[name] + 2 + 12 * len(entries) + 4
            body, data = bytearray(struct.pack(o + 'H', len(entries))), bytearray()
            for tag, type_, values in sorted(entries, key=lambda e: e[0]):
                packed = self._pack(type_, values, blobs, ifds)
                count = len(packed) // TYPES[type_]
                body += struct.pack(o + 'HHI', tag, type_, count)
                if len(packed) <= 4:
                    body += packed + b'\0' * (4 - len(packed))
                else:
                    body += struct.pack(o + 'I', data_at + len(data))
                    data += packed + b'\0' * (len(packed) & 1)
            body += struct.pack(o + 'I', ifds[next_ifd] if next_ifd else 0)
            out += body + data
        return bytes(out)


def ascii(s):
    return s.encode() + b'\0'


def exif_entries(exposure=(1, 125), fnumber=(28, 10), iso=200, date='2024:05:06 07:08:09', lens='RF24-70mm F2.8 L IS USM'):
    return [(0x829A, 5, [exposure]), (0x829D, 5, [fnumber]), (0x8827, 3, [iso]),
            (0x9003, 2, ascii(date)), (0xA434, 2, ascii(lens))]


def gps_entries():
    return [(1, 2, b'N\0'), (2, 5, [(48, 1), (51, 1), (2400, 100)]), (3, 2, b'E\0'), (4, 5, [(2, 1), (17, 1), (4000, 100)])]


def raf(jpeg):
    head = bytearray(b'FUJIFILMCCD-RAW 0201FF383501' + b'\0' * 4 + b'X-T5'.ljust(32, b'\0'))
    head += b'\0' * (100 - len(head))
    body_at = 160
    struct.pack_into('>II', head, 84, body_at, len(jpeg))
    struct.pack_into('>II', head, 92, body_at + len(jpeg), 0)
    return bytes(head) + b'\0' * (body_at - len(head)) + jpeg + b'\x55' * 2048


def box(kind, payload):
    return struct.pack('>I', 8 + len(payload)) + kind + payload


CANON_UUID = bytes.fromhex('85c0b687820f11e08111f4ce462b6a48')
PRVW_UUID = bytes.fromhex('eaf42b5e1c984b88b9fbb7dc406e4d16')


def cr3(thumb, prvw, full, cmt1, cmt2, cmt4, sizes):
    (tw, th), (pw, ph) = sizes
    thmb = box(b'THMB', struct.pack('>IHHIHH', 0, tw, th, len(thumb), 1, 0) + thumb)
    canon = box(b'uuid', CANON_UUID + box(b'CNCV', b'CanonCR3_001/00.09.00/00.00.00') +
                box(b'CMT1', cmt1) + box(b'CMT2', cmt2) + box(b'CMT4', cmt4) + thmb)
    ftyp = box(b'ftyp', b'crx ' + struct.pack('>I', 1) + b'crx isom')
    preview = box(b'uuid', PRVW_UUID + struct.pack('>Q', 1) +
                  box(b'PRVW', struct.pack('>IHHHHI', 0, 1, pw, ph, 1, len(prvw)) + prvw))

    def moov(full_at):
        stsz = box(b'stsz', struct.pack('>III', 0, 0, 1) + struct.pack('>I', len(full)))
        co64 = box(b'co64', struct.pack('>II', 0, 1) + struct.pack('>Q', full_at))
        trak = box(b'trak', box(b'tkhd', b'\0' * 84) + box(b'mdia', box(b'minf', box(b'stbl', stsz + co64))))
        return box(b'moov', canon + trak)

    head_len = len(ftyp) + len(moov(0)) + len(preview)
    mdat = box(b'mdat', full + b'\x33' * 4096)
    return ftyp + moov(head_len + 8) + preview + mdat
