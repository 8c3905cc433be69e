"""Where a call's arrays live: NumPy on the host, or a CUDA array library
(PyTorch, CuPy; JAX and other DLPack / CUDA-array-interface producers through
one of them) on one device.

A *space* checks the caller's arrays, allocates outputs next to them with the
caller's own library, and hands the C extension what it takes: a NumPy array
as it is, or for device memory ``(pointer, shape, byte strides)``, so that
GPU arrays are used in place, never copied (strided inputs whose rows the C
API cannot address through a pitch are copied once, on the device). A GPU
space runs the call on the caller's current stream of that library, on the
array's device, and leaves the context back on a stream that cannot
disappear (its own, or the legacy / per-thread default stream).
"""
from __future__ import annotations

import contextlib
import math
import sys
import threading

import numpy as np

from . import _skss

_OP = {"sat": 0, "halftone": 1, "knapsack": 2, "compact": 3, "align": 4}
# cudaStreamLegacy, cudaStreamPerThread: streams no one destroys
_LEGACY, _PER_THREAD = 1, 2
_NO_SCOPE = contextlib.nullcontext()

_local = threading.local()


def active_context():
    """The innermost ``with skss.Context(...)`` of this thread, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def push_context(ctx):
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(ctx)


def pop_context(ctx):
    stack = getattr(_local, "stack", None)
    if stack and ctx in stack:
        del stack[len(stack) - 1 - stack[::-1].index(ctx)]


def pitched(shape, strides, itemsize):
    """Byte strides the C API can take for an array (contiguous rows, each
    outer stride covering the axes inside it; 0 = packed for an axis of one
    element), or None when the array must be copied first."""
    out = [0] * len(shape)
    extent = itemsize  # bytes spanned by one element of the axes inside
    for k in range(len(shape) - 1, -1, -1):
        n, s = shape[k], strides[k]
        if n <= 1:
            extent *= max(n, 1)
            continue
        if k == len(shape) - 1:
            if s != itemsize:
                return None
        elif s % itemsize or s < extent:
            return None
        out[k] = s
        extent = (n - 1) * s + extent
    return tuple(out)


def _shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


class Host:
    """NumPy arrays on the host (the C library stages them to a CUDA context's device)."""

    gpu = False
    kind = "NumPy"

    def scope(self):
        return _NO_SCOPE

    def adopt(self, name, a):
        return np.asarray(a)

    @staticmethod
    def dtype(a):
        return a.dtype

    def array(self, name, a, ndim=None, dtypes=None):
        """`a` as a NumPy array whose rows are contiguous (copied once if not)."""
        arr = a if type(a) is np.ndarray else np.asarray(a)
        if ndim is not None and arr.ndim not in ((ndim,) if isinstance(ndim, int) else ndim):
            raise ValueError(f"{name} must have {ndim} dimensions, not {arr.ndim} (shape {arr.shape})")
        if dtypes is not None and arr.dtype not in dtypes:
            names = ", ".join(str(np.dtype(t)) for t in dtypes)
            raise TypeError(f"{name} has dtype {arr.dtype}; expected one of: {names}")
        flags = arr.flags
        if flags.c_contiguous and flags.aligned:
            return arr
        if arr.ndim >= 1 and arr.size > 0 and (arr.strides[-1] != arr.itemsize or
                                               any(s < 0 for s in arr.strides) or
                                               any(s % arr.itemsize for s in arr.strides)):
            arr = np.ascontiguousarray(arr)
        if not arr.flags.aligned:  # e.g. a chunk unpickled from a network buffer
            arr = arr.copy()
        return arr

    def out(self, name, out, shape, dtype):
        if out is None:
            return np.empty(shape, dtype)
        if not isinstance(out, np.ndarray):
            raise TypeError(f"{name} must be a NumPy array like the input, not {type(out).__name__}")
        if out.shape != tuple(shape) or out.dtype != np.dtype(dtype):
            raise ValueError(f"{name} must have shape {tuple(shape)} and dtype {np.dtype(dtype)}, "
                             f"not {out.shape} and {out.dtype}")
        if not out.flags.writeable:
            raise ValueError(f"{name} is read-only")
        if out.ndim >= 1 and out.size > 0 and out.strides[-1] != out.itemsize:
            raise ValueError(f"{name} must have contiguous rows")
        return out

    empty = staticmethod(np.empty)
    contiguous = staticmethod(np.ascontiguousarray)
    np_dtype = staticmethod(np.dtype)

    @staticmethod
    def raw(a):
        return a

    @staticmethod
    def astype(a, dtype):
        return a.astype(dtype, copy=False)

    @staticmethod
    def view(a, dtype):
        return a.view(dtype)

    @staticmethod
    def zero(a):
        a[...] = 0

    @staticmethod
    def arange(n):
        return np.arange(n, dtype=np.int64)

    @staticmethod
    def trim(a, count):
        return a[:count].copy()  # frees the rest of the n-element buffer

    @staticmethod
    def finish(x):
        return x

    def run(self, ctx, op, fn, *args):
        return fn(ctx_or_default(ctx), *args)


HOST = Host()


def ctx_or_default(ctx):
    if ctx is None:
        stack = getattr(_local, "stack", None)
        return stack[-1] if stack else default_context()
    if not isinstance(ctx, _skss.Context):
        raise TypeError(f"ctx must be a skss.Context, not {type(ctx).__name__}")
    return ctx


def default_context():
    ctx = getattr(_local, "ctx", None)
    if ctx is None or ctx.closed:
        from . import Context
        ctx = _local.ctx = Context()
    return ctx


class Gpu:
    """A CUDA array library's arrays on one device; subclasses say how."""

    gpu = True
    kind = "?"
    device = 0

    def __repr__(self):
        return f"<skss {self.kind} arrays on cuda:{self.device}>"

    # --- what a subclass provides -------------------------------------------
    def owns(self, a):  # an array of this library, on this device?
        raise NotImplementedError

    def device_of(self, a):  # the CUDA ordinal of an array of this library, or None
        raise NotImplementedError

    def stream(self):  # the library's current stream on this device (an int)
        raise NotImplementedError

    def synchronize(self):
        raise NotImplementedError

    # --- shared ------------------------------------------------------------------
    def adopt(self, name, a):
        if self.owns(a):
            return a
        dev = self.device_of(a)
        if dev is not None:
            raise ValueError(f"{name} is on cuda:{dev}, but the input is on cuda:{self.device}")
        raise TypeError(f"{name} must be a {self.kind} array on cuda:{self.device} like the input, "
                        f"not {type(a).__module__}.{type(a).__name__}")

    def array(self, name, a, ndim=None, dtypes=None):
        a = self.adopt(name, a)
        if ndim is not None and a.ndim not in ((ndim,) if isinstance(ndim, int) else ndim):
            raise ValueError(f"{name} must have {ndim} dimensions, not {a.ndim} (shape {_shape(a.shape)})")
        dt = self.dtype(a)
        if dtypes is not None and dt not in dtypes:
            names = ", ".join(str(np.dtype(t)) for t in dtypes)
            raise TypeError(f"{name} has dtype {dt if dt is not None else a.dtype}; expected one of: {names}")
        if pitched(a.shape, self.strides(a), dt.itemsize) is None:
            a = self.contiguous(a)
        return a

    def out(self, name, out, shape, dtype):
        if out is None:
            return self.empty(shape, dtype)
        out = self.adopt(name, out)
        dt = self.dtype(out)
        if tuple(out.shape) != tuple(shape) or dt != np.dtype(dtype):
            raise ValueError(f"{name} must have shape {tuple(shape)} and dtype {np.dtype(dtype)}, "
                             f"not {_shape(out.shape)} and {dt if dt is not None else out.dtype}")
        if pitched(out.shape, self.strides(out), dt.itemsize) is None:
            raise ValueError(f"{name} must have contiguous rows")
        return out

    @staticmethod
    def np_dtype(x):
        return np.dtype(x)

    def raw(self, a):
        """(data pointer, shape, byte strides) for the C extension."""
        if not self.owns(a):  # a host output (one knapsack's value)
            return a
        dt = self.dtype(a)
        shape = tuple(a.shape)
        strides = pitched(shape, self.strides(a), dt.itemsize)
        if strides is None:  # pragma: no cover - array() and out() copied or refused it
            raise AssertionError("skss: an array whose rows the C API cannot address")
        return (self.pointer(a), shape, strides)

    @staticmethod
    def trim(a, count):
        return a[:count]  # a view; the buffer lives as long as it does

    @staticmethod
    def finish(x):
        return x

    def run(self, ctx, op, fn, *args):
        """fn(context, *args) on this device, on the library's current stream."""
        c = self.context(ctx, op)
        s = self.stream() or _LEGACY  # 0 is the legacy default stream
        c._set_stream(s)
        try:
            return fn(c, *args)
        finally:
            if s > _PER_THREAD:
                c._set_stream(0)  # a caller's stream may be destroyed: leave it

    def context(self, ctx, op):
        if ctx is None:
            ctx = active_context()
            if ctx is None:
                ctx = self.default_context()
        elif not isinstance(ctx, _skss.Context):
            raise TypeError(f"ctx must be a skss.Context, not {type(ctx).__name__}")
        backend = ctx.backend  # raises on a closed context
        if backend != "cuda":
            raise ValueError(f"ctx: {self.kind} arrays on cuda:{self.device} need a cuda (or auto) "
                             f"context, not a {backend} one; pass NumPy arrays to run on the CPU")
        if ctx.device != self.device:
            raise ValueError(f"ctx runs on cuda:{ctx.device}, but the input is on cuda:{self.device}")
        if ctx.op_backend(_OP[op]) != "cuda":
            from . import UnsupportedError
            raise UnsupportedError(f"skss.{op}(): this build's cuda backend has no {op} kernels yet; "
                                   "pass NumPy arrays to run it on the CPU")
        return ctx

    def default_context(self):
        ctxs = getattr(_local, "gpu", None)
        if ctxs is None:
            ctxs = _local.gpu = {}
        ctx = ctxs.get(self.device)
        if ctx is None or ctx.closed:
            from . import Context
            ctx = ctxs[self.device] = Context("cuda", device=self.device)
        return ctx


class Torch(Gpu):
    kind = "torch"

    def __init__(self, torch, device):
        self.torch = torch
        self.tdevice = device
        self.device = device.index
        names = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
                 "float32", "float64", "bool"]
        self.to_np = {getattr(torch, n): np.dtype(n) for n in names if hasattr(torch, n)}
        self.from_np = {v: k for k, v in self.to_np.items()}
        # torch's unsigned types past uint8 have few kernels: zero them as signed
        self.signed = {torch.uint8: torch.uint8}
        for u, s in (("uint16", "int16"), ("uint32", "int32"), ("uint64", "int64")):
            if hasattr(torch, u):
                self.signed[getattr(torch, u)] = getattr(torch, s)

    @property
    def lib(self):
        return self.torch

    @staticmethod
    def import_(torch, a):
        if hasattr(a, "__dlpack__"):
            return torch.from_dlpack(a)
        return torch.as_tensor(a, device="cuda")  # the CUDA array interface, in place

    def owns(self, a):
        return isinstance(a, self.torch.Tensor) and a.is_cuda and a.device.index == self.device

    def device_of(self, a):
        return a.device.index if isinstance(a, self.torch.Tensor) and a.is_cuda else None

    def scope(self):
        if self.torch.cuda.current_device() == self.device:
            return _NO_SCOPE
        return self.torch.cuda.device(self.device)

    def dtype(self, a):
        return self.to_np.get(a.dtype)

    def np_dtype(self, x):
        return self.to_np[x] if isinstance(x, self.torch.dtype) else np.dtype(x)

    @staticmethod
    def strides(a):
        size = a.element_size()
        return tuple(s * size for s in a.stride())

    @staticmethod
    def pointer(a):
        return a.data_ptr()

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=self.from_np[np.dtype(dtype)], device=self.tdevice)

    def contiguous(self, a):
        return a.contiguous()

    def astype(self, a, dtype):
        return a.to(self.from_np[np.dtype(dtype)])

    def view(self, a, dtype):
        return a.view(self.from_np[np.dtype(dtype)])

    def zero(self, a):
        a.view(self.signed.get(a.dtype, a.dtype)).zero_()

    def arange(self, n):
        return self.torch.arange(n, dtype=self.torch.int64, device=self.tdevice)

    def stream(self):
        return self.torch.cuda.current_stream(self.tdevice).cuda_stream

    def synchronize(self):
        self.torch.cuda.current_stream(self.tdevice).synchronize()


class Cupy(Gpu):
    kind = "cupy"

    def __init__(self, cupy, device):
        self.cupy = cupy
        self.device = device

    @property
    def lib(self):
        return self.cupy

    @staticmethod
    def import_(cupy, a):
        if hasattr(a, "__dlpack__"):
            return cupy.from_dlpack(a)
        return cupy.asarray(a)  # the CUDA array interface, in place

    def owns(self, a):
        return isinstance(a, self.cupy.ndarray) and a.device.id == self.device

    def device_of(self, a):
        return a.device.id if isinstance(a, self.cupy.ndarray) else None

    def scope(self):
        if self.cupy.cuda.runtime.getDevice() == self.device:
            return _NO_SCOPE
        return self.cupy.cuda.Device(self.device)

    @staticmethod
    def dtype(a):
        return a.dtype

    @staticmethod
    def strides(a):
        return a.strides

    @staticmethod
    def pointer(a):
        return a.data.ptr

    def empty(self, shape, dtype):
        return self.cupy.empty(shape, dtype)  # on the current device: scope() made it ours

    def contiguous(self, a):
        return self.cupy.ascontiguousarray(a)

    @staticmethod
    def astype(a, dtype):
        return a.astype(dtype, copy=False)

    @staticmethod
    def view(a, dtype):
        return a.view(dtype)

    @staticmethod
    def zero(a):
        a.fill(0)

    def arange(self, n):
        return self.cupy.arange(n, dtype=np.int64)

    def stream(self):
        return self.cupy.cuda.get_current_stream().ptr

    def synchronize(self):
        self.cupy.cuda.get_current_stream().synchronize()


class Bridge(Gpu):
    """JAX arrays, and other producers of DLPack or the CUDA array interface,
    seen through CuPy (else PyTorch) without a copy: inputs are imported by
    that library's from_dlpack / asarray on its current stream, outputs are
    its arrays, handed back as JAX arrays to JAX callers (after the stream is
    synchronised: JAX has no stream to order them on)."""

    def __init__(self, inner, foreign, back):
        self.inner = inner
        self.foreign = foreign  # is this one of the arrays to import?
        self.back = back        # the caller's type for an output, or None
        self.kind = inner.kind
        self.device = inner.device

    def __getattr__(self, name):  # everything else is the inner library's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def scope(self):
        return self.inner.scope()

    def adopt(self, name, a):
        if self.foreign(a):
            if self.back is not None and name == "out":
                raise TypeError(f"{name}: JAX arrays are immutable; leave out=None")
            a = self.inner.import_(self.inner.lib, a)
        return self.inner.adopt(name, a)

    def owns(self, a):
        return self.inner.owns(a)

    def device_of(self, a):
        return self.inner.device_of(a)

    def stream(self):
        return self.inner.stream()

    def synchronize(self):
        self.inner.synchronize()

    def finish(self, x):
        if self.back is None:
            return x
        if isinstance(x, tuple):
            self.inner.synchronize()
            return tuple(self.back(y) if self.inner.owns(y) else y for y in x)
        if self.inner.owns(x):
            self.inner.synchronize()
            return self.back(x)
        return x


_spaces = {}


def _torch_space(torch, device):
    key = ("torch", device.index)
    sp = _spaces.get(key)
    if sp is None:
        sp = _spaces[key] = Torch(torch, device)
    return sp


def _cupy_space(cupy, device):
    key = ("cupy", device)
    sp = _spaces.get(key)
    if sp is None:
        sp = _spaces[key] = Cupy(cupy, device)
    return sp


def _bridge(a):
    """A Bridge for a foreign GPU array, or None when `a` is not on a CUDA device."""
    dl = getattr(a, "__dlpack_device__", None)
    if dl is not None and int(dl()[0]) not in (2, 13):  # kDLCUDA, kDLCUDAManaged
        return None
    try:
        import cupy
        inner = _cupy_space(cupy, Cupy.import_(cupy, a).device.id)
    except ImportError:
        try:
            import torch
        except ImportError:
            raise TypeError(f"skss takes {type(a).__module__}.{type(a).__name__} arrays on the GPU "
                            "through CuPy or PyTorch; install one of them") from None
        inner = _torch_space(torch, Torch.import_(torch, a).device)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(a, jax.Array):
        return Bridge(inner, lambda x: isinstance(x, jax.Array), jax.dlpack.from_dlpack)
    t = type(a)
    return Bridge(inner, lambda x: type(x) is t, None)


def space(a):
    """The space of a call's first array argument."""
    t = type(a)
    if t is np.ndarray:
        return HOST
    mod = t.__module__
    if mod.startswith("torch"):
        torch = sys.modules["torch"]
        if isinstance(a, torch.Tensor) and a.is_cuda:
            return _torch_space(torch, a.device)
        return HOST
    if mod.startswith("cupy"):
        cupy = sys.modules["cupy"]
        if isinstance(a, cupy.ndarray):
            return _cupy_space(cupy, a.device.id)
    if hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack_device__"):
        return _bridge(a) or HOST
    return HOST


def size(a):
    return math.prod(a.shape)
