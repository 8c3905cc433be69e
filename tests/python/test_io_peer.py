"""test_io_peer — the CLI's file formats (tools/skss/io) against real peers.

Images that Pillow (and OpenCV, for 16-bit colour) write must read exactly
as Pillow's Image.open(...).convert('L'); PGM/PBM files, plain and raw, as
Pillow opens them; our PNG/PGM/PBM outputs must open in Pillow with the same
pixels; .npy files NumPy writes (every supported dtype, both byte orders,
bool, 0-d, empty, 8-d, format versions 1.0/2.0/3.0) must read identically,
and what we write must load in NumPy. The library is static, so it is driven
through the test program skss_io_dump ($SKSS_IO_DUMP, else found beside
$SKSS_BIN).
"""
import io
import os
import subprocess

import pytest

np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

SEED = int(os.environ.get("SKSS_TEST_SEED", "20261121"), 0)


def _find_dump():
    path = os.environ.get("SKSS_IO_DUMP", "")
    if not path and os.environ.get("SKSS_BIN"):
        path = os.path.join(os.path.dirname(os.environ["SKSS_BIN"]), "io", "skss_io_dump")
    return path if path and os.path.exists(path) else None


DUMP = _find_dump()
pytestmark = pytest.mark.skipif(DUMP is None, reason="skss_io_dump was not built (SKSS_BUILD_TOOLS=OFF)")


def run_dump(*args, ok=True):
    proc = subprocess.run([DUMP, *map(str, args)], capture_output=True, timeout=60)
    if ok and proc.returncode != 0:
        raise AssertionError(f"skss_io_dump {args}: {proc.stderr.decode(errors='replace')}")
    return proc


def read_gray(path):
    out = run_dump("image", path).stdout
    header, _, pixels = out.partition(b"\n")
    width, height = map(int, header.split())
    return np.frombuffer(pixels, dtype=np.uint8).reshape(height, width)


def assert_same(ours, want, what):
    assert ours.shape == want.shape, f"{what}: shape {ours.shape} vs {want.shape}"
    diff = np.argwhere(ours != want)
    assert diff.size == 0, f"{what}: {len(diff)} pixels differ, first at {tuple(diff[0])}: {ours[tuple(diff[0])]} vs {want[tuple(diff[0])]}"


def random_rgba(rng, h, w):
    return rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)


SIZES = [(1, 1), (23, 37), (64, 1), (1, 65), (31, 33)]


# ---- PNG written by Pillow ------------------------------------------------------

def pillow_images(rng, h, w):
    rgba = random_rgba(rng, h, w)
    rgb = Image.fromarray(rgba[..., :3], "RGB")
    gray = Image.fromarray(rgba[..., 0], "L")
    few = rgb.quantize(colors=4)
    yield "RGB", rgb, {}
    yield "RGBA", Image.fromarray(rgba, "RGBA"), {}
    yield "L", gray, {}
    yield "LA", Image.fromarray(rgba[..., :2], "LA"), {}
    yield "1", gray.convert("1"), {}
    yield "P256", rgb.quantize(colors=256), {}
    yield "P4-bit", rgb.quantize(colors=13), {}
    yield "P2-bit", few, {}
    yield "P-transparent", few, {"transparency": 1}
    yield "L2-bit", gray, {"bits": 2}
    yield "L4-bit", gray, {"bits": 4}
    yield "L-transparent", gray, {"transparency": 7}


@pytest.mark.parametrize("h,w", SIZES)
def test_pillow_pngs_read_as_convert_L(tmp_path, h, w):
    rng = np.random.default_rng(SEED + h * 1000 + w)
    for name, im, params in pillow_images(rng, h, w):
        path = tmp_path / f"{name}.png"
        im.save(path, **params)
        want = np.asarray(Image.open(path).convert("L"))
        assert_same(read_gray(path), want, f"{name} {w}x{h}")


@pytest.mark.parametrize("h,w", SIZES)
def test_16_bit_pngs(tmp_path, h, w):
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(SEED + 7 * h + w)
    planes = rng.integers(0, 65536, size=(h, w, 4), dtype=np.uint16)
    planes[0, 0] = [0x7F80, 0x80FF, 0xFF00, 0x0100]  # high byte, not rounding
    for name, arr in (("BGR16", planes[..., :3]), ("BGRA16", planes)):
        path = tmp_path / f"{name}.png"
        assert cv2.imwrite(str(path), arr)
        opened = Image.open(path)
        assert opened.mode in ("RGB", "RGBA")
        assert_same(read_gray(path), np.asarray(opened.convert("L")), f"{name} {w}x{h}")
    # 16-bit gray: Pillow opens it as I;16 and its convert('L') clamps at 255;
    # skss keeps the high byte (the documented choice), so compare with that.
    path = tmp_path / "gray16.png"
    Image.fromarray(planes[..., 0]).save(path)
    opened = Image.open(path)
    assert opened.mode == "I;16"
    assert_same(read_gray(path), (np.asarray(opened) >> 8).astype(np.uint8), f"gray16 {w}x{h}")


# ---- PGM / PBM ------------------------------------------------------------------------

@pytest.mark.parametrize("h,w", SIZES)
def test_pillow_pgm_and_pbm(tmp_path, h, w):
    rng = np.random.default_rng(SEED + 3 * h + w)
    gray = Image.fromarray(rng.integers(0, 256, size=(h, w), dtype=np.uint8), "L")
    for name, im in (("gray.pgm", gray), ("bits.pbm", gray.convert("1"))):
        path = tmp_path / name
        im.save(path)
        assert_same(read_gray(path), np.asarray(Image.open(path).convert("L")), f"{name} {w}x{h}")


def netpbm(magic, w, h, maxval, values):
    header = f"P{magic}\n# written by test_io_peer\n{w} {h}\n" + (f"{maxval}\n" if maxval else "")
    if magic in (1, 2):
        rows = [" ".join(str(v) for v in values[r * w:(r + 1) * w]) for r in range(h)]
        return header.encode() + "\n".join(rows).encode() + b"\n"
    dtype = ">u2" if maxval > 255 else "u1"
    return header.encode() + np.asarray(values, dtype=dtype).tobytes()


@pytest.mark.parametrize("maxval", [1, 2, 6, 7, 15, 100, 254, 255, 256, 1000, 4095, 65535])
@pytest.mark.parametrize("magic", [2, 5])
def test_pgm_maxval_scaling(tmp_path, magic, maxval):
    rng = np.random.default_rng(SEED + maxval)
    values = np.arange(maxval + 1) if maxval <= 4095 else rng.integers(0, maxval + 1, size=5000)
    values = np.concatenate([values, [0, maxval]])
    w = 50
    h = -(-len(values) // w)
    values = np.resize(values, w * h)
    path = tmp_path / "m.pgm"
    path.write_bytes(netpbm(magic, w, h, maxval, values))
    ours = read_gray(path)
    # Pillow scales by round(v / maxval * out_max): to 8 bits when maxval <= 255
    # (checked on Pillow itself), to 16 bits above (we keep 8: same formula).
    formula = np.array([round(int(v) / maxval * 255) for v in values], dtype=np.uint8).reshape(h, w)
    assert_same(ours, formula, f"P{magic} maxval {maxval} vs the formula")
    if maxval <= 255:
        assert_same(ours, np.asarray(Image.open(path)), f"P{magic} maxval {maxval} vs Pillow")


@pytest.mark.parametrize("magic", [1, 4])
def test_pbm_plain_and_raw(tmp_path, magic):
    rng = np.random.default_rng(SEED + magic)
    w, h = 13, 7
    bits = rng.integers(0, 2, size=w * h)
    path = tmp_path / "b.pbm"
    if magic == 1:
        path.write_bytes(netpbm(1, w, h, 0, bits))
    else:
        packed = np.packbits(bits.reshape(h, w).astype(np.uint8), axis=1)
        path.write_bytes(f"P4\n{w} {h}\n".encode() + packed.tobytes())
    assert_same(read_gray(path), np.asarray(Image.open(path).convert("L")), f"P{magic}")


# ---- what we write, Pillow reads -------------------------------------------------------

@pytest.mark.parametrize("h,w", SIZES)
def test_our_images_open_in_pillow(tmp_path, h, w):
    rng = np.random.default_rng(SEED + 11 * h + w)
    src = rng.integers(0, 256, size=(h, w), dtype=np.uint8)
    src[::3, ::2] = 0
    Image.fromarray(src, "L").save(tmp_path / "src.png")
    bilevel = np.where(src != 0, 255, 0).astype(np.uint8)
    for name, extra, want in (("o.png", (), src), ("o.pgm", (), src), ("o.pbm", (), bilevel),
                              ("b.png", ("bilevel",), bilevel)):
        out = tmp_path / name
        run_dump("convert", tmp_path / "src.png", out, *extra)
        opened = Image.open(out)
        assert opened.mode == ("1" if want is bilevel else "L"), name
        assert_same(np.asarray(opened.convert("L")), want, f"Pillow reading our {name} {w}x{h}")
        assert_same(read_gray(out), want, f"reading back our {name}")


# ---- .npy -------------------------------------------------------------------------------

DTYPES = ["|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8", "<f4", "<f8",
          ">u2", ">i2", ">u4", ">i4", ">u8", ">i8", ">f4", ">f8", "|b1"]
SHAPES = [(), (0,), (7,), (5, 1), (3, 0, 2), (2, 3, 4), (1, 2, 1, 3, 1, 2, 1, 2)]


def sample_array(rng, descr, shape):
    dt = np.dtype(descr)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    raw = rng.integers(0, 256, size=(int(np.prod(shape)) * dt.itemsize,), dtype=np.uint8)
    arr = raw.view(dt).reshape(shape)
    if dt.kind == "f" and arr.size >= 3:
        arr.flat[:3] = [np.nan, -np.inf, -0.0]
    return arr


def skss_name(dt):
    return "u8" if dt.kind == "b" else f"{dt.kind}{dt.itemsize * 8}"


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("descr", DTYPES)
def test_npy_from_numpy_reads_identically(tmp_path, descr, version):
    rng = np.random.default_rng(SEED + len(descr) + version[0])
    for shape in SHAPES:
        arr = sample_array(rng, descr, shape)
        src, out = tmp_path / "in.npy", tmp_path / "out.npy"
        with open(src, "wb") as f:
            np.lib.format.write_array(f, arr, version=version, allow_pickle=False)
        line = run_dump("npy", src, out).stdout.decode().split()
        dt = arr.dtype
        assert line[0] == skss_name(dt), (descr, shape, line)
        assert int(line[1]) == (dt.kind == "b")
        assert tuple(int(d) for d in line[3:]) == shape and int(line[2]) == len(shape)
        back = np.load(out, allow_pickle=False)
        want = arr.astype(dt.newbyteorder("<") if dt.kind != "b" else np.uint8)
        assert back.dtype == want.dtype and back.shape == want.shape
        assert back.tobytes() == want.tobytes(), (descr, shape)
        assert (10 + int.from_bytes(out.read_bytes()[8:10], "little")) % 64 == 0


@pytest.mark.parametrize("make,message", [
    (lambda: np.asfortranarray(np.zeros((2, 3), np.int32)), "Fortran"),
    (lambda: np.zeros(3, np.complex128), "not supported"),
    (lambda: np.zeros(3, np.float16), "not supported"),
    (lambda: np.array(["ab", "c"]), "not supported"),
    (lambda: np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]), "structured"),
    (lambda: np.zeros((1,) * 9, np.uint8), "more than 8"),
])
def test_npy_unsupported_is_a_clear_error(tmp_path, make, message):
    src = tmp_path / "bad.npy"
    np.save(src, make(), allow_pickle=False)
    proc = run_dump("npy", src, tmp_path / "out.npy", ok=False)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "out.npy").exists()


def test_npy_truncated_and_padded_files(tmp_path):
    buf = io.BytesIO()
    np.save(buf, np.arange(10, dtype=np.int64))
    data = buf.getvalue()
    for name, blob in (("short", data[:-1]), ("long", data + b"\0"), ("header", data[:40])):
        src = tmp_path / f"{name}.npy"
        src.write_bytes(blob)
        proc = run_dump("npy", src, tmp_path / "out.npy", ok=False)
        assert proc.returncode == 1 and b"npy" in proc.stderr, (name, proc.stderr)


def test_bundled_photograph_reads_as_convert_L():
    photo = os.path.join(os.path.dirname(__file__), "..", "..", "data", "astronaut.png")
    if not os.path.exists(photo):
        pytest.skip("data/astronaut.png is not in this checkout")
    assert_same(read_gray(photo), np.asarray(Image.open(photo).convert("L")), "astronaut.png")
