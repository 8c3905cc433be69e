"""Peer test: skss_compact() keeps exactly what NumPy keeps.

For every dtype and predicate, values are `a[cond]` and indices
`np.nonzero(cond)[0]`, where cond is NumPy's own comparison of the array with
a Python scalar (`a < x`, `(x <= a) & (a < y)`, `a != 0`), a byte mask
(`mask != 0`) or a bit mask unpacked from `np.packbits(..., bitorder='little')`.
NumPy 2 compares with Python scalars as skss does: out-of-range integers
compare exactly, and a float32 array compares with float32(x) (the "weak
scalar" rule of NEP 50, which is skss's (float)a.f, so 0.1 matches
float32(0.1) and 1e300 is +inf). Values are compared byte for byte (NaN
payloads, -0.0), on CPU_REF and on CPU with every algorithm and 1-3 threads,
with and without the AVX-512 scatter.
"""
import ctypes
import warnings

import pytest

np = pytest.importorskip("numpy")

from skss_ctypes import LIB, Context  # noqa: E402

# enum values of skss.h
DTYPES = {"u8": 1, "i8": 2, "u16": 3, "i16": 4, "u32": 5, "i32": 6, "u64": 7, "i64": 8, "f32": 9, "f64": 10}
PREDICATES = ["lt", "le", "gt", "ge", "eq", "ne", "range", "nonzero", "mask-bytes", "mask-bits"]
ALGORITHMS = {"auto": 0, "loop": 1, "scan-cpu": 2}
CONFIGS = [("cpu-ref", 1, "auto"), ("cpu", 1, "loop"), ("cpu", 1, "scan-cpu"), ("cpu", 2, "scan-cpu"),
           ("cpu", 3, "auto")]
SIZES = [0, 1, 33, 1000, 100003]


class Scalar(ctypes.Union):
    """skss_scalar."""

    _fields_ = [("i", ctypes.c_int64), ("u", ctypes.c_uint64), ("f", ctypes.c_double)]


class CompactDesc(ctypes.Structure):
    """skss_compact_desc, field for field."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("n", ctypes.c_int64),
        ("dtype", ctypes.c_int),
        ("predicate", ctypes.c_int),
        ("a", Scalar),
        ("b", Scalar),
        ("mask", ctypes.c_void_p),
        ("algorithm", ctypes.c_int),
    ]


LIB.skss_compact.argtypes = [ctypes.c_void_p, ctypes.POINTER(CompactDesc), ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)]
LIB.skss_compact.restype = ctypes.c_int


def scalar(dtype, x):
    """x in the member of skss_scalar that skss reads for this dtype."""
    if dtype.kind == "f":
        return Scalar(f=float(x))
    if dtype.kind == "i":
        return Scalar(i=int(x))
    return Scalar(u=int(x))


def skss_compact(ctx, arr, predicate, algorithm, a=0, b=0, mask=None):
    n = arr.size
    values = np.zeros(n, dtype=arr.dtype)
    indices = np.zeros(n, dtype=np.int64)
    count = ctypes.c_int64(-1)
    desc = CompactDesc(ctypes.sizeof(CompactDesc), n, DTYPES[short_name(arr.dtype)], PREDICATES.index(predicate),
                       scalar(arr.dtype, a), scalar(arr.dtype, b), None if mask is None else mask.ctypes.data,
                       ALGORITHMS[algorithm])
    ctx.check(LIB.skss_compact(ctx.ptr, ctypes.byref(desc), arr.ctypes.data, values.ctypes.data,
                               indices.ctypes.data, ctypes.byref(count)))
    return values[:count.value], indices[:count.value]


def short_name(dtype):
    return {"u": "u", "i": "i", "f": "f"}[dtype.kind] + str(dtype.itemsize * 8)


def numpy_condition(arr, predicate, a, b, mask):
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore")  # float32(1e300) overflows to inf, as in skss
        return {
            "lt": lambda: arr < a,
            "le": lambda: arr <= a,
            "gt": lambda: arr > a,
            "ge": lambda: arr >= a,
            "eq": lambda: arr == a,
            "ne": lambda: arr != a,
            "range": lambda: (a <= arr) & (arr < b),
            "nonzero": lambda: arr != 0,
            "mask-bytes": lambda: mask != 0,
            "mask-bits": lambda: np.unpackbits(mask, count=arr.size, bitorder="little").astype(bool),
        }[predicate]()


def random_array(rng, dtype, n):
    """Random elements with the dtype's limits (and NaN, infinities, signed zeros) mixed in."""
    if dtype.kind == "f":
        arr = (rng.standard_normal(n) * 4).astype(dtype)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 0.1, np.finfo(dtype).max,
                            np.finfo(dtype).smallest_subnormal], dtype=dtype)
    else:
        info = np.iinfo(dtype)
        arr = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
        special = np.array([info.min, info.max, 0, 1, info.max // 2], dtype=dtype)
        arr[: n // 2] = (arr[: n // 2] % 16).astype(dtype)  # small values meet the small scalars
    pick = rng.integers(0, 4, size=n) == 0
    arr[pick] = rng.choice(special, size=int(pick.sum()))
    return arr


def scalar_pairs(dtype):
    """(a, b) pairs: small values, the limits, and values outside them."""
    if dtype.kind == "f":
        return [(0.0, 1.5), (-0.0, 0.1), (np.nan, 1.0), (-np.inf, np.inf), (1e300, -1e300), (3.0, -3.0)]
    info = np.iinfo(dtype)
    pairs = [(3, 9), (9, 3), (info.min, info.max), (info.max, info.min)]
    if dtype.kind == "i":
        pairs += [(-(2**63), 2**63 - 1), (2**63 - 1, -(2**63))]
    else:
        pairs += [(2**64 - 1, 0), (0, 2**64 - 1)]
    if dtype.itemsize < 8:  # just outside the type, still inside the scalar's int64 / uint64
        pairs += [(info.min - 1, info.max + 1)] if dtype.kind == "i" else [(info.max + 1, 1)]
    return pairs


@pytest.mark.parametrize("backend,threads,algorithm", CONFIGS)
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("avx512", ["avx512-if-present", "portable"])
def test_same_as_numpy(dtype_name, backend, threads, algorithm, avx512, monkeypatch):
    if avx512 == "portable":
        if algorithm == "loop" or backend == "cpu-ref":
            pytest.skip("only the scan-cpu scatter has an AVX-512 path")
        monkeypatch.setenv("SKSS_CPU_ISA", "scalar")  # read when the context is made
    dtype = np.dtype({"u": "uint", "i": "int", "f": "float"}[dtype_name[0]] + dtype_name[1:])
    rng = np.random.default_rng(20261121 + DTYPES[dtype_name])
    with Context(backend, threads=threads) as ctx:
        for n in SIZES:
            arr = random_array(rng, dtype, n)
            byte_mask = (rng.integers(0, 3, size=n) * rng.integers(1, 256, size=n)).astype(np.uint8)
            bit_mask = np.packbits(rng.integers(0, 2, size=n).astype(bool), bitorder="little")
            for predicate in PREDICATES:
                mask = {"mask-bytes": byte_mask, "mask-bits": bit_mask}.get(predicate)
                pairs = scalar_pairs(dtype) if predicate not in ("nonzero", "mask-bytes", "mask-bits") else [(0, 0)]
                for a, b in pairs:
                    cond = numpy_condition(arr, predicate, a, b, mask)
                    values, indices = skss_compact(ctx, arr, predicate, algorithm, a, b, mask)
                    what = f"{dtype_name} {predicate} a={a} b={b} n={n}"
                    np.testing.assert_array_equal(indices, np.nonzero(cond)[0], err_msg=what)
                    assert values.tobytes() == arr[cond].tobytes(), what


@pytest.mark.parametrize("backend,threads,algorithm", CONFIGS)
def test_float32_scalar_rounding(backend, threads, algorithm):
    """a < 0.1 on float32 means a < float32(0.1), as NumPy 2 compares."""
    arr = np.array([np.float32(0.1), np.nextafter(np.float32(0.1), np.float32(0)), 0.1000000001], dtype=np.float32)
    with Context(backend, threads=threads) as ctx:
        for predicate in ("lt", "le", "eq"):
            _, indices = skss_compact(ctx, arr, predicate, algorithm, 0.1)
            np.testing.assert_array_equal(indices, np.nonzero(numpy_condition(arr, predicate, 0.1, 0, None))[0])
