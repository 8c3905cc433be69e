"""skss.dask on a dask.distributed LocalCluster: results identical to the
one-machine functions (floats to rounding)."""
import numpy as np
import pytest

import skss

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
skss_dask = pytest.importorskip("skss.dask")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("dtype,out", [(np.uint8, np.uint32), (np.uint8, np.int32), (np.int32, np.int32),
                                       (np.uint32, np.uint32), (np.float64, np.float64)])
@pytest.mark.parametrize("shape,chunks", [((1, 1), (1, 1)), ((37, 53), (10, 7)), ((100, 64), (100, 64)),
                                          ((257, 129), (64, 50))])
def test_sat_matches_one_machine(client, dtype, out, shape, chunks):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(-1, 1, shape).astype(dtype)
    else:
        a = rng.integers(0, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)
    got = skss_dask.sat(da.from_array(a, chunks=chunks), dtype=out).compute()
    want = skss.sat(a, dtype=out)
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.dtype(out).kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bits", [False, True])
def test_halftone_matches_one_machine(client, bits):
    stack = np.random.default_rng(8).integers(0, 256, (7, 33, 45), dtype=np.uint8)
    got = skss_dask.halftone(da.from_array(stack, chunks=(3, 10, 20)), kernel="jjn", bits=bits).compute()
    np.testing.assert_array_equal(got, skss.halftone(stack, kernel="jjn", bits=bits))


def test_errors():
    with pytest.raises(TypeError, match="dask array"):
        skss_dask.sat(np.zeros((2, 2), np.uint8))
    with pytest.raises(ValueError, match="dimensions"):
        skss_dask.halftone(da.zeros((2, 2), dtype=np.uint8))
    with pytest.raises(TypeError, match="dtype"):
        skss_dask.sat(da.zeros((2, 2), dtype=np.int16))
