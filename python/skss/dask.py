"""skss over Dask arrays: the primitives on chunked arrays, on one machine or
a dask.distributed cluster, each chunk by the skss C library.

- :func:`halftone`: a stack of images (N x H x W), chunked along the image
  axis only (chunks are rechunked so that each holds whole images); every
  image is halftoned on its own, so the result equals skss.halftone's.
- :func:`sat`: an exact summed-area table of a 2-D array chunked both ways:
  each chunk's own SAT by skss, then the carries across chunk edges added,
  as the 2R1W algorithm does across blocks: block (i, j) gets the running
  sums of the last columns of the blocks to its left (per row), of the last
  rows of the blocks above (per column), and the corner sum of the blocks
  above and to the left. Integer sums wrap modulo 2^32 exactly as
  skss.sat's, so they are identical to it; float sums are added in another
  order and agree to rounding.
"""
from __future__ import annotations

import numpy as np

import skss

try:
    import dask.array as da
except ImportError as e:  # pragma: no cover - import guard
    raise ImportError("skss.dask needs dask: pip install 'dask[array,distributed]'") from e

__all__ = ["halftone", "sat"]


def _dask(name, a, ndim):
    if not isinstance(a, da.Array):
        raise TypeError(f"{name} must be a dask array, not {type(a).__name__}")
    if a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, not {a.ndim} (shape {a.shape})")
    return a


def halftone(stack, kernel: str = "fs", threshold: int = 128, bits: bool = False,
             algorithm: str = "auto"):
    """skss.halftone of every image of an N x H x W uint8 dask array.

    Returns a lazy N x H x W (or N x H x ceil(W/8) with ``bits=True``) uint8
    dask array chunked like the input along the image axis.
    """
    stack = _dask("stack", stack, 3)
    if stack.dtype != np.uint8:
        raise TypeError(f"stack has dtype {stack.dtype}; expected uint8")
    stack = stack.rechunk({1: -1, 2: -1})
    width = stack.shape[2]
    chunks = (stack.chunks[0], stack.chunks[1], ((width + 7) // 8,) if bits else stack.chunks[2])

    def block(images):
        return skss.halftone(images, kernel=kernel, threshold=threshold, bits=bits, algorithm=algorithm)

    return stack.map_blocks(block, dtype=np.uint8, chunks=chunks)


def _exclusive_cumsum(x, axis, dtype):
    """Running sums of the earlier blocks along `axis` (zero for the first),
    in `dtype` (integers wrap as the SAT's do)."""
    shape = list(x.shape)
    shape[axis] = 1
    chunks = list(x.chunks)
    chunks[axis] = (1,)
    zero = da.zeros(tuple(shape), dtype=dtype, chunks=tuple(chunks))
    if x.shape[axis] == 1:
        return zero
    head = da.cumsum(x[(slice(None),) * axis + (slice(None, -1),)], axis=axis, dtype=dtype)
    return da.concatenate([zero, head], axis=axis)


def sat(a, dtype=None, algorithm: str = "auto"):
    """Exact inclusive summed-area table of a 2-D dask array, chunked both ways.

    Same dtypes as skss.sat (default: uint8 -> uint32, float32 -> float32, ...);
    returns a lazy dask array with the input's chunks.
    """
    a = _dask("a", a, 2)
    probe = skss.sat(np.zeros((1, 1), a.dtype), dtype=dtype)  # checks the pair, gives the dtype
    out_dtype = probe.dtype
    local = a.map_blocks(lambda x: skss.sat(x, dtype=out_dtype, algorithm=algorithm), dtype=out_dtype)
    row_ends = np.cumsum(a.chunks[0]) - 1
    col_ends = np.cumsum(a.chunks[1]) - 1
    ones_r = (1,) * len(a.chunks[0])
    ones_c = (1,) * len(a.chunks[1])
    # each block's last column (H x blocks-across) and last row (blocks-down x W)
    last_cols = local[:, col_ends].rechunk((a.chunks[0], ones_c))
    last_rows = local[row_ends, :].rechunk((ones_r, a.chunks[1]))
    corners = local[row_ends][:, col_ends].rechunk((ones_r, ones_c))
    left = _exclusive_cumsum(last_cols, 1, out_dtype).rechunk((a.chunks[0], ones_c))
    above = _exclusive_cumsum(last_rows, 0, out_dtype).rechunk((ones_r, a.chunks[1]))
    corner = _exclusive_cumsum(_exclusive_cumsum(corners, 0, out_dtype), 1, out_dtype)
    corner = corner.rechunk((ones_r, ones_c))

    def combine(block, left_sums, above_sums, corner_sum):
        with np.errstate(over="ignore"):
            return block + left_sums + above_sums + corner_sum

    return da.map_blocks(combine, local, left, above, corner, dtype=out_dtype, chunks=a.chunks)
