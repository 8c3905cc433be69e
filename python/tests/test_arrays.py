"""The GPU arrays' code path without a GPU: a stand-in "device library"
whose arrays are NumPy arrays handed to the C extension as (pointer, shape,
byte strides), as CuPy's and torch's are, run on a CPU context. Checks the
pitch rules, the copies of strided inputs, out= and the trimmed results of
every function against the NumPy path; test_gpu.py does the same on a GPU."""
import contextlib

import numpy as np
import pytest

import skss
from skss import _arrays


class StandIn(_arrays.Gpu):
    kind = "stand-in"
    device = 0

    def __init__(self, ctx):
        self.ctx = ctx
        self.copies = 0
        self.raws = 0

    def raw(self, a):
        out = super().raw(a)
        self.raws += type(out) is tuple
        return out

    def owns(self, a):
        return type(a) is np.ndarray

    def device_of(self, a):
        return None

    def scope(self):
        return contextlib.nullcontext()

    dtype = staticmethod(lambda a: a.dtype)
    strides = staticmethod(lambda a: a.strides)
    pointer = staticmethod(lambda a: a.ctypes.data)
    empty = staticmethod(np.empty)
    astype = staticmethod(lambda a, dt: a.astype(dt))
    view = staticmethod(lambda a, dt: a.view(dt))
    arange = staticmethod(lambda n: np.arange(n, dtype=np.int64))

    def contiguous(self, a):
        if not a.flags.c_contiguous:
            self.copies += 1
        return np.ascontiguousarray(a)

    @staticmethod
    def zero(a):
        a[...] = 0

    def run(self, ctx, op, fn, *args):  # no stream on a CPU context
        return fn(self.ctx, *args)


STANDIN = []  # the stand-in while a test runs, empty while host() runs


@pytest.fixture
def dev(monkeypatch):
    ctx = skss.Context("cpu", threads=2)
    STANDIN.append(StandIn(ctx))
    monkeypatch.setattr(skss, "_space", lambda a: STANDIN[0] if STANDIN and type(a) is np.ndarray
                        else _arrays.HOST)
    yield STANDIN[0]
    STANDIN.clear()
    ctx.close()


def host(fn, *args, **kw):
    """The NumPy path's result, on the reference backend."""
    saved = STANDIN[:]
    STANDIN.clear()
    try:
        with skss.Context("cpu-ref") as ref:
            return fn(*args, **kw, ctx=ref)
    finally:
        STANDIN.extend(saved)


def random_array(shape, dtype, seed=0):
    r = np.random.default_rng(20261201 + seed)
    if np.dtype(dtype).kind == "f":
        return r.uniform(-4, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    return r.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def test_pitched():
    p = _arrays.pitched
    assert p((3, 4), (4, 1), 1) == (4, 1)
    assert p((3, 4), (10, 1), 1) == (10, 1)          # rows with a pitch
    assert p((3, 4), (16, 4), 4) == (16, 4)
    assert p((3, 4), (1, 3), 1) is None              # transposed
    assert p((3, 4), (8, 2), 1) is None              # strided columns
    assert p((3, 4), (3, 1), 1) is None              # rows overlap
    assert p((3, 4), (6, 1), 4) is None              # pitch not a whole element
    assert p((1, 4), (999, 1), 1) == (0, 1)          # one row: packed
    assert p((3, 1), (7, 5), 1) == (7, 0)            # one column: its stride is moot
    assert p((2, 3, 4), (100, 10, 1), 1) == (100, 10, 1)
    assert p((2, 3, 4), (20, 10, 1), 1) is None      # images overlap
    assert p((0, 4), (4, 1), 1) == (0, 1)


def test_sat_in_place_through_the_pitch(dev):
    base = random_array((64, 90), np.uint8, 1)
    rows = base[7:40, 3:77]
    out = np.zeros((40, 80), np.uint32)
    got = skss.sat(rows, out=out[3:36, 2:76])
    assert dev.copies == 0 and got.base is out and dev.raws == 2
    np.testing.assert_array_equal(got, host(skss.sat, rows))
    assert (out[:3] == 0).all()
    sums, squares = skss.sat(base[3::2, 5::3], dtype=np.float64, layout="padded", squared=True)
    assert dev.copies == 1
    want_s, want_q = host(skss.sat, base[3::2, 5::3], dtype=np.float64, layout="padded", squared=True)
    np.testing.assert_array_equal(sums, want_s)
    np.testing.assert_array_equal(squares, want_q)
    np.testing.assert_array_equal(skss.sat(np.zeros((0, 3), np.uint8), layout="padded"), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="out must have contiguous rows"):
        skss.sat(base[:4, :5], out=np.zeros((4, 10), np.uint32)[:, ::2])
    with pytest.raises(ValueError, match="out must have shape"):
        skss.sat(base[:4, :5], out=np.zeros((4, 5), np.int32))


def test_boxfilter_and_halftone(dev):
    img = random_array((3, 50, 61), np.uint8, 2)
    part = img[::2, 3:40, 5:50]
    got = skss.halftone(part, kernel="jjn", bits=True)
    assert dev.copies == 0 and got.shape == (2, 37, 6)
    np.testing.assert_array_equal(got, host(skss.halftone, part, kernel="jjn", bits=True))
    out = np.zeros((37, 45), np.uint8)
    assert skss.halftone(part[1], out=out) is out
    np.testing.assert_array_equal(out, host(skss.halftone, part[1]))
    np.testing.assert_array_equal(skss.boxfilter(img[1, 2:30, 4:60], 3, "zero"),
                                  host(skss.boxfilter, img[1, 2:30, 4:60], 3, "zero"))


def test_knapsack(dev):
    r = np.random.default_rng(5)
    w = r.integers(1, 40, (3, 30)).astype(np.int32)
    v = r.integers(1, 50, (3, 30)).astype(np.int32)
    values, taken, table = skss.knapsack(w, v, 200, by_capacity=True)
    want = host(skss.knapsack, w, v, 200, by_capacity=True)
    np.testing.assert_array_equal(values, want[0])
    assert taken.dtype == bool
    np.testing.assert_array_equal(taken, want[1])
    np.testing.assert_array_equal(table, want[2])
    value = skss.knapsack(w[0], v[0], 200, value_only=True)
    assert type(value) is int and value == want[0][0]


def test_compact_trims_to_views(dev):
    a = random_array(1000, np.float32, 3)
    got, idx = skss.compact(a, gt=0.5, indices=True)
    assert got.base is not None and got.base.shape == (1000,)  # a view of the n-element output
    np.testing.assert_array_equal(got, a[a > 0.5])
    np.testing.assert_array_equal(idx, np.flatnonzero(a > 0.5))
    m = a < 0
    np.testing.assert_array_equal(skss.compact(a, mask=m), a[m])
    ints = random_array(100, np.int16, 4)
    np.testing.assert_array_equal(skss.compact(ints, gt=2.0**40), ints[:0])
    np.testing.assert_array_equal(skss.compact(ints, lt=float("inf"), values=False, indices=True),
                                  np.arange(100))
