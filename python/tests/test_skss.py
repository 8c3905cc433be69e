"""Tests of the skss Python package against NumPy, OpenCV, Pillow and
OR-Tools (each where installed), on every CPU backend, on random inputs of
awkward sizes, with the errors a caller can make."""
import threading

import numpy as np
import pytest

import skss

BACKENDS = ["cpu-ref", "cpu"]
SHAPES = [(1, 1), (1, 37), (37, 1), (31, 33), (97, 61)]


@pytest.fixture(params=BACKENDS)
def ctx(request):
    with skss.Context(request.param, threads=3 if request.param == "cpu" else 0) as c:
        yield c


def rng(seed=0):
    return np.random.default_rng(20261127 + seed)


# ---- SAT ------------------------------------------------------------------

PAIRS = [(np.uint8, np.uint32), (np.uint8, np.int32), (np.uint8, np.float32), (np.uint8, np.float64),
         (np.int32, np.int32), (np.uint32, np.uint32), (np.float32, np.float32),
         (np.float32, np.float64), (np.float64, np.float64)]


def random_array(shape, dtype, seed=0):
    r = rng(seed)
    if np.dtype(dtype).kind == "f":
        return r.uniform(-4, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    return r.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def reference_sat(a, out_dtype):
    out_dtype = np.dtype(out_dtype)
    if out_dtype.kind == "f":
        return a.astype(np.float64).cumsum(0).cumsum(1)
    wide = a.astype(np.int64).cumsum(0).cumsum(1)  # then modulo 2^32, as the library wraps
    return (wide & 0xFFFFFFFF).astype(np.uint32).view(out_dtype) if out_dtype.itemsize == 4 else wide


@pytest.mark.parametrize("in_dtype,out_dtype", PAIRS)
@pytest.mark.parametrize("shape", SHAPES)
def test_sat_every_pair(ctx, in_dtype, out_dtype, shape):
    a = random_array(shape, in_dtype)
    got = skss.sat(a, dtype=out_dtype, ctx=ctx)
    assert got.dtype == np.dtype(out_dtype) and got.shape == shape
    want = reference_sat(a, out_dtype)
    if np.dtype(out_dtype).kind == "f":
        tol = 1e-4 if np.dtype(out_dtype) == np.float32 else 1e-9
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * a.size * 4)
    else:
        np.testing.assert_array_equal(got, want)


def test_sat_padded_squared_strided_and_out(ctx):
    base = random_array((64, 90), np.uint8, 1)
    a = base[3::2, 5::3]  # strided rows and columns: copied once
    sums, squares = skss.sat(a, dtype=np.float64, layout="padded", squared=True, ctx=ctx)
    assert sums.shape == (a.shape[0] + 1, a.shape[1] + 1)
    assert (sums[0] == 0).all() and (sums[:, 0] == 0).all()
    np.testing.assert_array_equal(sums[1:, 1:], a.astype(np.float64).cumsum(0).cumsum(1))
    np.testing.assert_array_equal(squares[1:, 1:], (a.astype(np.float64) ** 2).cumsum(0).cumsum(1))
    rows = base[7:40]  # row-strided, contiguous rows: used in place
    out = np.full((rows.shape[0], rows.shape[1]), 7, np.uint32)
    assert skss.sat(rows, out=out, ctx=ctx) is out
    np.testing.assert_array_equal(out, reference_sat(rows, np.uint32))


def test_read_only_inputs():
    a = random_array((20, 30), np.uint8, 11)
    a.setflags(write=False)
    np.testing.assert_array_equal(skss.sat(a), reference_sat(a, np.uint32))
    assert skss.halftone(a).shape == a.shape and skss.boxfilter(a, 1).shape == a.shape
    x = a.ravel()
    np.testing.assert_array_equal(skss.compact(x, gt=100), x[x > 100])
    w = np.array([1, 2, 3])
    w.setflags(write=False)
    assert skss.knapsack(w, w, 4, value_only=True) == 4


def test_misaligned_input_is_copied():
    raw = np.zeros(4 * 30 + 1, np.uint8)
    a = np.frombuffer(raw.data, dtype=np.uint32, count=30, offset=1).reshape(5, 6)
    assert not a.flags.aligned
    np.testing.assert_array_equal(skss.sat(a), reference_sat(a, np.uint32))


def test_sat_matches_opencv_integral():
    cv2 = pytest.importorskip("cv2")
    a = random_array((123, 77), np.uint8, 2)
    np.testing.assert_array_equal(skss.sat(a, dtype=np.int32, layout="padded"), cv2.integral(a))


def test_sat_empty_and_errors():
    assert skss.sat(np.zeros((0, 4), np.uint8)).shape == (0, 4)
    assert (skss.sat(np.zeros((0, 4), np.uint8), layout="padded") == 0).all()
    with pytest.raises(ValueError, match="dimensions"):
        skss.sat(np.zeros(5, np.uint8))
    with pytest.raises(TypeError, match="dtype"):
        skss.sat(np.zeros((2, 2), np.int16))
    with pytest.raises(TypeError, match="dtype"):
        skss.sat(np.zeros((2, 2), np.float64), dtype=np.float32)
    with pytest.raises(ValueError, match="layout"):
        skss.sat(np.zeros((2, 2), np.uint8), layout="exclusive")
    with pytest.raises(ValueError, match="algorithm"):
        skss.sat(np.zeros((2, 2), np.uint8), algorithm="nope")
    with pytest.raises(ValueError, match="shape"):
        skss.sat(np.zeros((2, 2), np.uint8), out=np.zeros((3, 3), np.uint32))
    with pytest.raises(skss.UnsupportedError, match="cuda"):
        skss.sat(np.zeros((2, 2), np.uint8), algorithm="onepass", ctx=skss.Context("cpu"))


# ---- box filter -------------------------------------------------------------

def reference_box(a, r, border):
    h, w = a.shape
    p = np.pad(a.astype(np.int64), r)
    ones = np.pad(np.ones_like(a, dtype=np.int64), r)
    s = np.zeros((h, w), np.int64)
    cnt = np.zeros((h, w), np.int64)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            s += p[dy:dy + h, dx:dx + w]
            cnt += ones[dy:dy + h, dx:dx + w]
    if border == "zero":
        cnt[:] = (2 * r + 1) ** 2
    return ((2 * s + cnt) // (2 * cnt)).astype(np.uint8)  # rounded half up


@pytest.mark.parametrize("border", ["clip", "zero"])
@pytest.mark.parametrize("r", [0, 1, 3])
@pytest.mark.parametrize("shape", [(1, 1), (31, 33), (17, 5)])
def test_boxfilter(ctx, border, r, shape):
    a = random_array(shape, np.uint8, 3)
    np.testing.assert_array_equal(skss.boxfilter(a, r, border, ctx=ctx), reference_box(a, r, border))


def test_boxfilter_errors():
    with pytest.raises(ValueError, match="radius"):
        skss.boxfilter(np.zeros((3, 3), np.uint8), -1)
    with pytest.raises(ValueError, match="border"):
        skss.boxfilter(np.zeros((3, 3), np.uint8), 1, "wrap")
    with pytest.raises(TypeError, match="img"):
        skss.boxfilter(np.zeros((3, 3), np.float32), 1)


# ---- halftoning --------------------------------------------------------------

def test_halftone_matches_pillow(ctx):
    Image = pytest.importorskip("PIL.Image")
    for shape in [(1, 1), (31, 33), (64, 97)]:
        a = random_array(shape, np.uint8, 4)
        want = np.asarray(Image.fromarray(a).convert("1")).astype(np.uint8) * 255
        np.testing.assert_array_equal(skss.halftone(a, ctx=ctx), want)


@pytest.mark.parametrize("kernel", ["fs", "jjn", "stucki", "burkes", "sierra3", "sierra2",
                                    "sierra-lite", "atkinson"])
def test_halftone_kernels_batches_and_bits(kernel):
    imgs = random_array((3, 29, 45), np.uint8, 5)
    with skss.Context("cpu-ref") as ref:
        one = [skss.halftone(im, kernel=kernel, threshold=100, ctx=ref) for im in imgs]
    batch = skss.halftone(imgs, kernel=kernel, threshold=100)
    np.testing.assert_array_equal(batch, np.stack(one))
    bits = skss.halftone(imgs, kernel=kernel, threshold=100, bits=True)
    np.testing.assert_array_equal(bits, np.packbits(batch == 255, axis=-1))


def test_halftone_errors():
    with pytest.raises(ValueError, match="kernel"):
        skss.halftone(np.zeros((2, 2), np.uint8), kernel="nope")
    with pytest.raises(ValueError, match="threshold"):
        skss.halftone(np.zeros((2, 2), np.uint8), threshold=256)
    with pytest.raises(ValueError, match="dimensions"):
        skss.halftone(np.zeros((2, 2, 2, 2), np.uint8))


# ---- knapsack ----------------------------------------------------------------

def brute_table(w, v, capacity):
    best = np.zeros(capacity + 1, np.int64)
    for wj, vj in zip(w, v):
        if wj <= capacity:
            cand = np.concatenate([best[:wj], best[:capacity + 1 - wj] + vj]) if wj > 0 else best + vj
            best = np.maximum(best, cand)
    return best


@pytest.mark.parametrize("n,capacity", [(0, 5), (1, 0), (1, 7), (31, 33), (33, 100), (60, 257)])
def test_knapsack_against_brute_force(ctx, n, capacity):
    r = rng(n + capacity)
    w = r.integers(0, 40, n)
    v = r.integers(0, 50, n)
    value, taken = skss.knapsack(w, v, capacity, ctx=ctx)
    table = brute_table(w, v, capacity)
    assert value == table[capacity]
    assert taken.dtype == bool and taken.shape == (n,)
    assert w[taken].sum() <= capacity and v[taken].sum() == value
    v2, t2, by_c = skss.knapsack(w, v, capacity, by_capacity=True, ctx=ctx)
    np.testing.assert_array_equal(by_c, table)
    assert v2 == value and (t2 == taken).all()
    assert skss.knapsack(w, v, capacity, value_only=True, ctx=ctx) == value


def test_knapsack_batch_and_ortools():
    r = rng(9)
    w = r.integers(1, 60, (5, 40))
    v = r.integers(1, 90, (5, 40))
    values, taken = skss.knapsack(w, v, 300)
    for k in range(5):
        one_value, one_taken = skss.knapsack(w[k], v[k], 300)
        assert values[k] == one_value and (taken[k] == one_taken).all()
    pywrapknapsack = pytest.importorskip("ortools.algorithms.python.knapsack_solver")
    solver = pywrapknapsack.KnapsackSolver(
        pywrapknapsack.SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, "test")
    for k in range(5):
        solver.init(v[k].tolist(), [w[k].tolist()], [300])
        assert solver.solve() == values[k]


def test_knapsack_errors():
    with pytest.raises(skss.InvalidArgumentError, match="weight -1"):
        skss.knapsack([-1, 2], [1, 2], 3)
    with pytest.raises(skss.OverflowError, match="overflow"):
        skss.knapsack([1, 1], [2**62, 2**62], 3)
    with pytest.raises(skss.OutOfMemoryError, match="max_bytes"):
        skss.knapsack(np.ones(1000, np.int64), np.ones(1000, np.int64), 10**6, max_bytes=1000)
    with pytest.raises(ValueError, match="same shape"):
        skss.knapsack([1, 2], [1], 3)
    with pytest.raises(ValueError, match="capacity"):
        skss.knapsack([1], [1], -1)
    with pytest.raises(TypeError):
        skss.knapsack([1.5], [1], 3)


# ---- compaction ---------------------------------------------------------------

DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
          np.float32, np.float64]


def compact_input(dtype, n, seed):
    a = random_array(n, dtype, seed)
    if np.dtype(dtype).kind == "f" and n > 4:
        a[::5] = np.nan
        a[1::7] = -0.0
    elif n > 2:
        a[::3] = a[0]
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 31, 33, 257, 100003])
def test_compact_like_numpy(ctx, dtype, n):
    a = compact_input(dtype, n, n)
    x = a[0].item() if n else 1
    cases = {"gt": a > x, "ge": a >= x, "lt": a < x, "le": a <= x, "eq": a == x, "ne": a != x}
    for keep, sel in cases.items():
        np.testing.assert_array_equal(skss.compact(a, **{keep: x}, ctx=ctx), a[sel])
    got, idx = skss.compact(a, indices=True, ctx=ctx)
    np.testing.assert_array_equal(got, a[a != 0])
    np.testing.assert_array_equal(idx, np.flatnonzero(a != 0))
    m = rng(n).integers(0, 2, n).astype(bool)
    np.testing.assert_array_equal(skss.compact(a, mask=m, ctx=ctx), a[m])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32, np.uint64, np.int64])
def test_compact_integer_scalars_as_numpy_2(dtype):
    a = random_array(1000, dtype, 7)
    info = np.iinfo(dtype)
    for x in [0.5, -0.5, 2.5, float("inf"), float("-inf"), float("nan"), info.max + 1, info.min - 1,
              2**70, -(2**70)]:
        for keep, op in [("gt", np.greater), ("ge", np.greater_equal), ("lt", np.less),
                         ("le", np.less_equal), ("eq", np.equal), ("ne", np.not_equal)]:
            with np.errstate(invalid="ignore"):
                want = a[op(a.astype(object), x).astype(bool)] if abs(float(x)) > 2**60 else a[op(a, x)]
            np.testing.assert_array_equal(skss.compact(a, **{keep: x}), want, err_msg=f"{keep} {x!r}")
    lo, hi = 2.5, info.max + 10
    np.testing.assert_array_equal(skss.compact(a, range=(lo, hi)), a[(a >= lo)])


def test_compact_float32_rounds_the_scalar_like_numpy():
    a = np.array([0.1, 0.1000001, 0.09999999, np.nan], np.float32)
    np.testing.assert_array_equal(skss.compact(a, gt=0.1), a[a > 0.1])
    np.testing.assert_array_equal(skss.compact(a, eq=0.1), a[a == 0.1])
    np.testing.assert_array_equal(skss.compact(a, range=(0.1, 1.0)), a[(a >= 0.1) & (a < 1.0)])


def test_compact_errors():
    a = np.arange(5, dtype=np.float32)
    with pytest.raises(ValueError, match="one predicate"):
        skss.compact(a, gt=1, lt=3)
    with pytest.raises(ValueError, match="mask"):
        skss.compact(a, mask=np.ones(4, bool))
    with pytest.raises(ValueError, match="dimensions"):
        skss.compact(np.zeros((2, 2), np.float32), gt=0)
    with pytest.raises(ValueError, match="indices"):
        skss.compact(a, gt=1, values=False)
    with pytest.raises(TypeError, match="a has dtype"):
        skss.compact(np.zeros(3, np.complex64), gt=0)


# ---- contexts ----------------------------------------------------------------

def test_contexts():
    with skss.Context("cpu", threads=2) as c:
        assert c.backend == "cpu" and c.threads == 2
        assert "cpu" in repr(c)
    assert c.closed and "closed" in repr(c)
    with pytest.raises(skss.InvalidArgumentError, match="closed"):
        skss.sat(np.zeros((2, 2), np.uint8), ctx=c)
    with pytest.raises(skss.InvalidArgumentError, match="backend"):
        skss.Context("tpu")
    with pytest.raises(TypeError, match="ctx"):
        skss.sat(np.zeros((2, 2), np.uint8), ctx="cpu")
    assert issubclass(skss.OutOfMemoryError, MemoryError)
    assert issubclass(skss.InvalidArgumentError, (skss.Error, ValueError))


def test_default_context_per_thread_and_gil_released():
    seen, results = [], []
    a = random_array((512, 512), np.uint8, 8)
    want = reference_sat(a, np.uint32)

    def work():
        seen.append(skss.default_context())  # kept alive: ids of freed ones can recur
        results.append(np.array_equal(skss.sat(a), want))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results) and len({id(c) for c in seen}) == 4
    assert skss.default_context() is skss.default_context()
