"""A minimal HEVC intra bitstream writer for test fixtures that no encoder at hand writes.

x265 and kvazaar never emit PCM coding units, so `make_pcm.py` builds such pictures itself with
the pieces here: an RBSP bit writer with exp-Golomb codes, NAL unit framing with emulation
prevention, the CABAC arithmetic encoder of H.265 9.3.4 (EncodeDecision, EncodeBypass,
EncodeTerminate, EncodeFlush), and the parameter sets with only the fields the fixtures vary.
It chooses syntax; it never predicts or reconstructs samples, which is the decoders' job.
"""

# rangeTabLps[pStateIdx][qRangeIdx] and transIdxLps (H.265 tables 9-52 and 9-53).
RANGE_LPS = [
    [128, 176, 208, 240], [128, 167, 197, 227], [128, 158, 187, 216], [123, 150, 178, 205], [116, 142, 169, 195],
    [111, 135, 160, 185], [105, 128, 152, 175], [100, 122, 144, 166], [95, 116, 137, 158], [90, 110, 130, 150],
    [85, 104, 123, 142], [81, 99, 117, 135], [77, 94, 111, 128], [73, 89, 105, 122], [69, 85, 100, 116],
    [66, 80, 95, 110], [62, 76, 90, 104], [59, 72, 86, 99], [56, 69, 81, 94], [53, 65, 77, 89],
    [51, 62, 73, 85], [48, 59, 69, 80], [46, 56, 66, 76], [43, 53, 63, 72], [41, 50, 59, 69],
    [39, 48, 56, 65], [37, 45, 54, 62], [35, 43, 51, 59], [33, 41, 48, 56], [32, 39, 46, 53],
    [30, 37, 43, 50], [29, 35, 41, 48], [27, 33, 39, 45], [26, 31, 37, 43], [24, 30, 35, 41],
    [23, 28, 33, 39], [22, 27, 32, 37], [21, 26, 30, 35], [20, 24, 29, 33], [19, 23, 27, 31],
    [18, 22, 26, 30], [17, 21, 25, 28], [16, 20, 23, 27], [15, 19, 22, 25], [14, 18, 21, 24],
    [14, 17, 20, 23], [13, 16, 19, 22], [12, 15, 18, 21], [12, 14, 17, 20], [11, 14, 16, 19],
    [11, 13, 15, 18], [10, 12, 15, 17], [10, 12, 14, 16], [9, 11, 13, 15], [9, 11, 12, 14],
    [8, 10, 12, 14], [8, 9, 11, 13], [7, 9, 11, 12], [7, 9, 10, 12], [7, 8, 10, 11],
    [6, 8, 9, 11], [6, 7, 9, 10], [6, 7, 8, 9], [2, 2, 2, 2],
]
TRANS_IDX_LPS = [
    0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12, 13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21,
    22, 22, 23, 24, 24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33, 33, 33, 34, 34, 35,
    35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
]

# initValue for initType 0 (intra slices) of the contexts the fixtures use (tables 9-5 to 9-37).
INIT_VALUES = {
    "sao_merge": [153], "sao_type_idx": [200], "split_cu_flag": [139, 141, 157],
    "cu_transquant_bypass_flag": [154], "part_mode": [184], "prev_intra_luma_pred_flag": [184],
    "intra_chroma_pred_mode": [63], "split_transform_flag": [153, 138, 138], "cbf_luma": [111, 141],
    "cbf_chroma": [94, 138, 182, 154],
}


class BitWriter:
    """MSB-first bits of one RBSP."""

    def __init__(self):
        self.bits = []

    def u(self, value, n):
        for i in range(n - 1, -1, -1):
            self.bits.append((value >> i) & 1)

    def flag(self, value):
        self.u(1 if value else 0, 1)

    def ue(self, value):
        code = value + 1
        n = code.bit_length()
        self.u(0, n - 1)
        self.u(code, n)

    def se(self, value):
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def aligned(self):
        return len(self.bits) % 8 == 0

    def align_zero(self):
        while not self.aligned():
            self.bits.append(0)

    def trailing_bits(self):
        self.bits.append(1)
        self.align_zero()

    def to_bytes(self):
        assert self.aligned()
        return bytes(int("".join(map(str, self.bits[i:i + 8])), 2) for i in range(0, len(self.bits), 8))


class CABACEncoder:
    """H.265 9.3.4: the arithmetic encoder writing into a BitWriter, with named contexts."""

    def __init__(self, out, slice_qp):
        self.out = out
        self.contexts = {}
        q = min(max(slice_qp, 0), 51)
        for name, values in INIT_VALUES.items():
            states = []
            for init in values:
                m, n = (init >> 4) * 5 - 45, ((init & 15) << 3) - 16
                pre = min(max(((m * q) >> 4) + n, 1), 126)
                states.append([pre - 64, 1] if pre > 63 else [63 - pre, 0])
            self.contexts[name] = states
        self.start()

    def start(self):
        """Initialisation of the arithmetic engine alone (9.3.2.5): at the slice start and
        after PCM samples; the context states carry on."""
        self.low, self.range, self.first_bit, self.outstanding = 0, 510, True, 0

    def _put_bit(self, b):
        if self.first_bit:
            self.first_bit = False
        else:
            self.out.u(b, 1)
        while self.outstanding > 0:
            self.out.u(1 - b, 1)
            self.outstanding -= 1

    def _renorm(self):
        while self.range < 256:
            if self.low < 256:
                self._put_bit(0)
            elif self.low >= 512:
                self.low -= 512
                self._put_bit(1)
            else:
                self.low -= 256
                self.outstanding += 1
            self.range <<= 1
            self.low <<= 1

    def decision(self, name, index, bin):
        state = self.contexts[name][index]
        lps = RANGE_LPS[state[0]][(self.range >> 6) & 3]
        self.range -= lps
        if bin != state[1]:
            self.low += self.range
            self.range = lps
            if state[0] == 0:
                state[1] = 1 - state[1]
            state[0] = TRANS_IDX_LPS[state[0]]
        elif state[0] < 62:
            state[0] += 1
        self._renorm()

    def bypass(self, bin):
        self.low <<= 1
        if bin:
            self.low += self.range
        if self.low >= 1024:
            self._put_bit(1)
            self.low -= 1024
        elif self.low < 512:
            self._put_bit(0)
        else:
            self.low -= 512
            self.outstanding += 1

    def bypass_bits(self, value, n):
        for i in range(n - 1, -1, -1):
            self.bypass((value >> i) & 1)

    def terminate(self, bin):
        """A 1 ends the arithmetic code (EncodeFlush): its last bit written is a 1, which is
        the rbsp_stop_one_bit after end_of_slice_segment_flag; PCM data follows pcm_flag
        after zero bits to the next byte."""
        self.range -= 2
        if bin:
            self.low += self.range
            self.range = 2
            self._renorm()
            self._put_bit((self.low >> 9) & 1)
            self.out.u(((self.low >> 7) & 3) | 1, 2)
        else:
            self._renorm()


def nal_unit(nal_type, rbsp):
    """Two-byte header (layer 0, temporal id 0), emulation prevention, Annex B start code."""
    body = bytearray()
    zeros = 0
    for b in rbsp:
        if zeros >= 2 and b <= 3:
            body.append(3)
            zeros = 0
        body.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return b"\x00\x00\x00\x01" + bytes([nal_type << 1, 1]) + bytes(body)


def profile_tier_level(w, profile_idc, level_idc=120):
    w.u(0, 2)                                       # general_profile_space
    w.flag(0)                                       # general_tier_flag
    w.u(profile_idc, 5)
    w.u(sum(1 << (31 - i) for i in {profile_idc, 2}), 32)   # compatible with itself and Main 10
    w.u(0b1001, 4)                                  # progressive, not interlaced, not packed, frame only
    w.u(0, 43)
    w.u(0, 1)
    w.u(level_idc, 8)


def vps(profile_idc):
    w = BitWriter()
    w.u(0, 4); w.flag(1); w.flag(1); w.u(0, 6); w.u(0, 3); w.flag(1); w.u(0xFFFF, 16)
    profile_tier_level(w, profile_idc)
    w.flag(1); w.ue(0); w.ue(0); w.ue(0)             # sub-layer ordering info
    w.u(0, 6); w.ue(0); w.flag(0); w.flag(0)         # max layer id, layer sets, timing, extension
    w.trailing_bits()
    return nal_unit(32, w.to_bytes())


def sps(p):
    """`p`: width, height, crop (right, bottom in luma samples), bit_depth, log2_min_cb,
    log2_ctb, sao, pcm_bits (luma, chroma), log2_pcm (min, max), pcm_loop_filter_disabled."""
    w = BitWriter()
    w.u(0, 4); w.u(0, 3); w.flag(1)
    profile_tier_level(w, 1 if p["bit_depth"] == 8 else 2)
    w.ue(0)                                          # sps_seq_parameter_set_id
    w.ue(1)                                          # chroma_format_idc 4:2:0
    w.ue(p["width"]); w.ue(p["height"])
    right, bottom = p.get("crop", (0, 0))
    w.flag(right or bottom)
    if right or bottom:
        w.ue(0); w.ue(right // 2); w.ue(0); w.ue(bottom // 2)
    w.ue(p["bit_depth"] - 8); w.ue(p["bit_depth"] - 8)
    w.ue(4)                                          # log2_max_pic_order_cnt_lsb_minus4
    w.flag(1); w.ue(0); w.ue(0); w.ue(0)
    w.ue(p["log2_min_cb"] - 3); w.ue(p["log2_ctb"] - p["log2_min_cb"])
    w.ue(0); w.ue(min(5, p["log2_ctb"]) - 2)         # transform blocks from 4 to 32 or the CTB size
    w.ue(0); w.ue(0)                                 # max transform hierarchy depth inter, intra
    w.flag(0); w.flag(0)                             # scaling lists, AMP
    w.flag(p["sao"])
    w.flag(1)                                        # pcm_enabled_flag
    w.u(p["pcm_bits"][0] - 1, 4); w.u(p["pcm_bits"][1] - 1, 4)
    w.ue(p["log2_pcm"][0] - 3); w.ue(p["log2_pcm"][1] - p["log2_pcm"][0])
    w.flag(p["pcm_loop_filter_disabled"])
    w.ue(0); w.flag(0); w.flag(0)                    # no reference picture sets, no TMVP
    w.flag(1)                                        # strong_intra_smoothing_enabled_flag
    w.flag(0); w.flag(0)                             # no VUI, no extensions
    w.trailing_bits()
    return nal_unit(33, w.to_bytes())


def pps(p):
    """`p`: init_qp, transquant_bypass, deblocking (None: default; False: off; (beta, tc) offsets)."""
    w = BitWriter()
    w.ue(0); w.ue(0)
    w.flag(0); w.flag(0); w.u(0, 3); w.flag(0); w.flag(0)
    w.ue(0); w.ue(0)
    w.se(p["init_qp"] - 26)
    w.flag(0); w.flag(0); w.flag(0)                  # constrained intra, transform skip, cu_qp_delta
    w.se(0); w.se(0); w.flag(0)                      # chroma QP offsets
    w.flag(0); w.flag(0)                             # weighted prediction
    w.flag(p["transquant_bypass"])
    w.flag(0); w.flag(0); w.flag(0)                  # tiles, wavefront, filtering across slices
    deblocking = p.get("deblocking")
    w.flag(deblocking is not None)
    if deblocking is not None:
        w.flag(0)                                    # no override in slice headers
        w.flag(deblocking is False)
        if deblocking is not False:
            w.se(deblocking[0]); w.se(deblocking[1])
    w.flag(0); w.flag(0); w.ue(0); w.flag(0); w.flag(0)
    w.trailing_bits()
    return nal_unit(34, w.to_bytes())


def slice_header(w, sao):
    """An IDR intra slice, the whole picture, QP from the PPS."""
    w.flag(1)                                        # first_slice_segment_in_pic_flag
    w.flag(0)                                        # no_output_of_prior_pics_flag
    w.ue(0)                                          # slice_pic_parameter_set_id
    w.ue(2)                                          # slice_type I
    if sao:
        w.flag(1); w.flag(1)                         # slice_sao_luma_flag, slice_sao_chroma_flag
    w.se(0)                                          # slice_qp_delta
    w.trailing_bits()                                # byte_alignment(): a 1, then zeros
