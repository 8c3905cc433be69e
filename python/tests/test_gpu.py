"""skss on GPU arrays (CuPy and PyTorch; JAX and a bare CUDA-array-interface
object through them): every function against the NumPy/CPU results, outputs
of the caller's library on the caller's device, no copies of inputs or of an
``out=`` buffer, and the work on the caller's current stream. Skipped where
the package has no CUDA backend or the machine no GPU (CI); run by
scripts/gpu-check's python step on the lent GPU."""
import numpy as np
import pytest

import skss
from skss import _skss

if not _skss.backend_available("cuda"):
    pytest.skip("skss is built without CUDA, or this machine has no CUDA device",
                allow_module_level=True)


def rng(seed=0):
    return np.random.default_rng(20261201 + seed)


def random_array(shape, dtype, seed=0):
    r = rng(seed)
    if np.dtype(dtype).kind == "f":
        return r.uniform(-4, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    return r.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


# ---- the two libraries, behind one small interface --------------------------

class Torch:
    name = "torch"

    def __init__(self):
        self.torch = pytest.importorskip("torch")
        if not self.torch.cuda.is_available():
            pytest.skip("torch sees no CUDA device")
        t = self.torch
        self.unsigned = {t.uint16: (t.int16, np.uint16), t.uint32: (t.int32, np.uint32),
                         t.uint64: (t.int64, np.uint64)}

    def asarray(self, a):
        a = np.ascontiguousarray(a)
        signed = {np.dtype(np.uint16): np.int16, np.dtype(np.uint32): np.int32,
                  np.dtype(np.uint64): np.int64}
        if a.dtype in signed:  # torch's unsigned types past uint8 convert through their signed twin
            tdtype = [k for k, v in self.unsigned.items() if v[1] == a.dtype][0]
            return self.torch.from_numpy(a.view(signed[a.dtype])).cuda().view(tdtype)
        return self.torch.from_numpy(a).cuda()

    def numpy(self, x):
        x = x.detach().cpu()
        if x.dtype in self.unsigned:
            s, u = self.unsigned[x.dtype]
            return x.view(s).numpy().view(u)
        return x.numpy()

    def is_mine(self, x):
        return isinstance(x, self.torch.Tensor) and x.is_cuda and x.device.index == 0

    def ptr(self, x):
        return x.data_ptr()

    def allocated(self):
        return self.torch.cuda.memory_allocated()

    def new_stream(self):
        return self.torch.cuda.Stream()

    def on(self, stream):
        return self.torch.cuda.stream(stream)

    def busy_identity(self, n=4096, rounds=12):
        """An n x n identity made by a chain of n^3 products on the current
        stream: a value that is ready only after tens of milliseconds."""
        x = self.torch.eye(n, device="cuda")
        for _ in range(rounds):
            x = x @ x
        return x

    def depend(self, a_np, busy):
        """`a_np` on the device, written on the current stream after `busy`."""
        a = self.asarray(a_np)
        s = self.unsigned.get(a.dtype, (a.dtype,))[0]
        return (a.view(s) + (busy[0, 0] - 1).to(s)).view(a.dtype)

    def synchronize(self):
        self.torch.cuda.synchronize()


class Cupy:
    name = "cupy"

    def __init__(self):
        self.cupy = pytest.importorskip("cupy")
        try:
            if self.cupy.cuda.runtime.getDeviceCount() == 0:
                pytest.skip("cupy sees no CUDA device")
        except self.cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("cupy sees no CUDA device")

    def asarray(self, a):
        return self.cupy.asarray(a)

    def numpy(self, x):
        return self.cupy.asnumpy(x)

    def is_mine(self, x):
        return isinstance(x, self.cupy.ndarray) and x.device.id == 0

    def ptr(self, x):
        return x.data.ptr

    def allocated(self):
        return self.cupy.get_default_memory_pool().used_bytes()

    def new_stream(self):
        return self.cupy.cuda.Stream(non_blocking=True)

    def on(self, stream):
        return stream

    def busy_identity(self, n=4096, rounds=12):
        x = self.cupy.eye(n, dtype=np.float32)
        for _ in range(rounds):
            x = x @ x
        return x

    def depend(self, a_np, busy):
        a = self.cupy.asarray(a_np)
        return a + (busy[0, 0] - 1).astype(a.dtype)

    def synchronize(self):
        self.cupy.cuda.runtime.deviceSynchronize()


LIBS = {"torch": Torch, "cupy": Cupy}


@pytest.fixture(params=sorted(LIBS), scope="module")
def lib(request):
    return LIBS[request.param]()


@pytest.fixture(scope="module")
def cpu():
    c = skss.Context("cpu")  # not `with`: that would make it the active context
    yield c
    c.close()


def same(lib, got, want, exact=True):
    """A result of the caller's library on its device, equal to the CPU one."""
    assert lib.is_mine(got), f"{type(got)} is not a {lib.name} array on cuda:0"
    g = lib.numpy(got)
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
    if exact:
        np.testing.assert_array_equal(g, want)
    else:
        tol = 1e-4 if want.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol * want.size * 4)


# ---- SAT and box filter -------------------------------------------------------------

PAIRS = [(np.uint8, np.uint32), (np.uint8, np.int32), (np.uint8, np.float32), (np.uint8, np.float64),
         (np.int32, np.int32), (np.uint32, np.uint32), (np.float32, np.float32),
         (np.float32, np.float64), (np.float64, np.float64)]
SHAPES = [(1, 1), (1, 37), (37, 1), (97, 61), (300, 517)]


@pytest.mark.parametrize("in_dtype,out_dtype", PAIRS)
@pytest.mark.parametrize("shape", SHAPES)
def test_sat_every_pair(lib, cpu, in_dtype, out_dtype, shape):
    a = random_array(shape, in_dtype)
    for layout in ("inclusive", "padded"):
        got = skss.sat(lib.asarray(a), dtype=out_dtype, layout=layout)
        same(lib, got, skss.sat(a, dtype=out_dtype, layout=layout, ctx=cpu),
             exact=np.dtype(out_dtype).kind != "f")


def test_sat_squared_pitched_strided_and_out(lib, cpu):
    base = random_array((64, 90), np.uint8, 1)
    dev = lib.asarray(base)
    rows = dev[7:40, 3:77]  # rows with a pitch: read in place
    want = skss.sat(base[7:40, 3:77], ctx=cpu)
    out = lib.asarray(np.zeros(want.shape, np.uint32))
    ptr = lib.ptr(out)
    lib.synchronize()
    before = lib.allocated()
    got = skss.sat(rows, out=out)
    assert lib.allocated() == before, "a copy of the input or a new output was allocated"
    assert got is out and lib.ptr(got) == ptr
    same(lib, got, want)
    cols = dev[3::2, 5::3]  # strided columns: copied once, on the device
    sums, squares = skss.sat(cols, dtype=np.float64, layout="padded", squared=True)
    want_s, want_q = skss.sat(base[3::2, 5::3], dtype=np.float64, layout="padded", squared=True, ctx=cpu)
    same(lib, sums, want_s)
    same(lib, squares, want_q)
    same(lib, skss.sat(dev.T), skss.sat(base.T, ctx=cpu))  # transposed: copied once
    empty = skss.sat(lib.asarray(np.zeros((0, 4), np.uint8)), layout="padded")
    same(lib, empty, np.zeros((1, 5), np.uint32))


def test_out_into_a_pitched_view(lib, cpu):
    a = random_array((20, 30), np.float32, 2)
    big = lib.asarray(np.full((25, 40), -1, np.float32))
    skss.sat(lib.asarray(a), out=big[2:22, 5:35])
    host = lib.numpy(big)
    np.testing.assert_allclose(host[2:22, 5:35], skss.sat(a, ctx=cpu), rtol=1e-5, atol=1e-3)
    assert (host[:2] == -1).all() and (host[:, :5] == -1).all() and (host[:, 35:] == -1).all()


@pytest.mark.parametrize("border", ["clip", "zero"])
def test_boxfilter(lib, cpu, border):
    a = random_array((123, 77), np.uint8, 3)
    for r in (0, 1, 4):
        same(lib, skss.boxfilter(lib.asarray(a), r, border), skss.boxfilter(a, r, border, ctx=cpu))
    out = lib.asarray(np.zeros((50, 40), np.uint8))
    got = skss.boxfilter(lib.asarray(a)[10:60, 20:60], 2, border, out=out)
    assert got is out
    same(lib, got, skss.boxfilter(a[10:60, 20:60], 2, border, ctx=cpu))


# ---- halftoning -------------------------------------------------------------------

@pytest.mark.parametrize("kernel", ["fs", "jjn", "atkinson"])
def test_halftone(lib, cpu, kernel):
    img = random_array((61, 97), np.uint8, 4)
    same(lib, skss.halftone(lib.asarray(img), kernel=kernel), skss.halftone(img, kernel=kernel, ctx=cpu))
    same(lib, skss.halftone(lib.asarray(img), kernel=kernel, threshold=90, bits=True),
         skss.halftone(img, kernel=kernel, threshold=90, bits=True, ctx=cpu))
    stack = random_array((3, 40, 45), np.uint8, 5)
    dev = lib.asarray(stack)
    same(lib, skss.halftone(dev, kernel=kernel), skss.halftone(stack, kernel=kernel, ctx=cpu))
    # a batch of pitched images (every other image, a window of each): in place
    part = dev[::2, 3:30, 4:40]
    out = lib.asarray(np.zeros((2, 27, 36), np.uint8))
    assert skss.halftone(part, kernel=kernel, out=out) is out
    same(lib, out, skss.halftone(stack[::2, 3:30, 4:40], kernel=kernel, ctx=cpu))


def test_halftone_matches_pillow(lib):
    Image = pytest.importorskip("PIL.Image")
    img = random_array((64, 97), np.uint8, 6)
    want = np.asarray(Image.fromarray(img).convert("1")).astype(np.uint8) * 255
    same(lib, skss.halftone(lib.asarray(img)), want)


# ---- knapsack ------------------------------------------------------------------

def test_knapsack(lib, cpu):
    r = rng(7)
    w = r.integers(1, 60, 200)
    v = r.integers(1, 90, 200)
    want_value, want_taken, want_table = skss.knapsack(w, v, 1000, by_capacity=True, ctx=cpu)
    value, taken, table = skss.knapsack(lib.asarray(w), lib.asarray(v), 1000, by_capacity=True)
    assert type(value) is int and value == want_value
    same(lib, taken, want_taken)
    same(lib, table, want_table)
    # int32 items are converted once on the device; value-only mode
    assert skss.knapsack(lib.asarray(w.astype(np.int32)), lib.asarray(v.astype(np.int32)), 1000,
                         value_only=True) == want_value
    wb = r.integers(1, 60, (4, 50))
    vb = r.integers(1, 90, (4, 50))
    values, taken_b = skss.knapsack(lib.asarray(wb), lib.asarray(vb), 300)
    want_values, want_taken_b = skss.knapsack(wb, vb, 300, ctx=cpu)
    same(lib, values, want_values)
    same(lib, taken_b, want_taken_b)
    value0, taken0 = skss.knapsack(lib.asarray(np.zeros(0, np.int64)), lib.asarray(np.zeros(0, np.int64)), 5)
    assert value0 == 0 and lib.numpy(taken0).shape == (0,)


# ---- compaction ------------------------------------------------------------------

@pytest.fixture(scope="module")
def compact_on_gpu(lib):
    try:
        skss.compact(lib.asarray(np.arange(3, dtype=np.int32)), gt=0)
    except skss.UnsupportedError as e:
        pytest.skip(f"the cuda backend of this build has no compaction yet ({e})")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 33, 100003])
def test_compact(lib, cpu, compact_on_gpu, dtype, n):
    a = random_array(n, dtype, n)
    dev = lib.asarray(a)
    x = a[0].item() if n else 1
    for keep in ("gt", "le", "eq", "ne"):
        same(lib, skss.compact(dev, **{keep: x}), skss.compact(a, **{keep: x}, ctx=cpu))
    got, idx = skss.compact(dev, indices=True)
    want, want_idx = skss.compact(a, indices=True, ctx=cpu)
    same(lib, got, want)
    same(lib, idx, want_idx)
    m = rng(n).integers(0, 2, n).astype(bool)
    same(lib, skss.compact(dev, mask=lib.asarray(m)), a[m])
    same(lib, skss.compact(dev, range=(x, x + 2)), skss.compact(a, range=(x, x + 2), ctx=cpu))


def test_compact_mask_must_be_on_the_device(lib, compact_on_gpu):
    with pytest.raises(TypeError, match="mask"):
        skss.compact(lib.asarray(np.arange(4, dtype=np.int32)), mask=np.ones(4, bool))


# ---- streams -----------------------------------------------------------------------

def test_the_callers_stream_is_used(lib, cpu):
    """Inputs written on a non-blocking stream after tens of milliseconds of
    work there: right results, read after synchronising that stream alone,
    only if skss ran on it."""
    a = random_array((1000, 1500), np.float32, 8)
    img = random_array((500, 700), np.uint8, 9)
    want = skss.sat(a, ctx=cpu)
    want_ht = skss.halftone(img, ctx=cpu)
    s = lib.new_stream()
    with lib.on(s):
        busy = lib.busy_identity()
        dev = lib.depend(a, busy)
        got = skss.sat(dev)
        dev_img = lib.depend(img, lib.busy_identity())
        got_ht = skss.halftone(dev_img)
        got2 = skss.sat(dev)  # the context is back on its own stream between calls
    s.synchronize()
    g = lib.numpy(got)
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4 * a.size)
    np.testing.assert_allclose(lib.numpy(got2), want, rtol=1e-4, atol=1e-4 * a.size)
    np.testing.assert_array_equal(lib.numpy(got_ht), want_ht)
    # and the default stream again, after the other one
    same(lib, skss.sat(lib.asarray(a)), want, exact=False)


def test_explicit_and_active_contexts(lib, cpu):
    a = random_array((40, 50), np.uint8, 10)
    want = skss.sat(a, ctx=cpu)
    with skss.Context("cuda", device=0) as c:
        assert c.device == 0 and "cuda" in repr(c)
        same(lib, skss.sat(lib.asarray(a), ctx=c), want)
        same(lib, skss.sat(lib.asarray(a)), want)  # the active context
        np.testing.assert_array_equal(skss.sat(a), want)  # NumPy in, staged, NumPy out
        c.synchronize()
    with skss.Context("auto") as c:
        same(lib, skss.sat(lib.asarray(a)), want)
    with skss.Context("cpu"):
        with pytest.raises(ValueError, match="ctx"):
            skss.sat(lib.asarray(a))
    with pytest.raises(ValueError, match="ctx"):
        skss.sat(lib.asarray(a), ctx=cpu)


def test_errors_name_the_argument(lib):
    a = lib.asarray(np.zeros((4, 5), np.uint8))
    with pytest.raises(ValueError, match="dimensions"):
        skss.sat(lib.asarray(np.zeros(5, np.uint8)))
    with pytest.raises(TypeError, match="a has dtype"):
        skss.sat(lib.asarray(np.zeros((2, 2), np.int16)))
    with pytest.raises(TypeError, match="out"):
        skss.sat(a, out=np.zeros((4, 5), np.uint32))
    with pytest.raises(ValueError, match="out must have shape"):
        skss.sat(a, out=lib.asarray(np.zeros((4, 5), np.int32)))
    with pytest.raises(ValueError, match="out must have contiguous rows"):
        skss.sat(a, out=lib.asarray(np.zeros((4, 10), np.uint32))[:, ::2])
    with pytest.raises(TypeError, match="out"):
        skss.sat(np.zeros((4, 5), np.uint8), out=lib.asarray(np.zeros((4, 5), np.uint32)))
    with pytest.raises(TypeError, match="img"):
        skss.boxfilter(lib.asarray(np.zeros((3, 3), np.float32)), 1)
    with pytest.raises(TypeError, match="values"):
        skss.knapsack(lib.asarray(np.ones(3, np.int64)), np.ones(3, np.int64), 2)
    with pytest.raises(TypeError, match="weights"):
        skss.knapsack(lib.asarray(np.ones(3, np.float32)), lib.asarray(np.ones(3, np.int64)), 2)


def test_mixed_libraries_are_refused():
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    w = torch.ones(3, dtype=torch.int64, device="cuda")
    with pytest.raises(TypeError, match="values"):
        skss.knapsack(w, cupy.ones(3, dtype=np.int64), 2)


# ---- JAX and a bare CUDA array interface, through CuPy / torch ---------------------

def test_jax_arrays(cpu):
    jax = pytest.importorskip("jax")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("jax sees no GPU")
    a = random_array((77, 130), np.uint8, 11)
    x = jax.device_put(a, gpu)
    got = skss.sat(x)
    assert isinstance(got, jax.Array) and list(got.devices())[0] == gpu
    np.testing.assert_array_equal(np.asarray(got), skss.sat(a, ctx=cpu))
    ht = skss.halftone(x)
    assert isinstance(ht, jax.Array)
    np.testing.assert_array_equal(np.asarray(ht), skss.halftone(a, ctx=cpu))
    with pytest.raises(TypeError, match="immutable"):
        skss.sat(x, out=x)


def test_cuda_array_interface_objects(cpu):
    cupy = pytest.importorskip("cupy")

    class Bare:  # only the CUDA array interface, as numba's device arrays have
        def __init__(self, arr):
            self.arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    a = random_array((33, 65), np.float32, 12)
    dev = cupy.asarray(a)
    got = skss.sat(Bare(dev))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(got), skss.sat(a, ctx=cpu), rtol=1e-5, atol=1e-3)
