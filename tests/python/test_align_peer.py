"""skss_align() against parasail and Biopython's PairwiseAligner.

Scores must equal parasail's 32-bit scan functions (nw = global, sw =
local, sg = semi-global: free end gaps in both sequences; for sg, max(0,
parasail's), see parasail_score) and Biopython's
PairwiseAligner (global, local, and global with end_gap_score = 0) with the
gap convention mapped: a gap of L letters costs open + (L - 1) * extend in
skss and parasail, and scores open_gap_score + (L - 1) * extend_gap_score
in Biopython, so open_gap_score = -open and extend_gap_score = -extend.
Pairs: random DNA, mutated copies (10% substitutions and indels, and a
long insertion) from 1 to 30 kbp, and proteins with BLOSUM62. Every
backend's CIGAR is re-scored by skss_align_score_ops() and by a re-scorer
written here, and must cover begin..end exactly.
"""
import ctypes
import random
import re

import pytest

from skss_ctypes import LIB, Context

parasail = pytest.importorskip("parasail", reason="parasail (PyPI) has no wheel for this Python")
PairwiseAligner = pytest.importorskip("Bio.Align").PairwiseAligner

MODES = {"global": 0, "local": 1, "semi-global": 2}
ALGORITHMS = {"auto": 0, "gotoh": 1, "taskarray-cpu": 2}
DNA = "ACGT"
PROTEIN = "ARNDCQEGHILKMFPSTWYV"


class AlignDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("a_len", ctypes.c_int64),
        ("b_len", ctypes.c_int64),
        ("mode", ctypes.c_int),
        ("output", ctypes.c_int),
        ("algorithm", ctypes.c_int),
        ("scoring", ctypes.c_int),
        ("match", ctypes.c_int32),
        ("mismatch", ctypes.c_int32),
        ("alphabet", ctypes.c_char_p),
        ("matrix", ctypes.POINTER(ctypes.c_int32)),
        ("gap_open", ctypes.c_int32),
        ("gap_extend", ctypes.c_int32),
        ("ops_capacity", ctypes.c_int64),
    ]


class AlignResult(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in ("score", "a_begin", "a_end", "b_begin", "b_end", "length")]


LIB.skss_align.argtypes = [ctypes.c_void_p, ctypes.POINTER(AlignDesc), ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.POINTER(AlignResult), ctypes.c_char_p]
LIB.skss_align.restype = ctypes.c_int
LIB.skss_align_score_ops.argtypes = [ctypes.c_void_p, ctypes.POINTER(AlignDesc), ctypes.c_char_p,
                                     ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p,
                                     ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
LIB.skss_align_score_ops.restype = ctypes.c_int


def skss_align(ctx, a, b, mode, scoring, algorithm="auto", alignment=True):
    """scoring: ("dna", match, mismatch_penalty, open, extend) or ("blosum62", open, extend)."""
    d = AlignDesc(ctypes.sizeof(AlignDesc), len(a), len(b), MODES[mode], 2 if alignment else 0,
                  ALGORITHMS[algorithm])
    if scoring[0] == "dna":
        d.scoring, d.match, d.mismatch, d.gap_open, d.gap_extend = 0, scoring[1], -scoring[2], scoring[3], scoring[4]
    else:
        d.scoring, d.gap_open, d.gap_extend = 1, scoring[1], scoring[2]
    d.ops_capacity = len(a) + len(b)
    ops = ctypes.create_string_buffer(max(1, len(a) + len(b)))
    r = AlignResult()
    ctx.check(LIB.skss_align(ctx.ptr, ctypes.byref(d), a.encode(), b.encode(), ctypes.byref(r), ops))
    text = ops.raw[:r.length].decode() if alignment else ""
    if alignment:
        score = ctypes.c_int64()
        ctx.check(LIB.skss_align_score_ops(ctx.ptr, ctypes.byref(d), a.encode(), b.encode(), r.a_begin,
                                           r.b_begin, text.encode(), len(text), ctypes.byref(score)))
        assert score.value == r.score
        assert rescore(text, a, b, r.a_begin, r.b_begin, scoring) == (r.score, r.a_end - r.a_begin,
                                                                      r.b_end - r.b_begin)
    return r, text


def rescore(ops, a, b, i, j, scoring):
    """The score of ops from a[i], b[j], and the letters they cover."""
    if scoring[0] == "dna":
        match, mismatch, o, e = scoring[1], scoring[2], scoring[3], scoring[4]
        sub = lambda x, y: match if x == y else -mismatch  # noqa: E731
    else:
        o, e = scoring[1], scoring[2]
        sub = lambda x, y: parasail.blosum62.matrix[BLOSUM_INDEX[x], BLOSUM_INDEX[y]]  # noqa: E731
    score, i0, j0 = 0, i, j
    for run in re.findall(r"(=+|X+|I+|D+)", ops):
        if run[0] in "=X":
            for _ in run:
                assert (a[i] == b[j]) == (run[0] == "=")
                score += sub(a[i], b[j])
                i, j = i + 1, j + 1
        else:
            score -= o + (len(run) - 1) * e
            i, j = (i + len(run), j) if run[0] == "I" else (i, j + len(run))
    return score, i - i0, j - j0


BLOSUM_INDEX = {c: k for k, c in enumerate("ARNDCQEGHILKMFPSTWYVBZX*")}


def parasail_score(a, b, mode, scoring):
    if scoring[0] == "dna":
        matrix, o, e = parasail.matrix_create(DNA, scoring[1], -scoring[2]), scoring[3], scoring[4]
    else:
        matrix, o, e = parasail.blosum62, scoring[1], scoring[2]
    fn = {"global": parasail.nw_scan_32, "local": parasail.sw_scan_32, "semi-global": parasail.sg_scan_32}[mode]
    score = fn(a, b, o, e, matrix).score
    # parasail's sg takes its score from the last row and column without
    # their cells in row 0 and column 0 (whose empty alignments score 0):
    # skss and Biopython count those too, so they report max(0, parasail's).
    return max(score, 0) if mode == "semi-global" else score


def biopython_score(a, b, mode, scoring):
    al = PairwiseAligner(mode="local" if mode == "local" else "global")
    if scoring[0] == "dna":
        al.match_score, al.mismatch_score = scoring[1], -scoring[2]
        o, e = scoring[3], scoring[4]
    else:
        from Bio.Align import substitution_matrices
        al.substitution_matrix = substitution_matrices.load("BLOSUM62")
        o, e = scoring[1], scoring[2]
    al.open_gap_score, al.extend_gap_score = -o, -e
    if mode == "semi-global":
        al.end_gap_score = 0
    return int(al.score(a, b))


def mutate(rng, s, rate, alphabet, insertion=0):
    out = []
    for k, c in enumerate(s):
        if insertion and k == len(s) // 2:
            out.extend(rng.choice(alphabet) for _ in range(insertion))
        u = rng.random()
        if u < rate / 3:
            continue
        if u < 2 * rate / 3:
            out.append(rng.choice(alphabet))
        out.append(rng.choice(alphabet) if rate * 2 / 3 <= u < rate else c)
    return "".join(out) or alphabet[0]


def pairs(seed, sizes, alphabet):
    rng = random.Random(seed)
    for n in sizes:
        a = "".join(rng.choice(alphabet) for _ in range(n))
        yield "random", a, "".join(rng.choice(alphabet) for _ in range(max(1, n * 9 // 10)))
        yield "mutated", a, mutate(rng, a, 0.1, alphabet, insertion=n // 20)


DNA_SCORES = [("dna", 2, 3, 5, 2), ("dna", 1, 1, 2, 1), ("dna", 5, 4, 10, 1)]
CONFIGS = [("cpu-ref", 1, "auto"), ("cpu", 1, "gotoh"), ("cpu", 3, "taskarray-cpu")]


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("scoring", DNA_SCORES)
def test_dna_small(mode, scoring):
    for kind, a, b in pairs(hash((mode, scoring)) & 0xFFFF, (1, 2, 17, 120, 1000), DNA):
        want = parasail_score(a, b, mode, scoring)
        assert biopython_score(a, b, mode, scoring) == want, (kind, len(a), len(b))
        for backend, threads, algorithm in CONFIGS:
            with Context(backend, threads) as ctx:
                r, _ = skss_align(ctx, a, b, mode, scoring, algorithm)
                assert r.score == want, (kind, len(a), len(b), backend, algorithm)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_dna_large(mode):
    """5 kbp with Biopython too, then one mutated pair against parasail:
    30 kbp for global (with the alignment), 12 kbp for the others."""
    scoring = DNA_SCORES[0]
    with Context("cpu", 0) as ctx:
        for kind, a, b in pairs(7, (5000,), DNA):
            want = parasail_score(a, b, mode, scoring)
            assert biopython_score(a, b, mode, scoring) == want
            r, _ = skss_align(ctx, a, b, mode, scoring)
            assert r.score == want, (kind, mode)
        rng = random.Random(11)
        a = "".join(rng.choice(DNA) for _ in range(30000 if mode == "global" else 12000))
        b = mutate(rng, a, 0.1, DNA, insertion=500)
        r, _ = skss_align(ctx, a, b, mode, scoring)
        assert r.score == parasail_score(a, b, mode, scoring)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_protein_blosum62(mode):
    scoring = ("blosum62", 11, 1)
    for kind, a, b in pairs(5, (1, 9, 150, 1500), PROTEIN):
        want = parasail_score(a, b, mode, scoring)
        assert biopython_score(a, b, mode, scoring) == want, (kind, len(a))
        for backend, threads, algorithm in CONFIGS:
            with Context(backend, threads) as ctx:
                r, _ = skss_align(ctx, a, b, mode, scoring, algorithm)
                assert r.score == want, (kind, len(a), backend, algorithm)


def test_backends_agree_on_ends():
    """Score, begin and end are the same on every backend; the ops may differ."""
    scoring = DNA_SCORES[0]
    for kind, a, b in pairs(3, (400, 2500), DNA):
        for mode in MODES:
            results = []
            for backend, threads, algorithm in CONFIGS:
                with Context(backend, threads) as ctx:
                    r, _ = skss_align(ctx, a, b, mode, scoring, algorithm)
                    results.append((r.score, r.a_begin, r.a_end, r.b_begin, r.b_end))
            assert len(set(results)) == 1, (kind, mode, results)
