import struct
def box(t, body): return struct.pack('>I', 8+len(body)) + t.encode() + body
def fbox(t, v, flags, body): return box(t, bytes([v]) + flags.to_bytes(3,'big') + body)
class Item:
    # same_as: the id of an earlier item whose bytes this one's iloc entry points at (no data of its own).
    def __init__(s, iid, typ, data=b'', props=(), hidden=False, idat=False, name=b'', same_as=None):
        s.iid, s.typ, s.data, s.props, s.hidden, s.idat, s.name, s.same_as = iid, typ, data, list(props), hidden, idat, name, same_as
def write(items, pitm, refs=(), brands=(b'heic', [b'mif1', b'heic']), extra_meta=b'', iref_version=0, ipma_large=False):
    # props: list of (boxbytes, essential)
    props = []; assoc = {}
    for it in items:
        l = []
        for pb, ess in it.props:
            if pb not in props: props.append(pb)
            l.append((props.index(pb)+1, ess))
        assoc[it.iid] = l
    ftyp = box('ftyp', brands[0] + b'\0\0\0\0' + b''.join(brands[1]))
    hdlr = fbox('hdlr', 0, 0, b'\0'*4 + b'pict' + b'\0'*12 + b'\0')
    pit = fbox('pitm', 0, 0, struct.pack('>H', pitm))
    infes = b''.join(fbox('infe', 2, 1 if it.hidden else 0, struct.pack('>HH', it.iid, 0) + it.typ.encode() + it.name + b'\0') for it in items)
    iinf = fbox('iinf', 0, 0, struct.pack('>H', len(items)) + infes)
    idat_bytes = b''; idat_off = {}
    for it in items:
        if it.idat: idat_off[it.iid] = len(idat_bytes); idat_bytes += it.data
    w = 2 if iref_version == 0 else 4
    iref = b''
    if refs:
        body = b''
        for t, fr, to in refs:
            body += box(t, fr.to_bytes(w,'big') + struct.pack('>H', len(to)) + b''.join(x.to_bytes(w,'big') for x in to))
        iref = fbox('iref', iref_version, 0, body)
    ipco = box('ipco', b''.join(props))
    ent = b''
    for it in items:
        l = assoc[it.iid]
        ent += struct.pack('>H', it.iid) + bytes([len(l)])
        for idx, ess in l:
            if ipma_large: ent += struct.pack('>H', idx | (0x8000 if ess else 0))
            else: ent += bytes([idx | (0x80 if ess else 0)])
    ipma = fbox('ipma', 0, 1 if ipma_large else 0, struct.pack('>I', len(items)) + ent)
    iprp = box('iprp', ipco + ipma)
    idat = box('idat', idat_bytes) if idat_bytes else b''
    def build(mdat_start):
        # iloc v1, offset 4, length 4, base 0
        ent = b''
        off = mdat_start + 8
        placed = {}
        for it in items:
            if it.idat:
                ent += struct.pack('>HHHH', it.iid, 1, 0, 1) + struct.pack('>II', idat_off[it.iid], len(it.data))
            elif it.same_as is not None:
                ent += struct.pack('>HHHH', it.iid, 0, 0, 1) + struct.pack('>II', *placed[it.same_as])
            else:
                placed[it.iid] = (off, len(it.data))
                ent += struct.pack('>HHHH', it.iid, 0, 0, 1) + struct.pack('>II', off, len(it.data)); off += len(it.data)
        iloc = fbox('iloc', 1, 0, bytes([0x44, 0x00]) + struct.pack('>H', len(items)) + ent)
        meta = fbox('meta', 0, 0, hdlr + pit + iloc + iinf + iref + iprp + idat + extra_meta)
        return meta
    meta = build(0)
    meta = build(len(ftyp) + len(meta))
    mdat = box('mdat', b''.join(it.data for it in items if not it.idat))
    return ftyp + meta + mdat
def ispe(w, h): return fbox('ispe', 0, 0, struct.pack('>II', w, h))
def irot(a): return box('irot', bytes([a]))
def imir(axis): return box('imir', bytes([axis]))
def pixi(*bits): return fbox('pixi', 0, 0, bytes([len(bits)] + list(bits)))
def clap(wn, wd, hn, hd, hon, hod, von, vod): return box('clap', struct.pack('>IIIIiIiI', wn, wd, hn, hd, hon, hod, von, vod))
def nclx(p, t, m, full): return box('colr', b'nclx' + struct.pack('>HHHB', p, t, m, 0x80 if full else 0))
def prof(icc): return box('colr', b'prof' + icc)
def auxC(urn): return fbox('auxC', 0, 0, urn + b'\0')
def grid(rows, cols, w, h):
    if w > 65535 or h > 65535: return bytes([0, 1, rows-1, cols-1]) + struct.pack('>II', w, h)
    return bytes([0, 0, rows-1, cols-1]) + struct.pack('>HH', w, h)
def hvcC_box(raw): return box('hvcC', raw)
def split_annexb(s):
    nals = []; i = 0; starts = []
    while i + 3 <= len(s):
        if s[i:i+3] == b'\0\0\1': starts.append(i+3); i += 3
        else: i += 1
    for k, st in enumerate(starts):
        end = starts[k+1]-3 if k+1 < len(starts) else len(s)
        nal = s[st:end]
        while nal.endswith(b'\0') and k+1 < len(starts): nal = nal[:-1]
        nals.append(nal)
    return nals
def hvc_item_from_annexb(s, chroma=1, bd=8, lsz=4):
    nals = split_annexb(s)
    ps = [n for n in nals if (n[0]>>1) in (32,33,34)]
    sps = [n for n in nals if (n[0]>>1) == 33][0]
    ptl = sps[3:15]
    hdr = bytes([1]) + ptl + bytes([0xF0, 0x00, 0xFC, 0xFC | chroma, 0xF8 | (bd-8), 0xF8 | (bd-8), 0, 0, 0x0F | ((lsz-1)&3) ])
    hdr = hdr[:21] + bytes([0x0C | ((lsz-1)&3)])
    arrays = b''
    for t in (32,33,34):
        l = [n for n in ps if (n[0]>>1) == t]
        arrays += bytes([0x80 | t]) + struct.pack('>H', len(l)) + b''.join(struct.pack('>H', len(n)) + n for n in l)
    raw = hdr + bytes([3]) + arrays
    data = b''.join(len(n).to_bytes(lsz,'big') + n for n in nals if (n[0]>>1) < 32 or (n[0]>>1) in (39,40) and False)
    return raw, data
