"""skss_ctypes — minimal ctypes access to libskss for the peer tests.

Loads the library named by $SKSS_LIB and offers a context manager for a
context. Each test file declares the structures and functions it needs.
"""
import ctypes
import os

LIB = ctypes.CDLL(os.environ["SKSS_LIB"])

BACKEND = {"auto": 0, "cpu-ref": 1, "cpu": 2, "cuda": 3}


class CtxDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("backend", ctypes.c_int),
        ("device", ctypes.c_int),
        ("threads", ctypes.c_int),
        ("cuda_stream", ctypes.c_void_p),
        ("allocator", ctypes.c_void_p),
    ]


LIB.skss_ctx_create.argtypes = [ctypes.POINTER(CtxDesc), ctypes.POINTER(ctypes.c_void_p)]
LIB.skss_ctx_create.restype = ctypes.c_int
LIB.skss_ctx_destroy.argtypes = [ctypes.c_void_p]
LIB.skss_ctx_last_error.argtypes = [ctypes.c_void_p]
LIB.skss_ctx_last_error.restype = ctypes.c_char_p


class Context:
    """`with Context("cpu", threads=2) as ctx:` gives a live skss_ctx*."""

    def __init__(self, backend="cpu", threads=0):
        self.desc = CtxDesc(ctypes.sizeof(CtxDesc), BACKEND[backend], 0, threads, None, None)
        self.ptr = ctypes.c_void_p()

    def __enter__(self):
        st = LIB.skss_ctx_create(ctypes.byref(self.desc), ctypes.byref(self.ptr))
        if st != 0:
            raise RuntimeError(f"skss_ctx_create failed with status {st}")
        return self

    def __exit__(self, *exc):
        LIB.skss_ctx_destroy(self.ptr)

    def check(self, status):
        if status != 0:
            raise RuntimeError(LIB.skss_ctx_last_error(self.ptr).decode())
