"""skss: summed-area tables, box filters, error-diffusion halftoning, the 0-1
knapsack, stream compaction and pairwise sequence alignment (host strings)
on NumPy arrays and on GPU arrays (CuPy,
PyTorch, JAX), by the skss C library.

Every function takes an optional ``ctx`` (a :class:`Context`); without one it
uses the innermost ``with skss.Context(...)`` block of the thread, else the
thread's default context: for NumPy arrays backend ``auto`` (the GPU where
the library has kernels for the primitive, else all CPU cores), for GPU
arrays a ``cuda`` context on the array's device.

GPU arrays -- a ``torch.Tensor`` or ``cupy.ndarray`` on a CUDA device, or any
array with ``__dlpack__`` / ``__cuda_array_interface__`` there (JAX arrays
among them, taken through CuPy or PyTorch) -- are used in place, never copied
(except strided inputs whose rows the C API cannot address through a pitch,
copied once on the device). The work is queued on the library's current
stream (``torch.cuda.current_stream()``, ``cupy.cuda.get_current_stream()``)
and the results are arrays of the caller's library on the same device; calls
return without waiting for the GPU, except those that return Python ints
(compaction's count, one knapsack's value). JAX results are handed back after
the stream is synchronised.

Algorithm and kernel names are the command-line tool's (``skss sat --help``).
Errors of the library raise :class:`Error` subclasses carrying its one-line
message; wrong argument types, shapes, dtypes or devices raise ``TypeError``
or ``ValueError`` naming the argument. The GIL is released while the library
works.
"""
from __future__ import annotations

import functools
import math
import operator
import re
import typing

import numpy as np

from . import _arrays, _skss
from ._arrays import HOST as _HOST
from ._arrays import space as _space
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
    "Context", "default_context", "sat", "boxfilter", "halftone", "knapsack", "compact", "align", "Alignment",
    "Error", "InvalidArgumentError", "UnsupportedError", "OutOfMemoryError", "NoDeviceError",
    "CudaError", "OverflowError", "CallbackError", "InternalError", "__version__",
]

__version__ = _skss.version()

# The library's enumerations, by the names the CLI uses.
_OP = _arrays._OP
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

    ``backend`` is ``"auto"``, ``"cpu-ref"``, ``"cpu"`` or ``"cuda"``; ``device``
    the CUDA device ordinal; ``threads`` 0 means all online CPUs. As a context
    manager it is also the thread's *active* context: calls inside the
    ``with`` block that pass no ``ctx`` run on it, and it is closed at the
    end. Or pass it as ``ctx=`` and call :meth:`close`; a closed context
    raises ``InvalidArgumentError``. :meth:`synchronize` waits for the GPU
    work it queued (calls on GPU arrays return before the GPU is done).
    """

    def __enter__(self) -> "Context":
        _arrays.push_context(self)
        return self

    def __exit__(self, *exc) -> None:
        _arrays.pop_context(self)
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "skss.Context(closed)"
        if self.backend == "cuda":
            return f"skss.Context(backend='cuda', device={self.device}, threads={self.threads})"
        return f"skss.Context(backend={self.backend!r}, threads={self.threads})"


def default_context() -> Context:
    """The calling thread's default context for NumPy arrays (backend ``auto``),
    made on first use. GPU arrays run on the thread's ``cuda`` context for
    their device unless a context is given or active."""
    return _arrays.default_context()


_ctx = _arrays.ctx_or_default


@functools.lru_cache(maxsize=None)
def _algorithm(op: str, name: str) -> int:
    if not isinstance(name, str):
        raise TypeError(f"algorithm must be a str, not {type(name).__name__}")
    alg = _skss.algorithm_from_name(_OP[op], name)
    if alg < 0:
        raise ValueError(f"algorithm: unknown {op} algorithm {name!r} (see `skss {op} --help`)")
    return alg


def _on(sp, body, *args):
    """body(space, *args) on a GPU array's device, its result in the caller's types."""
    with sp.scope():
        return sp.finish(body(sp, *args))


def sat(a, dtype=None, layout: str = "inclusive", squared: bool = False, algorithm: str = "auto",
        out=None, *, ctx: Context | None = None):
    """Summed-area table (2-D inclusive prefix sums) of a 2-D array.

    ``out[i, j] = a[:i+1, :j+1].sum()``; with ``layout="padded"`` the result
    has an extra zero first row and column (OpenCV's ``integral``). Input
    dtypes and their sums: uint8 -> uint32 (default; exact modulo 2^32),
    int32, float32 or float64; int32 -> int32; uint32 -> uint32; float32 ->
    float32 (default) or float64; float64 -> float64. Integer sums wrap
    modulo 2^32. With ``squared=True`` returns ``(sums, sums_of_squares)``.

    ``a`` may be a NumPy array or a CUDA array (CuPy, PyTorch, JAX, anything
    with ``__dlpack__`` or ``__cuda_array_interface__``): a GPU array is read
    in place (rows with a pitch too) and the result is an array of the same
    library on the same device, computed on that library's current stream
    (the call returns without waiting for the GPU). ``out`` must then be one
    of that library's arrays on that device, of the result's shape and dtype.
    """
    sp = _space(a)
    if sp is _HOST:
        return _sat(sp, a, dtype, layout, squared, algorithm, out, ctx)
    return _on(sp, _sat, a, dtype, layout, squared, algorithm, out, ctx)


def _sat(sp, a, dtype, layout, squared, algorithm, out, ctx):
    arr = sp.array("a", a, 2, _SAT_PAIRS)
    in_dtype = sp.dtype(arr)
    outs = _SAT_PAIRS[in_dtype]
    out_dtype = np.dtype(outs[0]) if dtype is None else sp.np_dtype(dtype)
    if out_dtype not in [np.dtype(t) for t in outs]:
        raise TypeError(f"dtype: the SAT of {in_dtype} comes as one of "
                        f"{', '.join(str(np.dtype(t)) for t in outs)}, not {out_dtype}")
    if layout not in ("inclusive", "padded"):
        raise ValueError(f"layout must be 'inclusive' or 'padded', not {layout!r}")
    pad = layout == "padded"
    shape = (arr.shape[0] + pad, arr.shape[1] + pad)
    result = sp.out("out", out, shape, out_dtype)
    sq = sp.empty(shape, out_dtype) if squared else None
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        sp.zero(result)
        if sq is not None:
            sp.zero(sq)
    else:
        sp.run(ctx, "sat", _skss.sat, sp.raw(arr), _DTYPES[in_dtype], sp.raw(result), _DTYPES[out_dtype],
               None if sq is None else sp.raw(sq), int(pad), _algorithm("sat", algorithm))
    return (result, sq) if squared else result


def boxfilter(img, radius: int, border: str = "clip", *, out=None, ctx: Context | None = None):
    """Mean filter of radius ``radius`` (a (2r+1)^2 window) of a uint8 image.

    ``border="clip"`` averages over the part of the window inside the image;
    ``"zero"`` counts the outside as zeros. Means are rounded half up, exactly.
    A GPU image gives a GPU result of its library, as :func:`sat` does.
    """
    sp = _space(img)
    if sp is _HOST:
        return _boxfilter(sp, img, radius, border, out, ctx)
    return _on(sp, _boxfilter, img, radius, border, out, ctx)


def _boxfilter(sp, img, radius, border, out, ctx):
    arr = sp.array("img", img, 2, (np.dtype(np.uint8),))
    r = operator.index(radius)
    if r < 0:
        raise ValueError(f"radius must be >= 0, not {r}")
    if border not in ("clip", "zero"):
        raise ValueError(f"border must be 'clip' or 'zero', not {border!r}")
    result = sp.out("out", out, tuple(arr.shape), np.uint8)
    if arr.shape[0] and arr.shape[1]:
        sp.run(ctx, "sat", _skss.boxfilter, sp.raw(arr), sp.raw(result), r, 0 if border == "clip" else 1, 0)
    return result


def halftone(img, kernel: str = "fs", threshold: int = 128, bits: bool = False,
             algorithm: str = "auto", *, out=None, ctx: Context | None = None):
    """Error-diffusion halftone of a uint8 image (H x W) or batch (N x H x W).

    Returns 0/255 bytes of the same shape, or with ``bits=True`` 8 pixels a
    byte (first pixel in the most significant bit), shape (..., ceil(W/8)).
    ``kernel``: fs (Floyd-Steinberg, byte for byte Pillow's ``convert('1')``),
    jjn, stucki, burkes, sierra3, sierra2, sierra-lite, atkinson. A GPU image
    gives a GPU result of its library, as :func:`sat` does.
    """
    sp = _space(img)
    if sp is _HOST:
        return _halftone(sp, img, kernel, threshold, bits, algorithm, out, ctx)
    return _on(sp, _halftone, img, kernel, threshold, bits, algorithm, out, ctx)


def _halftone(sp, img, kernel, threshold, bits, algorithm, out, ctx):
    arr = sp.array("img", img, (2, 3), (np.dtype(np.uint8),))
    k = _skss.dither_kernel_from_name(kernel) if isinstance(kernel, str) else -1
    if k < 0:
        raise ValueError(f"kernel: unknown dither kernel {kernel!r}")
    t = operator.index(threshold)
    if not 0 <= t <= 255:
        raise ValueError(f"threshold must be in 0..255, not {t}")
    shape = tuple(arr.shape[:-1]) + ((arr.shape[-1] + 7) // 8 if bits else arr.shape[-1],)
    result = sp.out("out", out, shape, np.uint8)
    if arr.shape[-1] and arr.shape[-2] and arr.shape[0]:
        batch = arr if arr.ndim == 3 else arr[None]
        batch_out = result if arr.ndim == 3 else result[None]
        sp.run(ctx, "halftone", _skss.halftone, sp.raw(batch), sp.raw(batch_out), k, t, bool(bits),
               _algorithm("halftone", algorithm))
    return result


def _items(sp, name, x):
    """Knapsack weights or values as int64 (integers converted once)."""
    x = sp.adopt(name, x)
    dt = sp.dtype(x)
    if dt is not None and dt.kind in "iub" and dt != np.int64:
        x = sp.astype(x, np.int64)
    return sp.array(name, x, (1, 2), (np.dtype(np.int64),))


def knapsack(weights, values, capacity: int, value_only: bool = False, *, by_capacity: bool = False,
             algorithm: str = "auto", max_bytes: int = 0, ctx: Context | None = None):
    """0-1 knapsack, exactly: by dynamic programming, or one optimum by core.

    ``weights`` and ``values`` are non-negative integers of length n (or K x n
    for a batch of K instances with the same capacity). Returns ``(value,
    taken)``: the optimum and a boolean mask of the chosen items, or the
    value alone with ``value_only=True``; for a batch, arrays of K. The DP
    algorithms choose the same set on every backend; ``"auto"`` on the CPU
    backend runs ``"core"`` (a search around the break item) for one instance
    and for batches of at least 64 items and capacity 4096, whose set is an
    optimal one of its own choosing. ``by_capacity=True`` appends the optimum for every
    capacity 0..C (an int64 array of C + 1, or K x (C + 1)). With GPU arrays
    the masks and tables are arrays of their library on their device; the
    value of one instance is a Python int (the call waits for it).
    """
    sp = _space(weights)
    if sp is _HOST:
        sp = _space(values)
    if sp is _HOST:
        return _knapsack(sp, weights, values, capacity, value_only, by_capacity, algorithm, max_bytes, ctx)
    return _on(sp, _knapsack, weights, values, capacity, value_only, by_capacity, algorithm, max_bytes, ctx)


def _knapsack(sp, weights, values, capacity, value_only, by_capacity, algorithm, max_bytes, ctx):
    w = _items(sp, "weights", weights)
    v = _items(sp, "values", values)
    if tuple(w.shape) != tuple(v.shape):
        raise ValueError(f"weights and values must have the same shape, not {tuple(w.shape)} and "
                         f"{tuple(v.shape)}")
    c = operator.index(capacity)
    if c < 0:
        raise ValueError(f"capacity must be >= 0, not {c}")
    batch = w.ndim == 2
    w2 = sp.contiguous(w if batch else w[None])
    v2 = sp.contiguous(v if batch else v[None])
    k, n = w2.shape
    if batch and k == 0:
        raise ValueError("weights: a batch needs at least one instance")
    best = sp.empty((k,), np.int64) if batch else np.empty(1, np.int64)
    taken = None if value_only else sp.empty((k, n), np.uint8)
    table = sp.empty((k, c + 1), np.int64) if by_capacity else None
    sp.run(ctx, "knapsack", _skss.knapsack, sp.raw(w2), sp.raw(v2), c,
           _algorithm("knapsack", algorithm), operator.index(max_bytes), sp.raw(best),
           None if taken is None else sp.raw(taken), None if table is None else sp.raw(table))
    result = [best if batch else int(best[0])]
    if not value_only:
        mask = sp.view(taken, np.bool_)
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


class Alignment(typing.NamedTuple):
    """The result of :func:`align`: the score, the aligned ranges
    ``a[a_begin:a_end]`` and ``b[b_begin:b_end]`` and the alignment as one op
    a column (``ops``: ``=`` match, ``X`` mismatch, ``I`` a letter of a against
    a gap, ``D`` a letter of b against a gap) and as a CIGAR string."""
    score: int
    a_begin: int
    a_end: int
    b_begin: int
    b_end: int
    ops: str
    cigar: str


_ALIGN_MODES = {"global": 0, "local": 1, "semi-global": 2}
_ALIGN_OUTPUTS = {"score": 0, "ends": 1, "alignment": 2}


def _cigar(ops: str) -> str:
    return "".join(f"{len(run)}{run[0]}" for run in re.findall(r"(=+|X+|I+|D+)", ops))


def align(a, b, mode: str = "global", *, match: int = 2, mismatch: int = -3, matrix=None, alphabet=None,
          gap_open: int = 5, gap_extend: int = 2, output: str = "alignment", algorithm: str = "auto",
          ctx: Context | None = None) -> Alignment:
    """Pairwise alignment with affine gaps (Gotoh), in O(len(a) + len(b)) memory.

    ``a`` and ``b`` are ``str`` or ``bytes`` of letters. ``mode`` is
    ``"global"`` (end to end), ``"local"`` (Smith-Waterman) or
    ``"semi-global"`` (free end gaps in both sequences, parasail's ``sg``).
    Letters score ``match`` when equal and ``mismatch`` (a score: negative)
    when not, letters A-Z in either case; or ``matrix="blosum62"``; or a k x k
    integer ``matrix`` over the k letters of ``alphabet``. A gap of L letters
    costs ``gap_open + (L - 1) * gap_extend`` (parasail's convention; both
    penalties >= 0 and gap_extend <= gap_open). ``output="score"`` computes
    only the score and the end (begins are -1, except for global), ``"ends"``
    the begins too, ``"alignment"`` (default) also ``ops`` and ``cigar``.
    Every backend returns the same score, begin and end; the ops are one
    optimal alignment. Runs on the CPU (host memory).
    """
    a_bytes = a.encode("ascii") if isinstance(a, str) else bytes(a)
    b_bytes = b.encode("ascii") if isinstance(b, str) else bytes(b)
    if mode not in _ALIGN_MODES:
        raise ValueError(f"mode must be one of {sorted(_ALIGN_MODES)}, not {mode!r}")
    if output not in _ALIGN_OUTPUTS:
        raise ValueError(f"output must be one of {sorted(_ALIGN_OUTPUTS)}, not {output!r}")
    scoring, table, letters = 0, None, None
    if isinstance(matrix, str):
        if matrix.lower() != "blosum62":
            raise ValueError(f"matrix: unknown matrix {matrix!r} (blosum62, or a k x k array)")
        scoring = 1
    elif matrix is not None:
        if alphabet is None:
            raise ValueError("a matrix array needs its alphabet")
        table = np.ascontiguousarray(matrix, dtype=np.int32)
        if table.ndim != 2 or table.shape != (len(alphabet), len(alphabet)):
            raise ValueError(f"matrix must be {len(alphabet)} x {len(alphabet)} for alphabet {alphabet!r}")
        scoring, letters = 2, str(alphabet)
    c = _ctx(ctx)
    score, a0, a1, b0, b1, ops = _skss.align(
        c, a_bytes, b_bytes, _ALIGN_MODES[mode], _ALIGN_OUTPUTS[output], _algorithm("align", algorithm), scoring,
        operator.index(match), operator.index(mismatch), letters, table, operator.index(gap_open),
        operator.index(gap_extend))
    text = ops.decode("ascii")
    return Alignment(score, a0, a1, b0, b1, text, _cigar(text))


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
    indices alone with ``values=False``. For a GPU array (and mask) the
    results are views of the first ``count`` elements of arrays of its
    library on its device (the call waits for the count).
    """
    sp = _space(a)
    given = {k: x for k, x in (("gt", gt), ("ge", ge), ("lt", lt), ("le", le), ("eq", eq),
                              ("ne", ne), ("range", range), ("mask", mask)) if x is not None}
    if sp is _HOST:
        return _compact(sp, a, given, indices, values, algorithm, ctx)
    return _on(sp, _compact, a, given, indices, values, algorithm, ctx)


def _compact(sp, a, given, indices, values, algorithm, ctx):
    arr = sp.array("a", a, 1, _DTYPES)
    dtype = sp.dtype(arr)
    if len(given) > 1:
        raise ValueError(f"give one predicate, not {', '.join(given)}")
    if not values and not indices:
        raise ValueError("values=False needs indices=True: nothing would be returned")
    keep, x = next(iter(given.items())) if given else ("nonzero", 0)
    n = arr.shape[0]
    lo = hi = 0
    m = None
    integer = dtype.kind in "iu"
    if keep == "mask":
        m = sp.adopt("mask", x)
        if tuple(m.shape) != (n,):
            raise ValueError(f"mask must have shape ({n},), not {tuple(m.shape)}")
        if sp.dtype(m) not in (np.dtype(bool), np.dtype(np.uint8)):
            raise TypeError(f"mask has dtype {sp.dtype(m) or m.dtype}; expected bool or uint8")
        m = sp.view(sp.contiguous(m), np.uint8)
        keep = "mask_bytes"
    elif keep == "range":
        lo, hi = x
        if integer:
            lo_f, hi_f = float(lo), float(hi)
            if math.isnan(lo_f) or math.isnan(hi_f):
                return _all_or_nothing(sp, arr, False, values, indices)
            lo = math.ceil(lo_f) if not isinstance(lo, (int, np.integer)) else int(lo)
            hi = math.ceil(hi_f) if not isinstance(hi, (int, np.integer)) else int(hi)
    elif keep != "nonzero":
        lo = x
        if integer and not isinstance(x, (int, np.integer)):
            keep2, lo = _int_bounds(keep, x)
            if keep2 is None:
                return _all_or_nothing(sp, arr, lo, values, indices)
            keep = keep2
        elif integer:
            lo = int(x)
    if integer:
        lo, hi, keep, decided = _clamp_int(dtype, keep, lo, hi)
        if decided is not None:
            return _all_or_nothing(sp, arr, decided, values, indices)
    out_v = sp.empty((n,), dtype) if values else None
    out_i = sp.empty((n,), np.int64) if indices else None
    count = sp.run(ctx, "compact", _skss.compact, sp.raw(arr) if n else None, n, _DTYPES[dtype], _KEEP[keep],
                   lo, hi, sp.raw(m) if n and m is not None else None,
                   None if out_v is None else sp.raw(out_v), None if out_i is None else sp.raw(out_i),
                   _algorithm("compact", algorithm))
    if values and indices:
        return sp.trim(out_v, count), sp.trim(out_i, count)
    return sp.trim(out_v, count) if values else sp.trim(out_i, count)


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


def _all_or_nothing(sp, arr, keep_all, values, indices):
    idx = sp.arange(arr.shape[0]) if keep_all else sp.empty((0,), np.int64)
    vals = arr[idx]  # a copy, as the library's results are
    if values and indices:
        return vals, idx
    return vals if values else idx
