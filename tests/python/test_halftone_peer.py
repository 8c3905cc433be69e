"""Peer test: skss_halftone() with Floyd-Steinberg and threshold 128 is
Pillow's Image.convert('1') byte for byte (Pillow's Convert.c keeps the
integer error sums and divides each pixel's sum by 16 once, as skss does).

Every algorithm of the CPU_REF and CPU backends, both output kinds (0/255
bytes against the image's pixels, packed bits against Pillow's raw '1'
bytes), on random images and on odd-sized crops of the bundled photograph.
"""
import ctypes
import pathlib

import pytest

np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

from skss_ctypes import LIB, Context  # noqa: E402

PHOTO = pathlib.Path(__file__).resolve().parents[2] / "data" / "astronaut.png"

# enum values of skss.h
FLOYD_STEINBERG = 0
BYTES, BITS = 0, 1
ALGORITHMS = {"auto": 0, "ed": 1, "ec": 2, "ed-rc": 3, "ec-rc": 4, "taskarray-cpu": 5}
BACKEND_ALGORITHMS = {
    "cpu-ref": ["auto", "ed", "ec", "ed-rc", "ec-rc"],
    "cpu": ["auto", "ed", "ec", "ed-rc", "ec-rc", "taskarray-cpu"],
}


class HalftoneDesc(ctypes.Structure):
    """skss_halftone_desc, field for field."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("height", ctypes.c_int64),
        ("width", ctypes.c_int64),
        ("in_pitch", ctypes.c_int64),
        ("out_pitch", ctypes.c_int64),
        ("kernel", ctypes.c_int),
        ("threshold", ctypes.c_int),
        ("output", ctypes.c_int),
        ("algorithm", ctypes.c_int),
    ]


LIB.skss_halftone.argtypes = [ctypes.c_void_p, ctypes.POINTER(HalftoneDesc), ctypes.c_void_p, ctypes.c_void_p]
LIB.skss_halftone.restype = ctypes.c_int


def skss_halftone(ctx, gray, algorithm, output):
    h, w = gray.shape
    gray = np.ascontiguousarray(gray, dtype=np.uint8)
    cols = w if output == BYTES else (w + 7) // 8
    out = np.full((h, cols), 0xA5, dtype=np.uint8)
    desc = HalftoneDesc(ctypes.sizeof(HalftoneDesc), h, w, 0, 0, FLOYD_STEINBERG, 128, output,
                        ALGORITHMS[algorithm])
    ctx.check(LIB.skss_halftone(ctx.ptr, ctypes.byref(desc), gray.ctypes.data, out.ctypes.data))
    return out


def pillow(gray):
    """Pillow's convert('1') as 0/255 bytes and as its raw packed rows."""
    img = Image.fromarray(gray, mode="L").convert("1")
    h, w = gray.shape
    as_bytes = np.asarray(img, dtype=np.uint8) * np.uint8(255)
    as_bits = np.frombuffer(img.tobytes(), dtype=np.uint8).reshape(h, (w + 7) // 8)
    return as_bytes, as_bits


def random_images():
    rng = np.random.default_rng(20261121)
    for h, w in [(1, 1), (1, 29), (29, 1), (33, 31), (127, 255), (61, 1037), (257, 9)]:
        yield f"random {h}x{w}", rng.integers(0, 256, size=(h, w), dtype=np.uint8)


def photo_crops():
    gray = np.asarray(Image.open(PHOTO).convert("L"))
    for top, left, h, w in [(0, 0, 512, 512), (3, 5, 301, 511), (100, 41, 77, 399), (211, 7, 255, 13)]:
        yield f"photo {h}x{w}+{left}+{top}", gray[top:top + h, left:left + w]


IMAGES = list(random_images()) + list(photo_crops())


@pytest.mark.parametrize("backend,threads", [("cpu-ref", 1), ("cpu", 1), ("cpu", 2), ("cpu", 3)])
def test_matches_pillow_convert_1(backend, threads):
    with Context(backend, threads=threads) as ctx:
        for name, gray in IMAGES:
            want_bytes, want_bits = pillow(gray)
            for algorithm in BACKEND_ALGORITHMS[backend]:
                got = skss_halftone(ctx, gray, algorithm, BYTES)
                assert np.array_equal(got, want_bytes), f"{name}, {algorithm}, bytes"
                got = skss_halftone(ctx, gray, algorithm, BITS)
                assert np.array_equal(got, want_bits), f"{name}, {algorithm}, bits"


def test_photo_is_not_trivial():
    """The photograph exercises both outcomes widely (guards the fixture)."""
    gray = np.asarray(Image.open(PHOTO).convert("L"))
    want_bytes, _ = pillow(gray)
    white = float(np.mean(want_bytes == 255))
    assert gray.shape == (512, 512) and 0.2 < white < 0.8
