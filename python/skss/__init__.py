"""skss: summed-area tables, box filters, error-diffusion halftoning, the 0-1
knapsack and stream compaction on NumPy arrays, by the skss C library.

Every function takes an optional ``ctx`` (a :class:`Context`); without one it
uses the calling thread's default context (backend ``auto``: the GPU where the
library has kernels for the primitive, else all CPU cores). Algorithm and
kernel names are the command-line tool's (``skss sat --help``). Errors of the
library raise :class:`Error` subclasses carrying its one-line message; wrong
argument types, shapes or dtypes raise ``TypeError`` or ``ValueError`` naming
the argument. The GIL is released while the library works.
"""
from __future__ import annotations

import functools
import math
import operator
import threading

import numpy as np

from . import _skss
from ._skss import (  # noqa: F401  (re-exported)
    CallbackError,
    CudaError,
    Error,
    InternalError,
    InvalidArgumentError,
    NoDeviceError,
    OutOfMemoryError,
    OverflowError,
    UnsupportedError,
)

__all__ = [
    "Context", "default_context", "sat", "boxfilter", "halftone", "knapsack", "compact",
    "Error", "InvalidArgumentError", "UnsupportedError", "OutOfMemoryError", "NoDeviceError",
    "CudaError", "OverflowError", "CallbackError", "InternalError", "__version__",
]

__version__ = _skss.version()

# The library's enumerations, by the names the CLI uses.
_OP = {"sat": 0, "halftone": 1, "knapsack": 2, "compact": 3}
_DTYPES = {
    np.dtype(np.uint8): 1, np.dtype(np.int8): 2, np.dtype(np.uint16): 3, np.dtype(np.int16): 4,
    np.dtype(np.uint32): 5, np.dtype(np.int32): 6, np.dtype(np.uint64): 7, np.dtype(np.int64): 8,
    np.dtype(np.float32): 9, np.dtype(np.float64): 10,
}
# The SAT's type pairs, input -> its outputs (the first is the default).
_SAT_PAIRS = {
    np.dtype(np.uint8): (np.uint32, np.int32, np.float32, np.float64),
    np.dtype(np.int32): (np.int32,),
    np.dtype(np.uint32): (np.uint32,),
    np.dtype(np.float32): (np.float32, np.float64),
    np.dtype(np.float64): (np.float64,),
}
_KEEP = {"lt": 0, "le": 1, "gt": 2, "ge": 3, "eq": 4, "ne": 5, "range": 6, "nonzero": 7,
         "mask_bytes": 8, "mask_bits": 9}


class Context(_skss.Context):
    """A backend and its resources: ``Context(backend="auto", device=0, threads=0)``.

    ``backend`` is ``"auto"``, ``"cpu-ref"``, ``"cpu"`` or ``"cuda"``; ``threads``
    0 means all online CPUs. Use it as a context manager, or call
    :meth:`close`; a closed context raises ``InvalidArgumentError``.
    """

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "skss.Context(closed)"
        return f"skss.Context(backend={self.backend!r}, threads={self.threads})"


_local = threading.local()


def default_context() -> Context:
    """The calling thread's default context (backend ``auto``), made on first use."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None or ctx.closed:
        ctx = _local.ctx = Context()
    return ctx


def _ctx(ctx):
    if ctx is None:
        return default_context()
    if not isinstance(ctx, _skss.Context):
        raise TypeError(f"ctx must be a skss.Context, not {type(ctx).__name__}")
    return ctx


@functools.lru_cache(maxsize=None)
def _algorithm(op: str, name: str) -> int:
    if not isinstance(name, str):
        raise TypeError(f"algorithm must be a str, not {type(name).__name__}")
    alg = _skss.algorithm_from_name(_OP[op], name)
    if alg < 0:
        raise ValueError(f"algorithm: unknown {op} algorithm {name!r} (see `skss {op} --help`)")
    return alg


def _array(name: str, a, ndim=None, dtypes=None) -> np.ndarray:
    """`a` as a NumPy array whose rows are contiguous (copied once if not)."""
    if type(a) is not np.ndarray and (hasattr(a, "__cuda_array_interface__") or (
            hasattr(a, "__dlpack_device__") and a.__dlpack_device__()[0] not in (1, 3))):
        raise TypeError(f"{name}: GPU arrays are not supported yet by the skss package; "
                        "pass a NumPy array")
    arr = np.asarray(a)
    if ndim is not None and arr.ndim not in ((ndim,) if isinstance(ndim, int) else ndim):
        raise ValueError(f"{name} must have {ndim} dimensions, not {arr.ndim} (shape {arr.shape})")
    if dtypes is not None and arr.dtype not in dtypes:
        names = ", ".join(str(np.dtype(t)) for t in dtypes)
        raise TypeError(f"{name} has dtype {arr.dtype}; expected one of: {names}")
    if arr.ndim >= 1 and arr.size > 0 and (arr.strides[-1] != arr.itemsize or
                                           any(s < 0 for s in arr.strides) or
                                           any(s % arr.itemsize for s in arr.strides)):
        arr = np.ascontiguousarray(arr)
    if not arr.flags.aligned:  # e.g. a chunk unpickled from a network buffer
        arr = arr.copy()
    return arr


def _out(name: str, out, shape, dtype) -> np.ndarray:
    if out is None:
        return np.empty(shape, dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a NumPy array, not {type(out).__name__}")
    if out.shape != tuple(shape) or out.dtype != np.dtype(dtype):
        raise ValueError(f"{name} must have shape {tuple(shape)} and dtype {np.dtype(dtype)}, "
                         f"not {out.shape} and {out.dtype}")
    if not out.flags.writeable:
        raise ValueError(f"{name} is read-only")
    if out.ndim >= 1 and out.size > 0 and out.strides[-1] != out.itemsize:
        raise ValueError(f"{name} must have contiguous rows")
    return out


def sat(a, dtype=None, layout: str = "inclusive", squared: bool = False, algorithm: str = "auto",
        out=None, *, ctx: Context | None = None):
    """Summed-area table (2-D inclusive prefix sums) of a 2-D array.

    ``out[i, j] = a[:i+1, :j+1].sum()``; with ``layout="padded"`` the result
    has an extra zero first row and column (OpenCV's ``integral``). Input
    dtypes and their sums: uint8 -> uint32 (default; exact modulo 2^32),
    int32, float32 or float64; int32 -> int32; uint32 -> uint32; float32 ->
    float32 (default) or float64; float64 -> float64. Integer sums wrap
    modulo 2^32. With ``squared=True`` returns ``(sums, sums_of_squares)``.
    """
    arr = _array("a", a, 2, _SAT_PAIRS)
    outs = _SAT_PAIRS[arr.dtype]
    out_dtype = np.dtype(outs[0] if dtype is None else dtype)
    if out_dtype not in [np.dtype(t) for t in outs]:
        raise TypeError(f"dtype: the SAT of {arr.dtype} comes as one of "
                        f"{', '.join(str(np.dtype(t)) for t in outs)}, not {out_dtype}")
    if layout not in ("inclusive", "padded"):
        raise ValueError(f"layout must be 'inclusive' or 'padded', not {layout!r}")
    pad = layout == "padded"
    shape = (arr.shape[0] + pad, arr.shape[1] + pad)
    result = _out("out", out, shape, out_dtype)
    sq = np.empty(shape, out_dtype) if squared else None
    if arr.size == 0:
        result[...] = 0
        if sq is not None:
            sq[...] = 0
    else:
        _skss.sat(_ctx(ctx), arr, _DTYPES[arr.dtype], result, _DTYPES[out_dtype], sq, int(pad),
                  _algorithm("sat", algorithm))
    return (result, sq) if squared else result


def boxfilter(img, radius: int, border: str = "clip", *, ctx: Context | None = None):
    """Mean filter of radius ``radius`` (a (2r+1)^2 window) of a uint8 image.

    ``border="clip"`` averages over the part of the window inside the image;
    ``"zero"`` counts the outside as zeros. Means are rounded half up, exactly.
    """
    arr = _array("img", img, 2, (np.dtype(np.uint8),))
    r = operator.index(radius)
    if r < 0:
        raise ValueError(f"radius must be >= 0, not {r}")
    if border not in ("clip", "zero"):
        raise ValueError(f"border must be 'clip' or 'zero', not {border!r}")
    result = np.empty(arr.shape, np.uint8)
    if arr.size:
        _skss.boxfilter(_ctx(ctx), arr, result, r, 0 if border == "clip" else 1, 0)
    return result


def halftone(img, kernel: str = "fs", threshold: int = 128, bits: bool = False,
             algorithm: str = "auto", *, ctx: Context | None = None):
    """Error-diffusion halftone of a uint8 image (H x W) or batch (N x H x W).

    Returns 0/255 bytes of the same shape, or with ``bits=True`` 8 pixels a
    byte (first pixel in the most significant bit), shape (..., ceil(W/8)).
    ``kernel``: fs (Floyd-Steinberg, byte for byte Pillow's ``convert('1')``),
    jjn, stucki, burkes, sierra3, sierra2, sierra-lite, atkinson.
    """
    arr = _array("img", img, (2, 3), (np.dtype(np.uint8),))
    k = _skss.dither_kernel_from_name(kernel) if isinstance(kernel, str) else -1
    if k < 0:
        raise ValueError(f"kernel: unknown dither kernel {kernel!r}")
    t = operator.index(threshold)
    if not 0 <= t <= 255:
        raise ValueError(f"threshold must be in 0..255, not {t}")
    batch = arr if arr.ndim == 3 else arr[np.newaxis]
    n, h, w = batch.shape
    result = np.empty((n, h, (w + 7) // 8 if bits else w), np.uint8)
    if batch.size:
        _skss.halftone(_ctx(ctx), batch, result, k, t, bool(bits), _algorithm("halftone", algorithm))
    return result if arr.ndim == 3 else result[0]


def knapsack(weights, values, capacity: int, value_only: bool = False, *, by_capacity: bool = False,
             algorithm: str = "auto", max_bytes: int = 0, ctx: Context | None = None):
    """0-1 knapsack, exactly, by dynamic programming.

    ``weights`` and ``values`` are non-negative integers of length n (or K x n
    for a batch of K instances with the same capacity). Returns ``(value,
    taken)``: the optimum and a boolean mask of the chosen items (the same
    set on every backend), or the value alone with ``value_only=True``; for a
    batch, arrays of K. ``by_capacity=True`` appends the optimum for every
    capacity 0..C (an int64 array of C + 1, or K x (C + 1)).
    """
    w = _array("weights", np.asarray(weights).astype(np.int64, copy=False)
               if np.asarray(weights).dtype.kind in "iub" else weights, (1, 2), (np.dtype(np.int64),))
    v = _array("values", np.asarray(values).astype(np.int64, copy=False)
               if np.asarray(values).dtype.kind in "iub" else values, (1, 2), (np.dtype(np.int64),))
    if w.shape != v.shape:
        raise ValueError(f"weights and values must have the same shape, not {w.shape} and {v.shape}")
    c = operator.index(capacity)
    if c < 0:
        raise ValueError(f"capacity must be >= 0, not {c}")
    batch = w.ndim == 2
    w2 = np.ascontiguousarray(w if batch else w[np.newaxis])
    v2 = np.ascontiguousarray(v if batch else v[np.newaxis])
    k, n = w2.shape
    if batch and k == 0:
        raise ValueError("weights: a batch needs at least one instance")
    best = np.empty(k, np.int64)
    taken = None if value_only else np.empty((k, n), np.uint8)
    table = np.empty((k, c + 1), np.int64) if by_capacity else None
    _skss.knapsack(_ctx(ctx), w2, v2, c, _algorithm("knapsack", algorithm), operator.index(max_bytes),
                   best, taken, table)
    result = [best if batch else int(best[0])]
    if not value_only:
        mask = taken.astype(bool)
        result.append(mask if batch else mask[0])
    if by_capacity:
        result.append(table if batch else table[0])
    return result[0] if len(result) == 1 else tuple(result)


def _int_bounds(keep: str, x):
    """An integer array's comparison with a float scalar, as the integer one
    NumPy's exact comparison equals: (keep, scalar) or (None, all-or-nothing)."""
    f = float(x)
    if math.isnan(f):
        return None, keep == "ne"
    if math.isinf(f):
        big = f > 0
        return None, {"lt": big, "le": big, "gt": not big, "ge": not big, "eq": False, "ne": True}[keep]
    if f == math.floor(f):
        return keep, int(f)
    lo, hi = math.floor(f), math.ceil(f)
    return {"lt": ("le", lo), "le": ("le", lo), "gt": ("ge", hi), "ge": ("ge", hi),
            "eq": (None, False), "ne": (None, True)}[keep]


def compact(a, *, gt=None, ge=None, lt=None, le=None, eq=None, ne=None, range=None, mask=None,
            indices: bool = False, values: bool = True, algorithm: str = "auto",
            ctx: Context | None = None):
    """The elements of a 1-D array that satisfy one predicate, in order.

    Exactly one of ``gt=x``, ``ge=x``, ``lt=x``, ``le=x``, ``eq=x``, ``ne=x``,
    ``range=(lo, hi)`` (lo <= a < hi) or ``mask=m`` (a boolean array of the
    same length, or uint8 bytes); none keeps the nonzero elements. Scalars
    compare as NumPy 2 does (``a[a > x]``: integers exactly, float32 with the
    scalar rounded to float32; NaN only passes ``ne``). Returns the kept
    values, or ``(values, indices)`` with ``indices=True`` (int64), or the
    indices alone with ``values=False``.
    """
    arr = _array("a", a, 1, _DTYPES)
    given = {k: x for k, x in (("gt", gt), ("ge", ge), ("lt", lt), ("le", le), ("eq", eq),
                              ("ne", ne), ("range", range), ("mask", mask)) if x is not None}
    if len(given) > 1:
        raise ValueError(f"give one predicate, not {', '.join(given)}")
    if not values and not indices:
        raise ValueError("values=False needs indices=True: nothing would be returned")
    keep, x = next(iter(given.items())) if given else ("nonzero", 0)
    n = arr.shape[0]
    lo = hi = 0
    m = None
    integer = arr.dtype.kind in "iu"
    if keep == "mask":
        m = np.asarray(x)
        if m.shape != (n,):
            raise ValueError(f"mask must have shape ({n},), not {m.shape}")
        if m.dtype not in (np.dtype(bool), np.dtype(np.uint8)):
            raise TypeError(f"mask has dtype {m.dtype}; expected bool or uint8")
        m = np.ascontiguousarray(m).view(np.uint8)
        keep = "mask_bytes"
    elif keep == "range":
        lo, hi = x
        if integer:
            lo_f, hi_f = float(lo), float(hi)
            if math.isnan(lo_f) or math.isnan(hi_f):
                return _all_or_nothing(arr, False, values, indices)
            lo = math.ceil(lo_f) if not isinstance(lo, (int, np.integer)) else int(lo)
            hi = math.ceil(hi_f) if not isinstance(hi, (int, np.integer)) else int(hi)
    elif keep != "nonzero":
        lo = x
        if integer and not isinstance(x, (int, np.integer)):
            keep2, lo = _int_bounds(keep, x)
            if keep2 is None:
                return _all_or_nothing(arr, lo, values, indices)
            keep = keep2
        elif integer:
            lo = int(x)
    if integer:
        lo, hi, keep, decided = _clamp_int(arr.dtype, keep, lo, hi)
        if decided is not None:
            return _all_or_nothing(arr, decided, values, indices)
    out_v = np.empty(n, arr.dtype) if values else None
    out_i = np.empty(n, np.int64) if indices else None
    count = _skss.compact(_ctx(ctx), arr if n else None, n, _DTYPES[arr.dtype], _KEEP[keep], lo, hi,
                          m if n else None, out_v, out_i, _algorithm("compact", algorithm))
    if values and indices:
        return out_v[:count].copy(), out_i[:count].copy()
    return out_v[:count].copy() if values else out_i[:count].copy()


def _clamp_int(dtype, keep, lo, hi):
    """Integer scalars beyond int64/uint64 (the C field's range) decided here."""
    signed = dtype.kind == "i"
    fmin, fmax = (-(1 << 63), (1 << 63) - 1) if signed else (0, (1 << 64) - 1)
    if keep == "range":
        if hi <= lo or hi <= fmin or lo > fmax:
            return 0, 0, keep, False
        lo = max(lo, fmin)
        if hi > fmax:  # no element reaches hi: the range is lo <= a
            return lo, 0, "ge", None
        return lo, hi, keep, None
    if lo < fmin or lo > fmax:
        below = lo < fmin
        return 0, 0, keep, {"lt": not below, "le": not below, "gt": below, "ge": below,
                            "eq": False, "ne": True}.get(keep)
    return lo, hi, keep, None


def _all_or_nothing(arr, keep_all, values, indices):
    idx = np.arange(arr.shape[0], dtype=np.int64) if keep_all else np.empty(0, np.int64)
    vals = arr[idx].copy()
    if values and indices:
        return vals, idx
    return vals if values else idx
