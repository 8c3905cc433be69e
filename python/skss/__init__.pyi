# Type stubs of the skss package (python/skss/__init__.py documents each function).
# Every function takes NumPy array-likes (results: NumPy arrays) or a GPU array
# of one library -- torch.Tensor, cupy.ndarray, jax.Array, or another array with
# __dlpack__ / __cuda_array_interface__ -- whose type its array results keep.
import builtins
from typing import Any, Literal, NamedTuple, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

__version__: str

class _GpuArray(Protocol):
    @property
    def shape(self) -> Any: ...

_G = TypeVar("_G", bound=_GpuArray)

class Error(Exception): ...
class InvalidArgumentError(Error, ValueError): ...
class UnsupportedError(Error, NotImplementedError): ...
class OutOfMemoryError(Error, MemoryError): ...
class NoDeviceError(Error, RuntimeError): ...
class CudaError(Error, RuntimeError): ...
class OverflowError(Error, builtins.OverflowError): ...
class CallbackError(Error, RuntimeError): ...
class InternalError(Error, RuntimeError): ...

class Context:
    def __init__(self, backend: str = "auto", device: int = 0, threads: int = 0) -> None: ...
    def __enter__(self) -> Context: ...
    def __exit__(self, *exc: object) -> None: ...
    def close(self) -> None: ...
    def synchronize(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def backend(self) -> str: ...
    @property
    def device(self) -> int: ...
    @property
    def threads(self) -> int: ...

def default_context() -> Context: ...

@overload
def sat(a: np.ndarray | npt.ArrayLike, dtype: npt.DTypeLike | None = None,
        layout: Literal["inclusive", "padded"] = "inclusive", squared: Literal[False] = False,
        algorithm: str = "auto", out: np.ndarray | None = None, *,
        ctx: Context | None = None) -> np.ndarray: ...
@overload
def sat(a: np.ndarray | npt.ArrayLike, dtype: npt.DTypeLike | None = None,
        layout: Literal["inclusive", "padded"] = "inclusive", *, squared: Literal[True],
        algorithm: str = "auto", out: np.ndarray | None = None,
        ctx: Context | None = None) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def sat(a: _G, dtype: Any = None, layout: Literal["inclusive", "padded"] = "inclusive",
        squared: Literal[False] = False, algorithm: str = "auto", out: _G | None = None, *,
        ctx: Context | None = None) -> _G: ...
@overload
def sat(a: _G, dtype: Any = None, layout: Literal["inclusive", "padded"] = "inclusive", *,
        squared: Literal[True], algorithm: str = "auto", out: _G | None = None,
        ctx: Context | None = None) -> tuple[_G, _G]: ...

@overload
def boxfilter(img: np.ndarray | npt.ArrayLike, radius: int, border: Literal["clip", "zero"] = "clip", *,
              out: np.ndarray | None = None, ctx: Context | None = None) -> npt.NDArray[np.uint8]: ...
@overload
def boxfilter(img: _G, radius: int, border: Literal["clip", "zero"] = "clip", *,
              out: _G | None = None, ctx: Context | None = None) -> _G: ...

@overload
def halftone(img: np.ndarray | npt.ArrayLike, kernel: str = "fs", threshold: int = 128,
             bits: bool = False, algorithm: str = "auto", *, out: np.ndarray | None = None,
             ctx: Context | None = None) -> npt.NDArray[np.uint8]: ...
@overload
def halftone(img: _G, kernel: str = "fs", threshold: int = 128, bits: bool = False,
             algorithm: str = "auto", *, out: _G | None = None, ctx: Context | None = None) -> _G: ...

def knapsack(weights: npt.ArrayLike | _GpuArray, values: npt.ArrayLike | _GpuArray, capacity: int,
             value_only: bool = False, *, by_capacity: bool = False, algorithm: str = "auto",
             max_bytes: int = 0, ctx: Context | None = None) -> Any:
    """int or (int, bool mask)[, by-capacity table]; arrays of K for a batch
    (of the inputs' library and device for GPU inputs)."""

class Alignment(NamedTuple):
    score: int
    a_begin: int
    a_end: int
    b_begin: int
    b_end: int
    ops: str
    cigar: str

def align(a: str | bytes, b: str | bytes, mode: str = "global", *, match: int = 2, mismatch: int = -3,
          matrix: str | npt.ArrayLike | None = None, alphabet: str | None = None, gap_open: int = 5,
          gap_extend: int = 2, output: str = "alignment", algorithm: str = "auto",
          ctx: Context | None = None) -> Alignment: ...

@overload
def compact(a: np.ndarray | npt.ArrayLike, *, gt: float | None = None, ge: float | None = None,
            lt: float | None = None, le: float | None = None, eq: float | None = None,
            ne: float | None = None, range: tuple[float, float] | None = None,
            mask: npt.ArrayLike | None = None, indices: bool = False, values: bool = True,
            algorithm: str = "auto", ctx: Context | None = None
            ) -> np.ndarray | tuple[np.ndarray, npt.NDArray[np.int64]]: ...
@overload
def compact(a: _G, *, gt: float | None = None, ge: float | None = None, lt: float | None = None,
            le: float | None = None, eq: float | None = None, ne: float | None = None,
            range: tuple[float, float] | None = None, mask: _G | None = None, indices: bool = False,
            values: bool = True, algorithm: str = "auto", ctx: Context | None = None
            ) -> _G | tuple[_G, _G]: ...
