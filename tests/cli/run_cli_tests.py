#!/usr/bin/env python3
"""Golden and error tests of the skss command-line tool (CTest label cli).

Each --group runs the built `skss` on small inputs and checks its outputs
three ways:
  1. against an independent oracle written here with NumPy (error diffusion
     from the kernels' published weights, cumulative sums, box means, a DP
     knapsack with the documented item rule, NumPy 2 comparisons);
  2. against MD5 goldens in golden/md5.txt, made from the cpu-ref backend
     with --update (PNG files are pinned by their decoded pixels, so another
     zlib cannot break them; PBM, PGM and .npy by their bytes);
  3. across every backend and algorithm that `skss info --json` lists (every
     variant must write the same bytes).
Error cases check the exit code, exactly one line on stderr, and that no
output file appears and an existing one is left untouched.

Needs only the standard library and NumPy (exit 77, skipped, without NumPy).
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
except ImportError:  # the CTest SKIP_RETURN_CODE
    print("numpy is not installed: skipping the CLI tests")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden")
MD5_FILE = os.path.join(GOLDEN_DIR, "md5.txt")

EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_UNAVAILABLE, EX_OSERR, EX_CANTCREAT, EX_IOERR = 64, 65, 66, 69, 71, 73, 74

# Error-diffusion kernels from the literature: (divisor, {(dy, dx): weight})
# for the share of the error that pixel (y, x) pushes to (y + dy, x + dx).
KERNELS = {
    "fs": (16, {(0, 1): 7, (1, -1): 3, (1, 0): 5, (1, 1): 1}),
    "jjn": (48, {(0, 1): 7, (0, 2): 5,
                 (1, -2): 3, (1, -1): 5, (1, 0): 7, (1, 1): 5, (1, 2): 3,
                 (2, -2): 1, (2, -1): 3, (2, 0): 5, (2, 1): 3, (2, 2): 1}),
    "stucki": (42, {(0, 1): 8, (0, 2): 4,
                    (1, -2): 2, (1, -1): 4, (1, 0): 8, (1, 1): 4, (1, 2): 2,
                    (2, -2): 1, (2, -1): 2, (2, 0): 4, (2, 1): 2, (2, 2): 1}),
    "burkes": (32, {(0, 1): 8, (0, 2): 4,
                    (1, -2): 2, (1, -1): 4, (1, 0): 8, (1, 1): 4, (1, 2): 2}),
    "sierra3": (32, {(0, 1): 5, (0, 2): 3,
                     (1, -2): 2, (1, -1): 4, (1, 0): 5, (1, 1): 4, (1, 2): 2,
                     (2, -1): 2, (2, 0): 3, (2, 1): 2}),
    "sierra2": (16, {(0, 1): 4, (0, 2): 3,
                     (1, -2): 1, (1, -1): 2, (1, 0): 3, (1, 1): 2, (1, 2): 1}),
    "sierra-lite": (4, {(0, 1): 2, (1, -1): 1, (1, 0): 1}),
    "atkinson": (8, {(0, 1): 1, (0, 2): 1, (1, -1): 1, (1, 0): 1, (1, 1): 1, (2, 0): 1}),
}


# --------------------------------------------------------------- file formats

def write_pgm(path, img, ascii_form=False):
    h, w = img.shape
    with open(path, "wb") as f:
        if ascii_form:
            f.write(b"P2\n# made by run_cli_tests.py\n%d %d\n255\n" % (w, h))
            for row in img:
                f.write((" ".join(str(int(v)) for v in row) + "\n").encode())
        else:
            f.write(b"P5\n%d %d\n255\n" % (w, h))
            f.write(img.astype(np.uint8).tobytes())


def pnm_tokens(data, count):
    """The first `count` header tokens of a PNM file and where the raster starts."""
    tokens, pos = [], 0
    while len(tokens) < count:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        tokens.append(data[pos:end])
        pos = end
    return tokens, pos + 1


def read_pgm(data):
    (magic, w, h, maxval), pos = pnm_tokens(data, 4)
    assert magic == b"P5" and maxval == b"255", (magic, maxval)
    w, h = int(w), int(h)
    assert len(data) == pos + w * h, "PGM size"
    return np.frombuffer(data[pos:], np.uint8).reshape(h, w)


def read_pbm(data):
    (magic, w, h), pos = pnm_tokens(data, 3)
    assert magic == b"P4", magic
    w, h = int(w), int(h)
    stride = (w + 7) // 8
    assert len(data) == pos + stride * h, "PBM size"
    bits = np.unpackbits(np.frombuffer(data[pos:], np.uint8).reshape(h, stride), axis=1)[:, :w]
    return np.where(bits == 1, 0, 255).astype(np.uint8)  # 1 = black


def png_rows(data):
    """Decodes a non-interlaced PNG: (IHDR fields, list of unfiltered rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG magic"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    w, h, depth, colour, _, _, interlace = ihdr
    assert interlace == 0, "interlaced PNG"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    bpp = max(1, depth * channels // 8)
    stride = (w * depth * channels + 7) // 8
    raw, rows, prev = zlib.decompress(idat), [], bytearray(stride)
    for y in range(h):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return ihdr, rows


def read_png_gray(data):
    """An 8-bit gray or 1-bit gray PNG as 0..255 pixels; RGB through Pillow's L formula."""
    (w, h, depth, colour, _, _, _), rows = png_rows(data)
    buf = np.frombuffer(b"".join(rows), np.uint8).reshape(h, -1)
    if colour == 0 and depth == 1:
        return np.where(np.unpackbits(buf, axis=1)[:, :w] == 1, 255, 0).astype(np.uint8)
    if colour == 0 and depth == 8:
        return buf.copy()
    assert colour == 2 and depth == 8, ("unsupported PNG", colour, depth)
    rgb = buf.reshape(h, w, 3).astype(np.uint32)
    return ((19595 * rgb[..., 0] + 38470 * rgb[..., 1] + 7471 * rgb[..., 2] + 0x8000) >> 16).astype(np.uint8)


def png_kind(data):
    (_, _, depth, colour, _, _, _), _ = png_rows(data)
    return depth, colour


# -------------------------------------------------------------------- oracles

def halftone_oracle(img, kernel, threshold=128):
    divisor, weights = KERNELS[kernel]
    h, w = img.shape
    err = [[0] * w for _ in range(h)]
    out = np.zeros((h, w), np.uint8)
    taps = [(dy, dx, wt) for (dy, dx), wt in weights.items()]
    pix = img.tolist()
    for y in range(h):
        for x in range(w):
            s = 0
            for dy, dx, wt in taps:
                sy, sx = y - dy, x - dx
                if sy >= 0 and 0 <= sx < w:
                    s += wt * err[sy][sx]
            q = abs(s) // divisor
            v = min(255, max(0, pix[y][x] + (q if s >= 0 else -q)))
            o = 255 if v > threshold else 0
            out[y, x] = o
            err[y][x] = v - o
    return out


def sat_oracle(a, out_dtype, padded, squared):
    """Inclusive or padded sums; integers modulo 2^32 as the library does."""
    if np.dtype(out_dtype).kind in "iu":
        x = a.astype(np.int64).astype(np.uint64)
        if squared:
            x = x * x
        s = x.cumsum(0, dtype=np.uint64).cumsum(1, dtype=np.uint64) & np.uint64(0xFFFFFFFF)
        s = s.astype(np.uint32).view(np.int32) if np.dtype(out_dtype) == np.int32 else s.astype(np.uint32)
    else:
        x = a.astype(np.float64)
        s = (x * x if squared else x).cumsum(0).cumsum(1).astype(out_dtype)
    if padded:
        s = np.pad(s, ((1, 0), (1, 0)))
    return s


def box_oracle(img, r, clip):
    h, w = img.shape
    p = np.zeros((h + 1, w + 1), np.int64)
    p[1:, 1:] = img.astype(np.int64).cumsum(0).cumsum(1)
    i, j = np.arange(h), np.arange(w)
    y0, y1 = np.maximum(0, i - r)[:, None], np.minimum(h, i + r + 1)[:, None]
    x0, x1 = np.maximum(0, j - r)[None, :], np.minimum(w, j + r + 1)[None, :]
    s = p[y1, x1] - p[y0, x1] - p[y1, x0] + p[y0, x0]
    n = (y1 - y0) * (x1 - x0) if clip else (2 * r + 1) ** 2
    return ((s + n // 2) // n).astype(np.uint8)


def knapsack_oracle(weights, values, capacity, with_items=True):
    """Optimal value and the documented item set: from the last item down, at
    the current capacity c, item j is taken iff V[c][j+1] != V[c][j]."""
    rows = [np.zeros(capacity + 1, np.int64)]
    for w, v in zip(weights, values):
        row = rows[-1].copy()
        if w <= capacity:
            row[w:] = np.maximum(row[w:], rows[-1][:capacity + 1 - w] + v)
        rows = rows + [row] if with_items else [row]
    best = int(rows[-1][capacity])
    if not with_items:
        return best, None
    taken, c = [], capacity
    for j in range(len(weights) - 1, -1, -1):
        if rows[j + 1][c] != rows[j][c]:
            taken.append(j)
            c -= weights[j]
    return best, sorted(taken)


def numpy_keep(a, pred, xs):
    """NumPy 2's answer for the predicate with Python scalars xs."""
    if pred == "gt":
        return a > xs[0]
    if pred == "ge":
        return a >= xs[0]
    if pred == "lt":
        return a < xs[0]
    if pred == "le":
        return a <= xs[0]
    if pred == "eq":
        return a == xs[0]
    if pred == "ne":
        return a != xs[0]
    if pred == "range":
        return (a >= xs[0]) & (a < xs[1])
    assert pred == "nonzero"
    return a != 0


def python_scalar(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


# -------------------------------------------------------------------- harness

class Tester:
    def __init__(self, args):
        self.skss = args.skss
        self.data = args.data
        self.update = args.update
        self.tmp = tempfile.mkdtemp(prefix="skss-cli-")
        self.failures = 0
        self.checks = 0
        self.goldens = {}
        self.new_goldens = {}
        if os.path.exists(MD5_FILE):
            with open(MD5_FILE) as f:
                for line in f:
                    if line.strip():
                        digest, name = line.split()
                        self.goldens[name] = digest
        info = json.loads(self.run(["info", "--json"])[1])
        self.info = info

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, args, stdin=None):
        p = subprocess.run([self.skss] + args, input=stdin, capture_output=True, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def check(self, cond, what):
        self.checks += 1
        if not cond:
            self.failures += 1
            print("FAIL:", what)
        return cond

    def run_ok(self, args, stdin=None):
        rc, out, err = self.run(args, stdin)
        self.check(rc == 0, "skss %s -> exit %d: %s" % (" ".join(args), rc, err.decode(errors="replace").strip()))
        return rc == 0, out, err

    def golden(self, name, digest, source_is_reference):
        """Checks (or, with --update from the reference run, records) a golden MD5."""
        if self.update and source_is_reference:
            self.new_goldens[name] = digest
            return
        want = self.new_goldens.get(name) or self.goldens.get(name)
        if self.check(want is not None, "no golden for %s (run with --update)" % name):
            self.check(digest == want, "%s: md5 %s, golden %s" % (name, digest, want))

    def variants(self, op):
        """Option lists covering every backend and algorithm of primitive `op`;
        the first is the reference (cpu-ref, auto)."""
        out = [["--backend", "cpu-ref"], ["--backend", "cpu", "--threads", "1"],
               ["--backend", "cpu", "--threads", "3"]]
        usable = [b for b, s in self.info["backends"].items() if s["available"]]
        if "cuda" in usable:
            out.append(["--backend", "cuda"])
        for alg, backends in self.info["algorithms"][op].items():
            for b in backends:
                if alg != "auto" and b in usable:
                    out.append(["--backend", b, "--algorithm", alg] + (["--threads", "2"] if b == "cpu" else []))
        return out

    def save_goldens(self):
        merged = dict(self.goldens)
        merged.update(self.new_goldens)
        os.makedirs(GOLDEN_DIR, exist_ok=True)
        with open(MD5_FILE, "w") as f:
            for name in sorted(merged):
                f.write("%s %s\n" % (merged[name], name))


def md5(data):
    return hashlib.md5(data).hexdigest()


def generated_image(h, w):
    """A deterministic gray test pattern: ramps, a checkerboard, flat areas."""
    y, x = np.mgrid[0:h, 0:w]
    img = (x * 255 // max(1, w - 1) + y * 37 + ((x // 3 + y // 3) % 2) * 61 + (x * y) % 17 * 5) % 256
    img[h // 3:h // 2, :] = 128
    img[:, w - 3:] = 255
    img[0, :] = 0
    return img.astype(np.uint8)


def astronaut_crop(t):
    with open(os.path.join(t.data, "astronaut.png"), "rb") as f:
        gray = read_png_gray(f.read())
    return np.ascontiguousarray(gray[64:128, 192:288])  # 96 x 64, the face


def inputs(t):
    """name -> (path, pixels) of the small gray test images."""
    gen = generated_image(23, 37)
    write_pgm(t.path("gen.pgm"), gen)
    write_pgm(t.path("gen_ascii.pgm"), gen, ascii_form=True)
    crop = astronaut_crop(t)
    write_pgm(t.path("crop.pgm"), crop)
    return {"gen": (t.path("gen.pgm"), gen), "crop": (t.path("crop.pgm"), crop)}


# ------------------------------------------------------------------ halftone

def decode_image(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".pbm"):
        return data, read_pbm(data)
    if path.endswith(".pgm"):
        return data, read_pgm(data)
    return data, read_png_gray(data)


def image_digest(path, data):
    """Files we encode ourselves by their bytes; PNG by decoded pixels."""
    if path.endswith(".png"):
        return md5(read_png_gray(data).tobytes())
    return md5(data)


def check_image_variants(t, name, args, variants, expected, want_png_kind=None, reference=True):
    """Runs `skss args + variant + [OUT]` (OUT with the extension of `name`)
    for each variant and checks every output against the `expected` pixels,
    the golden (recorded from the first variant when it is the reference),
    and the first variant's bytes."""
    first = None
    out = t.path("out" + os.path.splitext(name)[1])
    for k, variant in enumerate(variants):
        if os.path.exists(out):
            os.remove(out)
        ok, _, _ = t.run_ok(args + variant + [out])
        if not ok:
            continue
        data, pixels = decode_image(out)
        label = "%s %s" % (name, " ".join(variant))
        t.check(pixels.shape == expected.shape and (pixels == expected).all(), label + ": pixels differ from the oracle")
        if want_png_kind:
            t.check(png_kind(data) == want_png_kind, label + ": PNG kind %s" % (png_kind(data),))
        if first is None:
            first = data
            t.golden(name, image_digest(out, data), reference and k == 0)
        else:
            t.check(data == first, label + ": bytes differ from " + " ".join(variants[0]))


def group_halftone(t):
    imgs = inputs(t)
    base_variants = t.variants("halftone")[:4]
    for src, (path, img) in imgs.items():
        for kernel in KERNELS:
            thresholds = [128, 100] if kernel in ("fs", "jjn") and src == "gen" else [128]
            for thr in thresholds:
                expected = halftone_oracle(img, kernel, thr)
                for fmt in ("pgm", "pbm", "png"):
                    name = "halftone/%s/%s-t%d.%s" % (src, kernel, thr, fmt)
                    variants = t.variants("halftone") if fmt == "pgm" else base_variants[:2]
                    args = ["halftone", "--kernel", kernel, "--threshold", str(thr), path]
                    check_image_variants(t, name, args, variants, expected,
                                         (1, 0) if fmt == "png" else None)
    # P2 input, stdin input and stdout output give the same bytes as files.
    expected = halftone_oracle(imgs["gen"][1], "fs")
    check_image_variants(t, "halftone/gen/fs-t128.pgm", ["halftone", t.path("gen_ascii.pgm")],
                         [["--backend", "cpu"]], expected, reference=False)
    with open(imgs["gen"][0], "rb") as f:
        ok, out, err = t.run_ok(["halftone", "-", "-"], stdin=f.read())
    if ok:
        t.check((read_pbm(out) == expected).all(), "halftone - -: PBM on stdout differs")
        t.check(b"halftone" in err, "halftone - -: the report goes to stderr")
    photo(t)


def photo(t):
    """The bundled photograph, whole: Floyd-Steinberg and JJN goldens, and
    Pillow's convert('1') as a peer when Pillow is installed."""
    png = os.path.join(t.data, "astronaut.png")
    for kernel in ("fs", "jjn"):
        out = t.path("photo_%s.png" % kernel)
        first = None
        for k, variant in enumerate(t.variants("halftone")[:3]):
            ok, _, _ = t.run_ok(["halftone", "--kernel", kernel] + variant + [png, out])
            if not ok:
                continue
            data, pixels = decode_image(out)
            if first is None:
                first = pixels
                t.golden("halftone/astronaut/%s.png" % kernel, md5(pixels.tobytes()), k == 0)
            else:
                t.check((pixels == first).all(), "photo %s %s differs" % (kernel, variant))
        if kernel == "fs" and first is not None:
            try:
                from PIL import Image
            except ImportError:
                continue
            peer = np.array(Image.open(png).convert("L").convert("1"), dtype=np.uint8) * 255
            t.check((peer == first).all(), "photo fs differs from Pillow's convert('L').convert('1')")


# ----------------------------------------------------------------------- sat

def sat_inputs(t):
    rng = np.random.default_rng(20240611)
    arrays = {
        "i32": rng.integers(-1000, 1000, (13, 29)).astype(np.int32),
        "u32": rng.integers(0, 2**32, (7, 11), dtype=np.uint64).astype(np.uint32),  # wraps
        "f32": rng.integers(-100, 100, (13, 29)).astype(np.float32),  # exact sums
        "f64": (rng.integers(-2**20, 2**20, (11, 17)) / 1024.0).astype(np.float64),
        "u8": rng.integers(0, 256, (1, 31)).astype(np.uint8),  # 1 x N
    }
    paths = {}
    for name, a in arrays.items():
        paths[name] = t.path("sat_%s.npy" % name)
        np.save(paths[name], a)
    return arrays, paths


def check_sat_case(t, name, in_path, in_array, out_type, layout, squared, extra=()):
    first = None
    padded = layout == "padded"
    expected = sat_oracle(in_array, out_type, padded, False)
    expected_sq = sat_oracle(in_array, out_type, padded, True) if squared else None
    for k, variant in enumerate(t.variants("sat")):
        out, sq = t.path("sat_out.npy"), t.path("sat_out.sq.npy")
        for p in (out, sq):
            if os.path.exists(p):
                os.remove(p)
        args = ["sat", "--layout", layout] + list(extra) + (["--squared"] if squared else []) + variant
        ok, _, _ = t.run_ok(args + [in_path, out])
        if not ok:
            continue
        got = np.load(out)
        label = "%s %s" % (name, " ".join(variant))
        t.check(got.dtype == np.dtype(out_type) and got.shape == expected.shape and (got == expected).all(),
                label + ": sums differ from the oracle")
        with open(out, "rb") as f:
            data = f.read()
        if squared:
            t.check(os.path.exists(sq) and (np.load(sq) == expected_sq).all(), label + ": squared sums differ")
            with open(sq, "rb") as f:
                data += f.read()
        if first is None:
            first = data
            t.golden(name, md5(data), k == 0)
        else:
            t.check(data == first, label + ": bytes differ from cpu-ref")


def group_sat(t):
    imgs = inputs(t)
    gen_path, gen = imgs["gen"]
    for out_type, squared in (("u32", True), ("i32", False), ("f32", False), ("f64", True)):
        for layout in ("inclusive", "padded"):
            name = "sat/gen/u8-%s-%s%s.npy" % (out_type, layout, "-sq" if squared else "")
            dtype = {"u32": np.uint32, "i32": np.int32, "f32": np.float32, "f64": np.float64}[out_type]
            check_sat_case(t, name, gen_path, gen, dtype, layout, squared, ["--type", "u8:" + out_type])
    arrays, paths = sat_inputs(t)
    natural = {"i32": np.int32, "u32": np.uint32, "f32": np.float32, "f64": np.float64, "u8": np.uint32}
    for key, a in arrays.items():  # default --type: the dtype's natural pair
        squared = key in ("i32", "u32", "u8")
        check_sat_case(t, "sat/npy/%s-natural.npy" % key, paths[key], a, natural[key], "inclusive", squared)
    check_sat_case(t, "sat/npy/f32-f64-padded.npy", paths["f32"], arrays["f32"], np.float64, "padded", True,
                   ["--type", "f32:f64"])
    # --squared-out, and the wrap warning on stderr (a warning, not a failure).
    ok, _, err = t.run_ok(["sat", "--squared-out", t.path("sq_only.npy"), gen_path, t.path("s.npy")])
    if ok:
        t.check((np.load(t.path("sq_only.npy")) == sat_oracle(gen, np.uint32, False, True)).all(),
                "--squared-out content")
    ok, out, err = t.run_ok(["sat", "--json", "--type", "u32:u32", paths["u32"], t.path("s.npy")])
    if ok:
        report = json.loads(out)
        t.check(report["can_wrap"] is True and b"warning" in err, "sat u32: can_wrap reported and warned")


# ----------------------------------------------------------------- boxfilter

def group_boxfilter(t):
    imgs = inputs(t)
    for src, (path, img) in imgs.items():
        for radius in (0, 1, 2, 5, 40):
            for border in ("clip", "zero"):
                expected = box_oracle(img, radius, border == "clip")
                for fmt in ("pgm", "png"):
                    name = "boxfilter/%s/r%d-%s.%s" % (src, radius, border, fmt)
                    variants = t.variants("sat") if fmt == "pgm" and radius in (2, 40) else t.variants("sat")[:2]
                    check_image_variants(t, name, ["boxfilter", "--radius", str(radius), "--border", border,
                                                   path], variants, expected,
                                         (8, 0) if fmt == "png" else None)


# ------------------------------------------------------------------ knapsack

SMALL_ITEMS = [(1, 10, 5), (2, 40, 4), (3, 30, 6), (4, 50, 3), (5, 7, 1), (6, 0, 0), (7, 13, 0),
               (8, 25, 7), (9, 25, 7), (10, 1, 11), (11, 33, 5), (12, 8, 2)]  # id value weight
SMALL_CAPACITY = 20


def write_instance(path, items, capacity):
    with open(path, "w") as f:
        f.write("%d\n" % len(items))
        for i, v, w in items:
            f.write("%d %d %d\n" % (i, v, w))
        f.write("%d\n" % capacity)


def strip_run_info(text):
    """The text report without its backend/time line."""
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("backend "))


def check_knapsack_golden(t, name, args, reference_text):
    first = None
    for k, variant in enumerate(t.variants("knapsack")):
        ok, out, _ = t.run_ok(["knapsack"] + variant + args)
        if not ok:
            continue
        text = strip_run_info(out.decode())
        if "--json" in args:
            report = json.loads(out)
            for key in ("backend", "threads", "algorithm", "time_ms"):
                report.pop(key, None)
            text = json.dumps(report, sort_keys=True) + "\n"
        if first is None:
            first = text
            golden_path = os.path.join(GOLDEN_DIR, name)
            if t.update and k == 0:
                with open(golden_path, "w") as f:
                    f.write(text)
            if t.check(os.path.exists(golden_path), "no golden %s" % name):
                with open(golden_path) as f:
                    t.check(f.read() == text, "%s: output differs from the golden:\n%s" % (name, text))
            if reference_text is not None:
                t.check(reference_text == text, "%s: output differs from the oracle's:\n%s" % (name, text))
        else:
            t.check(text == first, "%s %s: output differs from cpu-ref" % (name, variant))


def group_knapsack(t):
    path = t.path("small.txt")
    write_instance(path, SMALL_ITEMS, SMALL_CAPACITY)
    weights = [w for _, _, w in SMALL_ITEMS]
    values = [v for _, v, _ in SMALL_ITEMS]
    best, taken = knapsack_oracle(weights, values, SMALL_CAPACITY)
    ids = [SMALL_ITEMS[j][0] for j in taken]
    text = ("knapsack: %d items, capacity %d\noptimal value: %d\ntotal weight: %d\nchosen items (%d):%s\n"
            % (len(SMALL_ITEMS), SMALL_CAPACITY, best, sum(weights[j] for j in taken), len(ids),
               "".join(" %d" % i for i in ids)))
    check_knapsack_golden(t, "knapsack_small.txt", [path], text)
    report = {"command": "knapsack", "value": best, "weight": sum(weights[j] for j in taken), "items": ids,
              "n": len(SMALL_ITEMS), "capacity": SMALL_CAPACITY}
    check_knapsack_golden(t, "knapsack_small.json", ["--json", path], json.dumps(report, sort_keys=True) + "\n")
    # --capacity replaces the file's; CSV needs it; --value-only.
    best7, taken7 = knapsack_oracle(weights, values, 7)
    ok, out, _ = t.run_ok(["knapsack", "--json", "--capacity", "7", path])
    if ok:
        t.check(json.loads(out)["value"] == best7 and json.loads(out)["items"] == [SMALL_ITEMS[j][0] for j in taken7],
                "--capacity 7")
    csv = t.path("small.csv")
    with open(csv, "w") as f:
        f.write("weight,value\n" + "".join("%d,%d\n" % (w, v) for _, v, w in SMALL_ITEMS))
    ok, out, _ = t.run_ok(["knapsack", "--json", "--capacity", str(SMALL_CAPACITY), csv])
    if ok:
        t.check(json.loads(out)["items"] == [j + 1 for j in taken], "CSV ids are line numbers")
    ok, out, _ = t.run_ok(["knapsack", "--json", "--value-only", path])
    if ok:
        r = json.loads(out)
        t.check(r["value"] == best and "items" not in r, "--value-only")
    bundled(t)


def bundled(t):
    """The bundled 1000-item instance: optimum from a NumPy DP, a valid set."""
    path = os.path.join(t.data, "knapsack_sc_1000.txt")
    with open(path) as f:
        nums = [int(x) for x in f.read().split()]
    n, capacity = nums[0], nums[-1]
    items = [tuple(nums[1 + 3 * k:4 + 3 * k]) for k in range(n)]
    weights = {i: w for i, _, w in items}
    values = {i: v for i, v, _ in items}
    best, _ = knapsack_oracle([w for _, _, w in items], [v for _, v, _ in items], capacity, with_items=False)
    for variant in (["--backend", "cpu"], ["--backend", "cpu-ref"], ["--backend", "cpu-ref", "--algorithm", "core"],
                    ["--backend", "cpu", "--algorithm", "core", "--time-limit", "60000"],
                    ["--backend", "cpu", "--algorithm", "dp"]):
        ok, out, _ = t.run_ok(["knapsack", "--json"] + variant + [path])
        if ok:
            r = json.loads(out)
            chosen = r["items"]
            t.check(r["value"] == best == sum(values[i] for i in chosen), "bundled instance optimum %s" % variant)
            t.check(r["weight"] == sum(weights[i] for i in chosen) <= capacity, "bundled instance weight")
    # Decision bits of 1000 x 255052 capacities (32 MB) over a 16M limit: the items come from
    # value-row checkpoints, the same items as with all the bits; 2M is too little even for those.
    ok, full, _ = t.run_ok(["knapsack", "--json", "--backend", "cpu", "--algorithm", "dp", path])
    ok2, low, _ = t.run_ok(["knapsack", "--json", "--backend", "cpu", "--algorithm", "dp", "--max-memory", "16M",
                            path])
    expect_error(t, "--time-limit 0", ["knapsack", "--time-limit", "0", path], 64)
    if ok and ok2:
        strip = lambda r: {k: v for k, v in json.loads(r).items() if k != "time_ms"}  # noqa: E731
        t.check(strip(low) == strip(full), "--max-memory 16M: the same items from checkpoints")
    # --values-by-capacity: the optimum for every capacity, from the same pass as the items.
    table_path = t.path("table.npy")
    ok, out, _ = t.run_ok(["knapsack", "--json", "--capacity", "3000", "--values-by-capacity", table_path, path])
    if ok:
        table = np.load(table_path)
        row = np.zeros(3001, np.int64)  # the textbook DP's last row
        for _, v, w in items:
            if w <= 3000:
                row[w:] = np.maximum(row[w:], row[:3001 - w] + v)
        t.check(table.dtype == np.int64 and table.shape == (3001,) and bool(np.array_equal(table, row))
                and table[-1] == json.loads(out)["value"], "--values-by-capacity table")
    expect_error(t, "--values-by-capacity to stdout", ["knapsack", "--values-by-capacity", "-", path], 64)
    expect_error(t, "--values-by-capacity not .npy", ["knapsack", "--values-by-capacity", t.path("t.txt"), path],
                 64, outputs=[t.path("t.txt")])
    expect_error(t, "too little memory even for checkpoints",
                 ["knapsack", "--algorithm", "dp", "--max-memory", "2M", path], 71)
    rc, _, err = t.run(["knapsack", "--algorithm", "dp", "--max-memory", "2M", path])
    t.check(b"reconstructing from checkpoints" in err, "the 2M error names the checkpoints' need: %r" % err)


# ------------------------------------------------------------------- compact

COMPACT_DTYPES = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bool"]
NP_DTYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
             "i32": np.int32, "u64": np.uint64, "i64": np.int64, "f32": np.float32, "f64": np.float64,
             "bool": np.bool_}
SCALARS = ["2", "2.5", "-2.5", "-1", "0.1", "nan", "inf", "-inf"]


def scalars_for(dtype):
    """The common scalars plus the dtype's edges: min, max and one beyond each."""
    if dtype in ("f32", "f64"):
        return SCALARS + ["300", "1e30", "18446744073709551621"]
    info = np.iinfo(np.uint8 if dtype == "bool" else NP_DTYPES[dtype])
    edges = [int(info.min), int(info.max), int(info.min) - 1, int(info.max) + 1]
    return SCALARS + [str(e) for e in edges] + ["-99999999999999999999999999"]


RANGES = [("2", "7"), ("7", "2"), ("-1.5", "3.5"), ("nan", "3"), ("-300", "300"), ("0", "1e30")]


def compact_array(dtype):
    """50 values in a (5, 10) array: small numbers and the dtype's extremes."""
    rng = np.random.default_rng(7)
    if dtype == "bool":
        return rng.integers(0, 2, (5, 10)).astype(np.bool_)
    t = NP_DTYPES[dtype]
    small = rng.integers(-5, 9, 50)
    if np.dtype(t).kind == "f":
        a = small.astype(t) / 2
        a[[3, 17, 29, 41]] = [np.nan, np.inf, -np.inf, np.finfo(t).max]
        a[44] = 0.1
        return a.reshape(5, 10)
    info = np.iinfo(t)
    a = np.clip(small, info.min, info.max).astype(t)
    a[[5, 23, 37]] = [info.min, info.max, info.max - 1]
    return a.reshape(5, 10)


def compact_cases(dtype):
    for op in ("gt", "ge", "lt", "le", "eq", "ne"):
        for x in scalars_for(dtype):
            yield op, [x]
    for lo, hi in RANGES:
        yield "range", [lo, hi]
    yield "nonzero", []


def group_compact(t):
    rng = np.random.default_rng(3)
    variants = t.variants("compact")
    for dtype in COMPACT_DTYPES:
        a = compact_array(dtype)
        src = t.path("compact_%s.npy" % dtype)
        np.save(src, a)
        flat = a.reshape(-1)
        for k, (op, xs) in enumerate(compact_cases(dtype)):
            try:
                keep = numpy_keep(flat, op, [python_scalar(x) for x in xs])
            except OverflowError:  # NumPy itself refuses (bool vs a huge int)
                continue
            variant = variants[k % len(variants)]
            out, idx = t.path("c_out.npy"), t.path("c_idx.npy")
            opt = ["--" + op] + xs
            ok, stdout, _ = t.run_ok(["compact", "--json"] + opt + variant + ["--indices", idx, src, out])
            if not ok:
                continue
            label = "compact %s %s %s" % (dtype, " ".join(opt), " ".join(variant))
            values, indices = np.load(out), np.load(idx)
            want = flat[keep]
            same = values.shape == want.shape and np.array_equal(values.astype(want.dtype), want, equal_nan=True)
            t.check(same, label + ": values %s, NumPy %s" % (values[:8], want[:8]))
            t.check(np.array_equal(indices, np.flatnonzero(keep)), label + ": indices")
            t.check(json.loads(stdout)["count"] == int(keep.sum()), label + ": count")
    compact_mask_and_goldens(t, rng, variants)


def compact_mask_and_goldens(t, rng, variants):
    a = rng.integers(-50, 50, (6, 7)).astype(np.int32)
    np.save(t.path("g_i32.npy"), a)
    mask = rng.integers(0, 2, 42).astype(np.bool_).reshape(7, 6)  # same count, other shape
    np.save(t.path("g_mask.npy"), mask)
    np.save(t.path("g_mask_u8.npy"), mask.astype(np.uint8) * 3)
    f = (rng.standard_normal(40) * 10).astype(np.float32)
    np.save(t.path("g_f32.npy"), f)
    cases = [("compact/i32-gt2.5", ["--gt", "2.5"], "g_i32.npy", a.reshape(-1) > 2.5),
             ("compact/i32-mask", ["--mask", t.path("g_mask.npy")], "g_i32.npy", mask.reshape(-1)),
             ("compact/i32-mask-u8", ["--mask", t.path("g_mask_u8.npy")], "g_i32.npy", mask.reshape(-1)),
             ("compact/f32-range", ["--range", "-3.5", "7"], "g_f32.npy", (f >= -3.5) & (f < 7)),
             ("compact/f32-nonzero", ["--nonzero"], "g_f32.npy", f != 0)]
    for name, opt, src, keep in cases:
        first = None
        data_in = np.load(t.path(src)).reshape(-1)
        for k, variant in enumerate(variants):
            out, idx = t.path("g_out.npy"), t.path("g_idx.npy")
            ok, _, _ = t.run_ok(["compact"] + opt + variant + ["--indices", idx, t.path(src), out])
            if not ok:
                continue
            t.check(np.array_equal(np.load(out), data_in[keep]) and np.array_equal(np.load(idx), np.flatnonzero(keep)),
                    "%s %s: differs from NumPy" % (name, variant))
            with open(out, "rb") as fo, open(idx, "rb") as fi:
                data = fo.read() + fi.read()
            if first is None:
                first = data
                t.golden(name, md5(data), k == 0)
            else:
                t.check(data == first, "%s %s: bytes differ from cpu-ref" % (name, variant))
    # 0-d and empty arrays.
    np.save(t.path("scalar.npy"), np.array(5, np.int16))
    ok, out, _ = t.run_ok(["compact", "--json", "--gt", "4", t.path("scalar.npy"), t.path("o.npy")])
    t.check(ok and json.loads(out)["count"] == 1 and np.load(t.path("o.npy")).tolist() == [5], "0-d array")
    np.save(t.path("empty.npy"), np.zeros((0, 3), np.float64))
    ok, out, _ = t.run_ok(["compact", "--json", "--nonzero", t.path("empty.npy"), t.path("o.npy")])
    t.check(ok and json.loads(out)["count"] == 0 and np.load(t.path("o.npy")).shape == (0,), "empty array")


# --------------------------------------------------------------------- align

ALIGN_A = ">a example\nACGTTGCAACGTAGGCTA\n\nGGCATTACGT\n>ignored\nTTTT\n"
ALIGN_B = ">b example\r\nacgtgcaacgaaagctaggcattagg\r\n"


def fasta_seq(text):
    """The first record's letters, as skss reads them."""
    lines = text.replace("\r", "").split("\n")
    out = []
    for line in lines[1:]:
        if line.startswith(">"):
            break
        out.append(line.strip())
    return "".join(out).upper()


def gotoh_oracle(a, b, match, mismatch, o, e, mode):
    """Best score, end (smallest i, then j) and, by trying every start,
    begin (largest i, then j); mismatch is a penalty, as on the command line."""
    neg = float("-inf")

    def table(x, y, free):
        m, n = len(x), len(y)
        H = [[0] * (n + 1) for _ in range(m + 1)]
        E = [[neg] * (n + 1) for _ in range(m + 1)]
        F = [[neg] * (n + 1) for _ in range(m + 1)]
        for i in range(m + 1):
            for j in range(n + 1):
                if i == 0 and j == 0:
                    continue
                if i == 0:
                    E[i][j] = neg if free else -(o + (j - 1) * e)
                    H[i][j] = 0 if free else E[i][j]
                elif j == 0:
                    F[i][j] = neg if free else -(o + (i - 1) * e)
                    H[i][j] = 0 if free else F[i][j]
                else:
                    E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
                    F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
                    s = match if x[i - 1] == y[j - 1] else -mismatch
                    H[i][j] = max(H[i - 1][j - 1] + s, E[i][j], F[i][j])
                    if mode == "local":
                        H[i][j] = max(H[i][j], 0)
        return H

    m, n = len(a), len(b)
    if mode == "global":
        return table(a, b, False)[m][n], (0, m, 0, n)
    H = table(a, b, True)
    best, end = None, None
    for i in range(m + 1):
        for j in range(n + 1):
            if (mode == "local" or i == m or j == n) and (best is None or H[i][j] > best):
                best, end = H[i][j], (i, j)
    for i in range(end[0], -1, -1):
        for j in range(end[1], -1, -1):
            if (mode == "local" or i == 0 or j == 0) and table(a[i:end[0]], b[j:end[1]], False)[-1][-1] == best:
                return best, (i, end[0], j, end[1])
    raise AssertionError("no begin")


def cigar_score(cigar, a, b, a0, b0, match, mismatch, o, e):
    """Re-scores a CIGAR from a[a0], b[b0]: (score, letters of a, letters of b)."""
    import re
    score, i, j = 0, a0, b0
    for count, op in re.findall(r"(\d+)([=XID])", cigar):
        count = int(count)
        if op in "=X":
            for _ in range(count):
                if (a[i] == b[j]) != (op == "="):
                    raise ValueError("op %s at a[%d], b[%d]" % (op, i, j))
                score += match if op == "=" else -mismatch
                i, j = i + 1, j + 1
        else:
            score -= o + (count - 1) * e
            i, j = (i + count, j) if op == "I" else (i, j + count)
    return score, i - a0, j - b0


def group_align(t):
    pa, pb = t.path("a.fa"), t.path("b.fa")
    with open(pa, "w", newline="") as f:
        f.write(ALIGN_A)
    with open(pb, "w", newline="") as f:
        f.write(ALIGN_B)
    a, b = fasta_seq(ALIGN_A), fasta_seq(ALIGN_B)
    for mode in ("global", "local", "semi-global"):
        score, (a0, a1, b0, b1) = gotoh_oracle(a, b, 2, 3, 5, 2, mode)
        golden = None
        for k, variant in enumerate(t.variants("align")):
            ok, out, _ = t.run_ok(["align", "--json", "--" + mode] + variant + [pa, pb])
            if not ok:
                continue
            r = json.loads(out)
            t.check((r["score"], r["a_begin"], r["a_end"], r["b_begin"], r["b_end"]) == (score, a0, a1, b0, b1),
                    "align %s %s: %r, oracle %r" % (mode, variant, r, (score, a0, a1, b0, b1)))
            t.check(cigar_score(r["cigar"], a, b, a0, b0, 2, 3, 5, 2) == (score, a1 - a0, b1 - b0),
                    "align %s %s: the CIGAR re-scores to the score over the ranges" % (mode, variant))
            if k == 0:
                ok, text, _ = t.run_ok(["align", "--" + mode] + variant + [pa, pb])
                golden = strip_run_info(text.decode())
        name = "align_%s.txt" % mode
        golden_path = os.path.join(GOLDEN_DIR, name)
        if golden is not None:
            if t.update:
                with open(golden_path, "w") as f:
                    f.write(golden)
            if t.check(os.path.exists(golden_path), "no golden %s" % name):
                with open(golden_path) as f:
                    t.check(f.read() == golden, "%s: cpu-ref output differs from the golden:\n%s" % (name, golden))
        ok, out, _ = t.run_ok(["align", "--json", "--score-only", "--" + mode, pa, pb])
        if ok:
            r = json.loads(out)
            t.check(r["score"] == score and (r["a_end"], r["b_end"]) == (a1, b1) and "cigar" not in r,
                    "align --score-only " + mode)
    # Other scores, BLOSUM62 and protein letters, stdin.
    ok, out, _ = t.run_ok(["align", "--json", "--match", "1", "--mismatch", "0", "--gap-open", "0",
                           "--gap-extend", "0", pa, pb])
    t.check(ok and json.loads(out)["score"] == gotoh_oracle(a, b, 1, 0, 0, 0, "global")[0], "align free gaps")
    with open(pa, "rb") as f:
        ok, out, _ = t.run_ok(["align", "--json", "--local", "-", pb], stdin=f.read())
    t.check(ok and json.loads(out)["score"] == gotoh_oracle(a, b, 2, 3, 5, 2, "local")[0], "align from stdin")
    prot = t.path("p.fa")
    with open(prot, "w") as f:
        f.write(">p\nMKWVTFISLLFLFSSAYS\nRGVFRRDTHKSEIAHRFKDLGE*\n")
    ok, out, _ = t.run_ok(["align", "--json", "--matrix", "blosum62", prot, prot])
    t.check(ok and json.loads(out)["cigar"] == "41=", "align protein with itself")
    errors = {"bad.fa": ">x\nACGU\n", "empty.fa": "", "noletters.fa": ">x\n\n>y\nACGT\n", "nohdr.fa": "ACGT\n",
              "blank.fa": "\n \n"}
    for name, text in errors.items():
        with open(t.path(name), "w") as f:
            f.write(text)
        expect_error(t, "align " + name, ["align", pa, t.path(name)], EX_DATAERR)
    expect_error(t, "align protein letter as DNA", ["align", pa, prot], EX_DATAERR)
    expect_error(t, "align missing", ["align", pa, t.path("missing.fa")], EX_NOINPUT)
    expect_error(t, "align two stdin", ["align", "-", "-"], EX_USAGE)
    expect_error(t, "align one file", ["align", pa], EX_USAGE)
    expect_error(t, "align two modes", ["align", "--local", "--semi-global", pa, pb], EX_USAGE)
    expect_error(t, "align extend above open", ["align", "--gap-open", "1", "--gap-extend", "2", pa, pb], EX_USAGE)
    expect_error(t, "align negative mismatch", ["align", "--mismatch", "-3", pa, pb], EX_USAGE)
    expect_error(t, "align unknown matrix", ["align", "--matrix", "pam250", pa, pb], EX_USAGE)
    expect_error(t, "align matrix and match", ["align", "--matrix", "blosum62", "--match", "1", pa, pb], EX_USAGE)
    expect_error(t, "align int32 range", ["align", "--match", "2000000000", pa, pb], EX_DATAERR)
    expect_error(t, "align algorithm on cpu-ref", ["align", "--backend", "cpu-ref", "--algorithm", "taskarray-cpu",
                                                   pa, pb], EX_UNAVAILABLE)


# -------------------------------------------------------------------- errors

def expect_error(t, what, args, code, outputs=(), stdin=None):
    """A failing run: exit `code`, one stderr line, outputs absent; then again
    with the outputs already present: they must be left untouched."""
    for existing in (False, True):
        for p in outputs:
            if os.path.exists(p):
                os.remove(p)
            if existing:
                with open(p, "wb") as f:
                    f.write(b"keep me")
        before = set(os.listdir(t.tmp))
        rc, out, err = t.run(args, stdin)
        label = "%s (skss %s)" % (what, " ".join(args))
        t.check(rc == code, "%s: exit %d, want %d (stderr: %s)" % (label, rc, code, err.decode(errors="replace")))
        lines = err.decode(errors="replace").split("\n")
        t.check(len(lines) == 2 and lines[1] == "" and lines[0].startswith("skss"),
                "%s: stderr is not exactly one line: %r" % (label, err))
        for p in outputs:
            if existing:
                with open(p, "rb") as f:
                    t.check(f.read() == b"keep me", "%s: existing %s was changed" % (label, p))
            else:
                t.check(not os.path.exists(p), "%s: %s was created" % (label, p))
        leftovers = set(os.listdir(t.tmp)) - before
        t.check(not leftovers, "%s: files left behind: %s" % (label, sorted(leftovers)))
        if not outputs:
            break


def bad_inputs(t):
    """name -> path of malformed inputs."""
    with open(os.path.join(t.data, "astronaut.png"), "rb") as f:
        png = f.read()
    gen = generated_image(23, 37)
    files = {
        "truncated.png": png[:len(png) // 3],
        "truncated.pgm": b"P5\n37 23\n255\n" + gen.tobytes()[:500],
        "magic.pgm": b"XY\n37 23\n255\n" + gen.tobytes(),
        "huge.pgm": b"P5\n1000000000 1000000000\n255\n" + b"\0" * 64,
        "empty.png": b"",
        "bad.txt": b"3\n1 10 5\n2 x 4\n",
        "bad.npy": b"\x93NUMPY\x01\x00" + b"garbage",
    }
    for name, data in files.items():
        with open(t.path(name), "wb") as f:
            f.write(data)
    np.save(t.path("f64.npy"), np.zeros((3, 4)))
    np.save(t.path("i32_3d.npy"), np.zeros((2, 3, 4), np.int32))
    np.save(t.path("i32.npy"), np.arange(12, dtype=np.int32))
    np.save(t.path("mask11.npy"), np.ones(11, np.bool_))
    np.save(t.path("mask_f32.npy"), np.ones(12, np.float32))
    return files


def group_errors(t):
    inputs(t)
    bad_inputs(t)
    gen, out, sq = t.path("gen.pgm"), t.path("e_out.pgm"), t.path("e_out.sq.npy")
    npy_out, idx = t.path("e_out.npy"), t.path("e_idx.npy")
    missing_dir = t.path("no/such/dir/out.pgm")
    for src, code in (("missing.png", EX_NOINPUT), ("truncated.png", EX_DATAERR), ("truncated.pgm", EX_DATAERR),
                      ("magic.pgm", EX_DATAERR), ("huge.pgm", EX_DATAERR), ("empty.png", EX_DATAERR)):
        expect_error(t, "halftone " + src, ["halftone", t.path(src), out], code, [out])
        expect_error(t, "boxfilter " + src, ["boxfilter", "--radius", "1", t.path(src), out], code, [out])
        expect_error(t, "sat " + src, ["sat", "--squared", t.path(src), npy_out], code, [npy_out, sq])
    for thr in ("nan", "NaN", "1e9", "12.5", "abc", "256", "-1", "", " 12", "12 ", "0x10", "inf"):
        expect_error(t, "threshold " + thr, ["halftone", "--threshold", thr, gen, out], EX_USAGE, [out])
    for radius in ("-1", "-0.5", "1.5", "nan", "99999999999999999999"):
        expect_error(t, "radius " + radius, ["boxfilter", "--radius", radius, gen, out], EX_USAGE, [out])
    expect_error(t, "no radius", ["boxfilter", gen, out], EX_USAGE, [out])
    expect_error(t, "capacity overflow", ["knapsack", "--capacity", "99999999999999999999",
                                          os.path.join(t.data, "knapsack_sc_1000.txt")], EX_USAGE)
    expect_error(t, "negative capacity", ["knapsack", "--capacity", "-5", t.path("bad.txt")], EX_USAGE)
    expect_error(t, "bad knapsack", ["knapsack", t.path("bad.txt")], EX_DATAERR)
    expect_error(t, "missing knapsack", ["knapsack", t.path("missing.txt")], EX_NOINPUT)
    expect_error(t, "sat dtype mismatch", ["sat", "--type", "u8:u32", t.path("f64.npy"), npy_out], EX_DATAERR,
                 [npy_out])
    expect_error(t, "sat type for image", ["sat", "--type", "f32:f32", gen, npy_out], EX_DATAERR, [npy_out])
    expect_error(t, "sat 3-D", ["sat", t.path("i32_3d.npy"), npy_out], EX_DATAERR, [npy_out])
    expect_error(t, "sat bad npy", ["sat", t.path("bad.npy"), npy_out], EX_DATAERR, [npy_out])
    expect_error(t, "sat unknown type", ["sat", "--type", "u8:u16", gen, npy_out], EX_USAGE, [npy_out])
    expect_error(t, "sat unknown layout", ["sat", "--layout", "diag", gen, npy_out], EX_USAGE, [npy_out])
    expect_error(t, "mask length", ["compact", "--mask", t.path("mask11.npy"), t.path("i32.npy"), npy_out],
                 EX_DATAERR, [npy_out])
    expect_error(t, "mask dtype", ["compact", "--mask", t.path("mask_f32.npy"), t.path("i32.npy"), npy_out],
                 EX_DATAERR, [npy_out])
    expect_error(t, "two predicates", ["compact", "--gt", "1", "--lt", "3", t.path("i32.npy"), npy_out],
                 EX_USAGE, [npy_out])
    expect_error(t, "no predicate", ["compact", t.path("i32.npy"), npy_out], EX_USAGE, [npy_out])
    for x in ("abc", "1e", "--", "0x10", "1,5", "infinity"):
        expect_error(t, "compact scalar " + x, ["compact", "--gt", x, t.path("i32.npy"), npy_out], EX_USAGE,
                     [npy_out])
    expect_error(t, "compact missing", ["compact", "--nonzero", t.path("missing.npy"), npy_out], EX_NOINPUT,
                 [npy_out])
    for cmd, alg in (("halftone", "foo"), ("sat", "ed"), ("knapsack", "loop"), ("compact", "dp")):
        args = {"halftone": [gen, out], "sat": [gen, npy_out], "knapsack": [t.path("bad.txt")],
                "compact": ["--nonzero", t.path("i32.npy"), npy_out]}[cmd]
        outs = [a for a in args if a in (out, npy_out)]
        expect_error(t, cmd + " unknown algorithm", [cmd, "--algorithm", alg] + args, EX_USAGE, outs)
        expect_error(t, cmd + " unknown option", [cmd, "--frobnicate"] + args, EX_USAGE, outs)
        expect_error(t, cmd + " unknown backend", [cmd, "--backend", "gpu"] + args, EX_USAGE, outs)
        expect_error(t, cmd + " bad threads", [cmd, "--threads", "-2"] + args, EX_USAGE, outs)
        expect_error(t, cmd + " too many threads", [cmd, "--threads", "100000"] + args, EX_USAGE, outs)
    expect_error(t, "algorithm not on backend", ["halftone", "--backend", "cpu-ref", "--algorithm", "taskarray-cpu",
                                                 gen, out], EX_UNAVAILABLE, [out])
    if not t.info["backends"]["cuda"]["available"]:
        expect_error(t, "cuda unavailable", ["halftone", "--backend", "cuda", gen, out], EX_UNAVAILABLE, [out])
    expect_error(t, "unknown kernel", ["halftone", "--kernel", "fsx", gen, out], EX_USAGE, [out])
    expect_error(t, "unknown extension", ["halftone", gen, t.path("e_out.jpg")], EX_USAGE, [t.path("e_out.jpg")])
    expect_error(t, "gray as PBM", ["boxfilter", "--radius", "1", gen, t.path("e_out.pbm")], EX_USAGE,
                 [t.path("e_out.pbm")])
    expect_error(t, "missing argument", ["halftone", gen], EX_USAGE)
    expect_error(t, "extra argument", ["halftone", gen, out, out], EX_USAGE, [out])
    expect_error(t, "option needs a value", ["halftone", gen, out, "--kernel"], EX_USAGE, [out])
    expect_error(t, "unwritable output", ["halftone", gen, missing_dir], EX_CANTCREAT)
    # Two outputs: when the second cannot be written, the first must not appear.
    expect_error(t, "unwritable squared output", ["sat", "--squared-out", t.path("no/dir/sq.npy"), gen, npy_out],
                 EX_CANTCREAT, [npy_out])
    expect_error(t, "unwritable indices", ["compact", "--nonzero", "--indices", t.path("no/dir/i.npy"),
                                           t.path("i32.npy"), npy_out], EX_CANTCREAT, [npy_out])
    np.save(t.path("u32.npy"), np.zeros((3, 4), np.uint32))  # the SAT warns that it can wrap
    expect_error(t, "warning and failure", ["sat", "--squared", t.path("u32.npy"), t.path("no/dir/s.npy")],
                 EX_CANTCREAT)
    expect_error(t, "unknown command", ["frobnicate"], EX_USAGE)
    expect_error(t, "demo bad data dir", ["demo", "--data", t.path("nowhere"), "--out", t.path("demo")],
                 EX_NOINPUT)


# ---------------------------------------------------------------------- misc

def group_misc(t):
    commands = ["info", "halftone", "sat", "boxfilter", "knapsack", "compact", "align", "demo"]
    for args in [["--help"], ["--version"]] + [[c, "--help"] for c in commands]:
        rc, out, err = t.run(args)
        t.check(rc == 0 and out and not err, "skss %s: exit %d, stdout %d bytes, stderr %r"
                % (" ".join(args), rc, len(out), err))
    rc, out, err = t.run(["--version"])
    t.check(out.decode().strip() == "skss " + t.info["version"], "--version prints the version")
    # stdin inputs.
    np.save(t.path("stdin.npy"), np.arange(6, dtype=np.int32).reshape(2, 3))
    with open(t.path("stdin.npy"), "rb") as f:
        ok, _, _ = t.run_ok(["sat", "-", t.path("stdin_sat.npy")], stdin=f.read())
    t.check(ok and np.load(t.path("stdin_sat.npy")).tolist() == [[0, 1, 3], [3, 8, 15]], "sat from stdin")
    write_instance(t.path("k.txt"), SMALL_ITEMS, SMALL_CAPACITY)
    with open(t.path("k.txt"), "rb") as f:
        ok, out, _ = t.run_ok(["knapsack", "--json", "-"], stdin=f.read())
    t.check(ok and json.loads(out)["value"] == knapsack_oracle([w for _, _, w in SMALL_ITEMS],
                                                               [v for _, v, _ in SMALL_ITEMS], SMALL_CAPACITY)[0],
            "knapsack from stdin")
    rc, out, err = t.run([])
    t.check(rc == EX_USAGE and b"usage" in err, "no command: usage on stderr, exit 64")
    info = t.info
    t.check(set(info["backends"]) == {"cpu-ref", "cpu", "cuda"} and info["backends"]["cpu"]["available"],
            "info backends")
    t.check(isinstance(info["devices"], list) and info["cpu_threads"] >= 1, "info devices and threads")
    t.check(set(info["algorithms"]) == {"sat", "halftone", "knapsack", "compact", "align"}, "info algorithms")
    # the CUDA algorithms (ids from 16, after a gap) are listed too, in every build
    t.check("onepass" in info["algorithms"]["sat"] and "strips" in info["algorithms"]["halftone"],
            "info lists the CUDA algorithms")
    ok, out, _ = t.run_ok(["info"])
    t.check(ok and b"backends" in out and b"cpu threads" in out and b"onepass(" in out, "info text")
    rc, _, err = t.run(["sat", "--algorithm", "no-such", inputs(t)["gen"][0], t.path("x.npy")])
    t.check(rc != 0 and b"onepass" in err, "an unknown algorithm's error lists every name")
    # Every command's --json report parses.
    gen = inputs(t)["gen"][0]
    write_instance(t.path("k.txt"), SMALL_ITEMS, SMALL_CAPACITY)
    np.save(t.path("m.npy"), np.arange(10, dtype=np.float64))
    for args in (["halftone", "--json", gen, t.path("j.pbm")], ["boxfilter", "--json", "--radius", "2", gen,
                 t.path("j.pgm")], ["sat", "--json", gen, t.path("j.npy")], ["knapsack", "--json", t.path("k.txt")],
                 ["compact", "--json", "--ge", "3", t.path("m.npy"), t.path("j2.npy")]):
        ok, out, _ = t.run_ok(args)
        if ok:
            try:
                report = json.loads(out)
                t.check(report["command"] == args[0] and report["time_ms"] >= 0, "json report of " + args[0])
            except ValueError:
                t.check(False, "%s --json is not JSON: %r" % (args[0], out))


# ------------------------------------------------------------------- outputs

def forged_png(w, h):
    """A valid all-black 1-bit gray PNG of w x h: a few hundred KB for 32768^2."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    idat = zlib.compress((b"\0" * (1 + (w + 7) // 8)) * h, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0)) +
            chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def two_outputs(t):
    """Both outputs are written or neither: a second output that cannot be
    written leaves an existing first one untouched; the same file twice,
    a non-.npy array name and two stdin inputs are refused."""
    gen, i32 = t.path("gen.pgm"), t.path("i32.npy")
    out, dir_npy = t.path("o_out.npy"), t.path("o_dir.npy")
    os.makedirs(dir_npy, exist_ok=True)
    expect_error(t, "indices is a directory", ["compact", "--gt", "1", "--indices", dir_npy, i32, out], EX_CANTCREAT,
                 [out])
    expect_error(t, "squared output is a directory", ["sat", "--squared-out", dir_npy, gen, out], EX_CANTCREAT, [out])
    expect_error(t, "OUT is a directory", ["compact", "--gt", "1", "--indices", out, i32, dir_npy], EX_CANTCREAT, [out])
    for bad in ("", t.tmp, t.path("o_idx.txt")):
        expect_error(t, "indices %r" % bad, ["compact", "--gt", "1", "--indices", bad, i32, out], EX_USAGE, [out])
        expect_error(t, "squared-out %r" % bad, ["sat", "--squared-out", bad, gen, out], EX_USAGE, [out])
    expect_error(t, "sat to .png", ["sat", gen, t.path("o_sat.png")], EX_USAGE, [t.path("o_sat.png")])
    expect_error(t, "compact to .bin", ["compact", "--nonzero", i32, t.path("o_c.bin")], EX_USAGE, [t.path("o_c.bin")])
    same = t.path("o_same.npy")
    other_spelling = os.path.join(t.tmp, ".", os.path.basename(dir_npy), "..", "o_same.npy")
    for spelling in (same, other_spelling):
        expect_error(t, "same file twice", ["compact", "--gt", "1", "--indices", spelling, i32, same], EX_USAGE, [same])
        expect_error(t, "sat same file twice", ["sat", "--squared-out", spelling, gen, same], EX_USAGE, [same])
    expect_error(t, "mask and input both stdin", ["compact", "--mask", "-", "-", out], EX_USAGE, [out], stdin=b"")
    # A name of 255 bytes (NAME_MAX) works for both outputs; 256 fails cleanly.
    long_out, long_idx = t.path("o" * 251 + ".npy"), t.path("i" * 251 + ".npy")
    ok, _, _ = t.run_ok(["compact", "--gt", "1", "--indices", long_idx, i32, long_out])
    t.check(ok and np.load(long_out).tolist() == list(range(2, 12)) and np.load(long_idx).tolist() == list(range(2, 12)),
            "255-byte output names")
    too_long = t.path("x" * 252 + ".npy")
    rc, _, err = t.run(["compact", "--gt", "1", "--indices", too_long, i32, t.path("o_short.npy")])
    t.check(rc == EX_CANTCREAT and not os.path.exists(t.path("o_short.npy")) and b"longer than" in err,
            "a 256-byte name fails before any output is replaced: %d %r" % (rc, err))
    # The reason survives a path of 4000 bytes (the message is not cut).
    deep = t.path("/".join(["d" * 200] * 20))
    rc, _, err = t.run(["compact", "--nonzero", i32, deep + "/x.npy"])
    t.check(rc == EX_CANTCREAT and err.rstrip().endswith(b"No such file or directory"),
            "a long path keeps its reason: %r" % err[-80:])


def stdout_errors(t):
    """Every report on a full stdout fails with EX_IOERR and one line."""
    gen, i32 = t.path("gen.pgm"), t.path("i32.npy")
    write_instance(t.path("k.txt"), SMALL_ITEMS, SMALL_CAPACITY)
    for args in (["info"], ["info", "--json"], ["--help"], ["--version"], ["sat", "--version"],
                 ["knapsack", t.path("k.txt")], ["knapsack", "--json", t.path("k.txt")],
                 ["halftone", gen, t.path("f.pbm")], ["boxfilter", "--radius", "1", gen, t.path("f.pgm")],
                 ["sat", gen, t.path("f.npy")], ["compact", "--json", "--nonzero", i32, t.path("f2.npy")],
                 ["halftone", gen, "-"], ["sat", gen, "-"], ["compact", "--nonzero", i32, "-"]):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([t.skss] + args, stdout=full, stderr=subprocess.PIPE, timeout=60)
        lines = p.stderr.decode(errors="replace").split("\n")
        t.check(p.returncode == EX_IOERR and len(lines) == 2 and "stdout" in lines[0],
                "skss %s > /dev/full: exit %d, stderr %r" % (" ".join(args), p.returncode, p.stderr))


def interrupted(t):
    """SIGINT, SIGTERM or SIGHUP while the outputs are written removes the
    temporary files (the first output is staged while the second is written)."""
    import signal
    import time
    big = t.path("big.npy")
    np.save(big, np.ones((3000, 3000), np.float64))
    out, sq = t.path("s_big.npy"), t.path("s_big.sq.npy")
    interrupted_writes = 0

    def default_signals():  # a test runner may have SIGINT or SIGHUP ignored: the child must not
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for p in (out, sq):
            with open(p, "wb") as f:
                f.write(b"keep me")
        p = subprocess.Popen([t.skss, "sat", "--squared", "--backend", "cpu", big, out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, preexec_fn=default_signals)
        seen = False
        while p.poll() is None and not seen:
            seen = any(n.startswith(".skss-") for n in os.listdir(t.tmp))
            if not seen:
                time.sleep(0.001)
        if seen:
            p.send_signal(sig)
        p.wait()
        left = [n for n in os.listdir(t.tmp) if n.startswith(".skss-")]
        t.check(not left, "%s: temporary files left: %s" % (sig.name, left))
        if seen and p.returncode == -sig:
            interrupted_writes += 1
            for q in (out, sq):
                with open(q, "rb") as f:
                    t.check(f.read() == b"keep me", "%s: %s was replaced by an interrupted run" % (sig.name, q))
        t.check(seen or p.returncode == 0, "%s: run failed before writing (exit %d)" % (sig.name, p.returncode))
        t.check(not seen or p.returncode in (0, -sig), "%s: exit %d, want the signal's" % (sig.name, p.returncode))
    # The signal can land after the last rename on a fast machine, but not every time.
    t.check(interrupted_writes > 0, "no signal arrived while the outputs were being written")


def limits(t):
    """The decoded-image pixel limit and the knapsack memory limit."""
    import time
    gen = t.path("gen.pgm")  # 37 x 23 = 851 pixels
    bomb = t.path("bomb.png")
    with open(bomb, "wb") as f:
        f.write(forged_png(32768, 32768))
    out = t.path("l_out.pbm")
    for cmd in (["halftone"], ["boxfilter", "--radius", "1"], ["sat"]):
        dst = t.path("l_out.npy") if cmd[0] == "sat" else (out if cmd[0] == "halftone" else t.path("l_out.pgm"))
        start = time.time()
        expect_error(t, cmd[0] + " pixel bomb", cmd + [bomb, dst], EX_DATAERR, [dst])
        t.check(time.time() - start < 10, cmd[0] + ": the pixel bomb is refused from its header")
        rc, _, err = t.run(cmd + [bomb, dst])
        t.check(b"268435456" in err and b"--max-pixels" in err, cmd[0] + ": the limit and the option are named")
        expect_error(t, cmd[0] + " max-pixels 850", cmd + ["--max-pixels", "850", gen, dst], EX_DATAERR, [dst])
        t.run_ok(cmd + ["--max-pixels", "851", gen, dst])
        for bad in ("0", "-1", "abc", "1e6", str(2**32 + 1)):
            expect_error(t, cmd[0] + " max-pixels " + bad, cmd + ["--max-pixels", bad, gen, dst], EX_USAGE, [dst])
    # Knapsack: bounded working memory (default 4 GiB), exit 71 with the bytes needed.
    k43 = t.path("k43.txt")
    with open(k43, "w") as f:
        f.write("2\n1 10 500000000\n2 20 500000000\n1000000000\n")
    start = time.time()
    expect_error(t, "knapsack 43-byte instance", ["knapsack", "--algorithm", "dp", k43], EX_OSERR)
    t.check(time.time() - start < 10, "the 43-byte knapsack instance fails fast")
    rc, _, err = t.run(["knapsack", "--algorithm", "dp", k43])
    t.check(b"bytes" in err and b"--max-memory" in err, "knapsack: the bytes needed and the option are named: %r" % err)
    bundled = os.path.join(t.data, "knapsack_sc_1000.txt")
    expect_error(t, "knapsack --max-memory 1K", ["knapsack", "--max-memory", "1K", bundled], EX_OSERR)
    ok, out_json, _ = t.run_ok(["knapsack", "--json", "--max-memory", "1G", bundled])
    t.check(ok and json.loads(out_json)["value"] > 0, "knapsack --max-memory 1G")
    for bad in ("", "0", "abc", "1X", "1.5G", "-1", "99999999999T", "1KB"):
        expect_error(t, "max-memory " + bad, ["knapsack", "--max-memory", bad, bundled], EX_USAGE)


def out_of_memory(t):
    """Memory that runs out while reading an input exits 71 (EX_OSERR)."""
    import resource
    big = t.path("h.npy")
    np.save(big, np.zeros((10000, 10000), np.uint8))  # 100 MB

    def limit_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (80 << 20, 80 << 20))

    write_instance(t.path("k.txt"), SMALL_ITEMS, SMALL_CAPACITY)
    for args in (["sat", big, t.path("m.npy")], ["compact", "--nonzero", big, t.path("m.npy")],
                 ["compact", "--nonzero", "-", t.path("m.npy")], ["halftone", big, t.path("m.pbm")],
                 ["knapsack", big], ["compact", "--mask", big, t.path("i32.npy"), t.path("m.npy")]):
        with open(big, "rb") as f:
            p = subprocess.run([t.skss] + args, stdin=f, capture_output=True, preexec_fn=limit_address_space,
                               timeout=60)
        lines = p.stderr.decode(errors="replace").split("\n")
        t.check(p.returncode == EX_OSERR and len(lines) == 2 and "out of memory" in lines[0],
                "skss %s under an 80 MB address space: exit %d, %r" % (" ".join(args), p.returncode, p.stderr))


def group_outputs(t):
    inputs(t)
    bad_inputs(t)
    two_outputs(t)
    stdout_errors(t)
    interrupted(t)
    limits(t)
    out_of_memory(t)
    # An overflowing float literal is +-inf (as NumPy reads it), an underflowing one 0.
    np.save(t.path("f.npy"), np.array([1.0, -np.inf, np.inf, 0.0, 1e-300]))
    for x, want in (("1e309", [1.0, -np.inf, 0.0, 1e-300]), ("-1e309", []), ("1e-400", [1.0, np.inf, 1e-300])):
        op = "--lt" if x != "1e-400" else "--gt"
        ok, _, _ = t.run_ok(["compact", op, x, t.path("f.npy"), t.path("f_out.npy")])
        t.check(ok and np.load(t.path("f_out.npy")).tolist() == want, "compact %s %s" % (op, x))
    ok, _, _ = t.run_ok(["compact", "--lt", "1e309", t.path("i32.npy"), t.path("f_out.npy")])
    t.check(ok and np.load(t.path("f_out.npy")).tolist() == list(range(12)), "compact --lt 1e309 on i32 keeps all")
    # --version on every subcommand; bench's usage errors are one line.
    for cmd in ("info", "halftone", "sat", "boxfilter", "knapsack", "compact", "align", "bench", "demo"):
        rc, out, err = t.run([cmd, "--version"])
        t.check(rc == 0 and out.decode().strip() == "skss " + t.info["version"] and not err,
                "skss %s --version: exit %d, %r" % (cmd, rc, out))
    for args in (["bench", "--frobnicate"], ["bench", "--sizes"], ["bench", "--repeat", "0"]):
        expect_error(t, " ".join(args), args, EX_USAGE)


# ---------------------------------------------------------------------- demo

def group_demo(t):
    out_dir = t.path("demo")
    ok, out, _ = t.run_ok(["demo", "--quick", "--backend", "cpu", "--data", t.data, "--out", out_dir])
    if not ok:
        return
    for name in ("astronaut_fs.png", "astronaut_jjn.png", "astronaut_box8.png", "astronaut_sat.npy",
                 "knapsack_sc_1000_solution.txt"):
        t.check(os.path.exists(os.path.join(out_dir, name)), "demo wrote " + name)
    with open(os.path.join(t.data, "astronaut.png"), "rb") as f:
        gray = read_png_gray(f.read())
    for kernel in ("fs", "jjn"):
        with open(os.path.join(out_dir, "astronaut_%s.png" % kernel), "rb") as f:
            pixels = read_png_gray(f.read())
        t.golden("halftone/astronaut/%s.png" % kernel, md5(pixels.tobytes()), False)
    with open(os.path.join(out_dir, "astronaut_box8.png"), "rb") as f:
        t.check((read_png_gray(f.read()) == box_oracle(gray, 8, True)).all(), "demo box filter")
    t.check((np.load(os.path.join(out_dir, "astronaut_sat.npy")) == sat_oracle(gray, np.uint32, False, False)).all(),
            "demo SAT")
    ok, out, _ = t.run_ok(["demo", "--json", "--quick", "--backend", "cpu", "--data", t.data, "--out", out_dir])
    if ok:
        steps = json.loads(out)["steps"]
        t.check(len(steps) == 6 and all(len(s["rows"]) == 2 and all(r["time_ms"] >= 0 for r in s["rows"])
                                        for s in steps), "demo --json: six steps, a cpu-ref and a cpu row each")


GROUPS = {"halftone": group_halftone, "sat": group_sat, "boxfilter": group_boxfilter, "knapsack": group_knapsack,
          "align": group_align,
          "compact": group_compact, "errors": group_errors, "misc": group_misc, "demo": group_demo,
          "outputs": group_outputs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skss", required=True, help="the skss executable")
    ap.add_argument("--data", required=True, help="the repository's data/ directory")
    ap.add_argument("--group", action="append", choices=sorted(GROUPS), help="groups to run (default: all)")
    ap.add_argument("--update", action="store_true", help="rewrite the goldens from the cpu-ref backend")
    args = ap.parse_args()
    t = Tester(args)
    for group in args.group or sorted(GROUPS):
        GROUPS[group](t)
    if args.update:
        t.save_goldens()
    print("%d checks, %d failed" % (t.checks, t.failures))
    if t.failures == 0:
        import shutil
        shutil.rmtree(t.tmp, ignore_errors=True)
    else:
        print("outputs kept in", t.tmp)
    return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main())
