"""skss.align(): scores against a small Gotoh written here, the ops and CIGAR
against the ranges, the three scorings, and argument errors."""
import random

import numpy as np
import pytest

import skss


def gotoh(a, b, match, mismatch, o, e):
    """Global score with affine gaps (mismatch is a score, as in skss.align)."""
    neg = float("-inf")
    m, n = len(a), len(b)
    H = [[0.0] * (n + 1) for _ in range(m + 1)]
    E = [[neg] * (n + 1) for _ in range(m + 1)]
    F = [[neg] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        for j in range(n + 1):
            if i == 0 and j == 0:
                continue
            if i == 0:
                H[i][j] = E[i][j] = -(o + (j - 1) * e)
            elif j == 0:
                H[i][j] = F[i][j] = -(o + (i - 1) * e)
            else:
                E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
                F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
                H[i][j] = max(H[i - 1][j - 1] + (match if a[i - 1] == b[j - 1] else mismatch), E[i][j], F[i][j])
    return int(H[m][n])


def test_global_against_gotoh():
    rng = random.Random(5)
    for _ in range(30):
        a = "".join(rng.choice("ACGT") for _ in range(rng.randint(0, 25)))
        b = "".join(rng.choice("acgt") for _ in range(rng.randint(0, 25)))
        for backend in ("cpu-ref", "cpu"):
            with skss.Context(backend, threads=2):
                r = skss.align(a, b)
            assert r.score == gotoh(a.upper(), b.upper(), 2, -3, 5, 2)
            assert (r.a_begin, r.a_end, r.b_begin, r.b_end) == (0, len(a), 0, len(b))
            assert r.ops.count("D") + len(a) == len(r.ops) and r.ops.count("I") + len(b) == len(r.ops)


def test_modes_outputs_and_cigar():
    a, b = "TTTTACGTACGTGGGG", b"CCACGTACGTCC"
    r = skss.align(a, b, "local", gap_open=10, gap_extend=1)
    assert (r.score, r.a_begin, r.a_end, r.b_begin, r.b_end) == (16, 4, 12, 2, 10)
    assert r.ops == "=" * 8 and r.cigar == "8="
    s = skss.align(a, b, "local", output="score")
    assert s.score == 16 and s.a_begin == -1 and s.ops == "" and s.cigar == ""
    e = skss.align(a, b, "semi-global", output="ends")
    assert e.score == skss.align(a, b, "semi-global").score and e.a_begin >= 0 and e.ops == ""
    assert skss.align("ACGT", "AGT", algorithm="taskarray-cpu").cigar == "1=1I2="


def test_matrices():
    r = skss.align("HEAGAWGHEE", "PAWHEAE", "local", matrix="blosum62", gap_open=11, gap_extend=1)
    assert r.score == 17  # parasail sw with BLOSUM62, open 11, extend 1
    m = np.array([[1, -1], [-1, 2]])
    r = skss.align("xyyx", "XYYX", matrix=m, alphabet="xy", gap_open=3, gap_extend=1)
    assert r.score == 6 and r.cigar == "4="


def test_errors():
    with pytest.raises(skss.InvalidArgumentError, match=r"a\[1\] is '1'"):
        skss.align("A1GT", "ACGT")
    with pytest.raises(skss.InvalidArgumentError, match="gap_extend <= gap_open"):
        skss.align("ACGT", "ACGT", gap_open=1, gap_extend=2)
    with pytest.raises(skss.OverflowError):
        skss.align("ACGT", "ACGT", match=2_000_000_000)
    with pytest.raises(ValueError, match="mode"):
        skss.align("A", "A", "glocal")
    with pytest.raises(ValueError, match="alphabet"):
        skss.align("A", "A", matrix=np.eye(2))
    with pytest.raises(ValueError, match="unknown align algorithm"):
        skss.align("A", "A", algorithm="strips")
