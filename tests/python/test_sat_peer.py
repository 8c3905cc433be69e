"""Peer tests of skss_sat() and skss_boxfilter_u8() against OpenCV and NumPy.

The padded SAT is OpenCV's convention, so cv2.integral is a peer: u8 -> i32
and u8 -> f64 must be identical (exact integer sums), u8 -> f32 too while the
sums stay below 2^24; f32 -> f64 and f64 -> f64 sum in other orders, so both
are held to skss.h's bound |out - exact| <= (i + j + 2) u S against a long
double reference, and to twice that against OpenCV. Squared sums go against
cv2.integral2 where its types line up with ours (both outputs in out_type).
The box filter goes against a NumPy brute-force window mean. Every check runs
on CPU_REF and on CPU with 1 and 3 threads, on random and odd sizes.
"""
import ctypes

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from skss_ctypes import LIB, Context

cv2 = pytest.importorskip("cv2")

DTYPE = {np.uint8: 1, np.uint32: 5, np.int32: 6, np.float32: 9, np.float64: 10}
ALGORITHMS = {"auto": 0, "2r2w-cpu": 1, "4r1w-cpu": 2, "rowscan-cpu": 3, "bands-cpu": 4}
INCLUSIVE, PADDED = 0, 1
CLIP, ZERO = 0, 1


class SatDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("height", ctypes.c_int64),
        ("width", ctypes.c_int64),
        ("in_type", ctypes.c_int),
        ("out_type", ctypes.c_int),
        ("in_pitch", ctypes.c_int64),
        ("out_pitch", ctypes.c_int64),
        ("out_sq_pitch", ctypes.c_int64),
        ("layout", ctypes.c_int),
        ("algorithm", ctypes.c_int),
    ]


class BoxDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("height", ctypes.c_int64),
        ("width", ctypes.c_int64),
        ("radius", ctypes.c_int64),
        ("in_pitch", ctypes.c_int64),
        ("out_pitch", ctypes.c_int64),
        ("border", ctypes.c_int),
        ("sat_algorithm", ctypes.c_int),
    ]


LIB.skss_sat.argtypes = [ctypes.c_void_p, ctypes.POINTER(SatDesc), ctypes.c_void_p,
                         ctypes.c_void_p, ctypes.c_void_p]
LIB.skss_sat.restype = ctypes.c_int
LIB.skss_boxfilter_u8.argtypes = [ctypes.c_void_p, ctypes.POINTER(BoxDesc), ctypes.c_void_p,
                                  ctypes.c_void_p]
LIB.skss_boxfilter_u8.restype = ctypes.c_int

BACKENDS = [("cpu-ref", 1), ("cpu", 1), ("cpu", 3)]
SIZES = [(1, 1), (1, 17), (23, 1), (3, 5), (31, 33), (64, 64), (97, 211), (257, 129)]


def sat(ctx, a, out_dtype, squared=False, algorithm="auto", layout=PADDED):
    """The SAT of a 2-D array (and of its square) from skss."""
    pad = 1 if layout == PADDED else 0
    shape = (a.shape[0] + pad, a.shape[1] + pad)
    out = np.full(shape, 7, dtype=out_dtype)
    sq = np.full(shape, 7, dtype=out_dtype) if squared else None
    d = SatDesc(ctypes.sizeof(SatDesc), a.shape[0], a.shape[1], DTYPE[a.dtype.type],
                DTYPE[np.dtype(out_dtype).type], a.strides[0], out.strides[0],
                sq.strides[0] if squared else 0, layout, ALGORITHMS[algorithm])
    ctx.check(LIB.skss_sat(ctx.ptr, ctypes.byref(d), a.ctypes.data, out.ctypes.data,
                           sq.ctypes.data if squared else None))
    return out, sq


def algorithms(backend):
    return ["auto", "2r2w-cpu", "4r1w-cpu"] + (["rowscan-cpu", "bands-cpu"] if backend == "cpu" else [])


def random_input(rng, shape, dtype):
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-6, 7, shape)).astype(dtype)


def exact_sat(a, squared=False):
    """Padded long double SAT and the SAT of |terms|."""
    x = a.astype(np.longdouble)
    if squared:
        x = x * x
    out = np.zeros((a.shape[0] + 1, a.shape[1] + 1), np.longdouble)
    mag = np.zeros_like(out)
    out[1:, 1:] = x.cumsum(0).cumsum(1)
    mag[1:, 1:] = np.abs(x).cumsum(0).cumsum(1)
    return out, mag


def bound(mag, out_dtype, algorithm):
    """skss.h's float bound per padded element (4R1W carries its rounding
    errors into the whole quadrant below, so it gets 5 (i + 1)(j + 1))."""
    u = 2.0 ** -24 if out_dtype == np.float32 else 2.0 ** -53
    i = np.arange(mag.shape[0]).reshape(-1, 1) - 1
    j = np.arange(mag.shape[1]).reshape(1, -1) - 1
    factor = 5.0 * (i + 1) * (j + 1) if algorithm == "4r1w-cpu" else (i + j + 2).astype(np.float64)
    return np.maximum(factor, 0) * u * mag.astype(np.float64) * 1.001


@pytest.mark.parametrize("backend,threads", BACKENDS)
@pytest.mark.parametrize("sdepth,out_dtype", [(cv2.CV_32S, np.int32), (cv2.CV_64F, np.float64)])
def test_u8_identical_to_cv2_integral(backend, threads, sdepth, out_dtype):
    rng = np.random.default_rng(11)
    with Context(backend, threads) as ctx:
        for h, w in SIZES + [tuple(rng.integers(1, 400, 2)) for _ in range(4)]:
            a = rng.integers(0, 256, (h, w), dtype=np.uint8)
            want = cv2.integral(a, sdepth=sdepth)
            for alg in algorithms(backend):
                got, _ = sat(ctx, a, out_dtype, algorithm=alg)
                np.testing.assert_array_equal(got, want, err_msg=f"{alg} {h}x{w}")


@pytest.mark.parametrize("backend,threads", BACKENDS)
def test_u8_f32_identical_while_exact(backend, threads):
    rng = np.random.default_rng(12)
    with Context(backend, threads) as ctx:
        for h, w in SIZES:
            a = rng.integers(0, 256, (h, w), dtype=np.uint8)
            got, _ = sat(ctx, a, np.float32)
            np.testing.assert_array_equal(got, cv2.integral(a, sdepth=cv2.CV_32F))


@pytest.mark.parametrize("backend,threads", BACKENDS)
@pytest.mark.parametrize("in_dtype,out_dtype,sdepth", [
    (np.float32, np.float32, cv2.CV_32F),
    (np.float32, np.float64, cv2.CV_64F),
    (np.float64, np.float64, cv2.CV_64F),
])
def test_float_within_bound_of_cv2(backend, threads, in_dtype, out_dtype, sdepth):
    rng = np.random.default_rng(13)
    with Context(backend, threads) as ctx:
        for h, w in SIZES:
            a = random_input(rng, (h, w), in_dtype)
            exact, mag = exact_sat(a)
            peer = cv2.integral(a, sdepth=sdepth)
            for alg in algorithms(backend):
                got, _ = sat(ctx, a, out_dtype, algorithm=alg)
                b = bound(mag, out_dtype, alg)
                err = np.abs(got.astype(np.longdouble) - exact).astype(np.float64)
                assert np.all(err <= b), f"{alg} {h}x{w}: worst {np.max(err - b)}"
                if alg != "4r1w-cpu":
                    diff = np.abs(got.astype(np.float64) - peer.astype(np.float64))
                    assert np.all(diff <= 2 * b), f"{alg} {h}x{w} vs cv2"


@pytest.mark.parametrize("backend,threads", BACKENDS)
@pytest.mark.parametrize("in_dtype,out_dtype,depth", [
    (np.uint8, np.int32, cv2.CV_32S),
    (np.uint8, np.float64, cv2.CV_64F),
    (np.float32, np.float64, cv2.CV_64F),
    (np.float64, np.float64, cv2.CV_64F),
])
def test_squared_sums_vs_cv2_integral2(backend, threads, in_dtype, out_dtype, depth):
    rng = np.random.default_rng(14)
    with Context(backend, threads) as ctx:
        # Small enough that OpenCV's int32 square sums cannot overflow.
        for h, w in [(1, 1), (3, 5), (31, 33), (97, 211), (129, 255)]:
            a = random_input(rng, (h, w), in_dtype)
            want_sum, want_sq = cv2.integral2(a, sdepth=depth, sqdepth=depth)
            exact, mag = exact_sat(a, squared=True)
            for alg in algorithms(backend):
                got, got_sq = sat(ctx, a, out_dtype, squared=True, algorithm=alg)
                if in_dtype == np.uint8:
                    np.testing.assert_array_equal(got, want_sum, err_msg=f"{alg} {h}x{w}")
                    np.testing.assert_array_equal(got_sq, want_sq, err_msg=f"{alg} {h}x{w} sq")
                    continue
                b = bound(mag, out_dtype, alg)
                err = np.abs(got_sq.astype(np.longdouble) - exact).astype(np.float64)
                assert np.all(err <= b), f"{alg} {h}x{w} sq: worst {np.max(err - b)}"
                if alg != "4r1w-cpu":
                    diff = np.abs(got_sq - want_sq)
                    assert np.all(diff <= 2 * b), f"{alg} {h}x{w} sq vs cv2"


def test_inclusive_is_padded_without_border():
    rng = np.random.default_rng(15)
    a = rng.integers(0, 256, (45, 61), dtype=np.uint8)
    with Context("cpu", 2) as ctx:
        got, _ = sat(ctx, a, np.uint32, layout=INCLUSIVE)
    np.testing.assert_array_equal(got, cv2.integral(a, sdepth=cv2.CV_32S)[1:, 1:].astype(np.uint32))


def test_pitched_input_view():
    """A strided (sliced) input: skss reads rows by in_pitch."""
    rng = np.random.default_rng(16)
    big = rng.integers(0, 256, (80, 100), dtype=np.uint8)
    a = big[5:75, 3:91]
    with Context("cpu", 3) as ctx:
        got, _ = sat(ctx, a, np.int32)
    np.testing.assert_array_equal(got, cv2.integral(np.ascontiguousarray(a), sdepth=cv2.CV_32S))


# ---- box filter ---------------------------------------------------------


def boxfilter(ctx, a, radius, border, algorithm="auto"):
    out = np.full(a.shape, 0xA5, np.uint8)
    d = BoxDesc(ctypes.sizeof(BoxDesc), a.shape[0], a.shape[1], radius, a.strides[0],
                out.strides[0], border, ALGORITHMS[algorithm])
    ctx.check(LIB.skss_boxfilter_u8(ctx.ptr, ctypes.byref(d), a.ctypes.data, out.ctypes.data))
    return out


def box_reference(a, radius, border):
    """Brute-force window means: every window summed from a zero-padded copy."""
    h, w = a.shape
    r = min(radius, max(h, w))  # wider windows cover no more of the image
    side = 2 * r + 1
    sums = sliding_window_view(np.pad(a.astype(np.int64), r), (side, side)).sum(axis=(2, 3))
    if border == CLIP:
        count = sliding_window_view(np.pad(np.ones_like(a, np.int64), r), (side, side)).sum(axis=(2, 3))
    else:
        count = (2 * radius + 1) ** 2
        if count > 2 * 255 * h * w:
            return np.zeros_like(a)
    return ((sums + count // 2) // count).astype(np.uint8)


@pytest.mark.parametrize("backend,threads", BACKENDS)
@pytest.mark.parametrize("border", [CLIP, ZERO])
def test_boxfilter_vs_numpy(backend, threads, border):
    rng = np.random.default_rng(17)
    with Context(backend, threads) as ctx:
        for h, w in [(1, 1), (1, 9), (7, 5), (31, 33), (40, 57), (64, 3)]:
            a = rng.integers(0, 256, (h, w), dtype=np.uint8)
            for radius in [0, 1, 2, 7, 100, 2 ** 40]:
                want = box_reference(a, radius, border)
                for alg in algorithms(backend):
                    got = boxfilter(ctx, a, radius, border, alg)
                    np.testing.assert_array_equal(got, want, err_msg=f"{alg} {h}x{w} r={radius}")
