/*
 * module.cpp — skss._skss, the nanobind extension under the Python package
 * (python/skss/__init__.py): a Context class owning an skss_ctx, and one thin
 * function per primitive that takes arrays the Python layer has already
 * checked and allocated, fills the C descriptor, releases the GIL for the C
 * call, and turns a failed status into the skss.Error subclass for it with
 * the library's one-line message. An array is a NumPy array (on the CPU), or
 * for GPU arrays a tuple (data pointer, shape, strides in bytes) the Python
 * layer took from the caller's CuPy / PyTorch array, so that device memory is
 * used in place; the context runs on the stream the Python layer sets.
 */
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "skss.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/* The Python exception classes, one per failing status (made at import). */
PyObject *g_errors[SKSS_ERR_TIMEOUT + 1];

struct skss_failure {
  skss_status status;
  std::string message;
};

void check(skss_status st, const char *message) {
  if (st != SKSS_OK) throw skss_failure{st, message != nullptr ? message : skss_status_string(st)};
}

/* An array argument: a NumPy array (inputs may be read-only: np.asarray of a
 * PIL image is), or (pointer, shape, byte strides) of device memory. Byte
 * strides of 0 mean packed (the C API's pitch 0). */
template <bool ReadOnly>
struct array {
  using numpy = std::conditional_t<ReadOnly, nb::ndarray<nb::ro, nb::device::cpu>, nb::ndarray<nb::device::cpu>>;
  numpy host; /* keeps a NumPy array alive */
  void *ptr = nullptr;
  size_t ndim = 0;
  int64_t shapes[3] = {0, 0, 0};
  int64_t strides[3] = {0, 0, 0};

  explicit array(nb::handle h) {
    if (PyTuple_CheckExact(h.ptr())) {
      ptr = reinterpret_cast<void *>(nb::cast<uintptr_t>(h[0]));
      nb::tuple shape = nb::cast<nb::tuple>(h[1]), stride = nb::cast<nb::tuple>(h[2]);
      ndim = nb::len(shape);
      if (ndim > 3 || nb::len(stride) != ndim) throw nb::type_error("skss: a malformed device array");
      for (size_t k = 0; k < ndim; k++) {
        shapes[k] = nb::cast<int64_t>(shape[k]);
        strides[k] = nb::cast<int64_t>(stride[k]);
      }
      return;
    }
    host = nb::cast<numpy>(h);
    ptr = const_cast<void *>(static_cast<const void *>(host.data()));
    ndim = host.ndim();
    if (ndim > 3) throw nb::type_error("skss: an array of more than 3 dimensions");
    for (size_t k = 0; k < ndim; k++) {
      shapes[k] = (int64_t)host.shape(k);
      strides[k] = (int64_t)host.stride(k) * (int64_t)host.itemsize();
    }
  }
  void *data() const { return ptr; }
  int64_t shape(size_t axis) const { return shapes[axis]; }
  /* Bytes between rows of a 2-D (or the last two axes of a 3-D) array
   * whose rows are contiguous (the Python layer guarantees it). */
  int64_t pitch(size_t axis) const { return strides[axis]; }
};

using in_array = array<true>;
using out_array = array<false>;

std::optional<out_array> optional_out(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return out_array(h);
}

/* A context; closed explicitly, by `with`, or when collected. */
struct Context {
  skss_ctx *ctx = nullptr;
  int device = 0;

  Context(const std::string &backend, int device_, int threads) : device(device_) {
    skss_ctx_desc d = SKSS_CTX_DESC_INIT;
    check(skss_backend_from_name(backend.c_str(), &d.backend),
          ("unknown backend '" + backend + "' (auto, cpu-ref, cpu or cuda)").c_str());
    d.device = device_;
    d.threads = threads;
    const skss_status st = skss_ctx_create(&d, &ctx);
    if (st != SKSS_OK) check(st, skss_ctx_last_error(nullptr));
  }
  ~Context() { close(); }
  void close() {
    if (ctx != nullptr) skss_ctx_destroy(ctx);
    ctx = nullptr;
  }
  skss_ctx *get() {
    if (ctx == nullptr) throw skss_failure{SKSS_ERR_INVALID_ARG, "skss.Context: the context is closed"};
    return ctx;
  }
};

/* Runs a C call without the GIL and raises its failure. */
template <typename F>
void run(Context &c, F &&call) {
  skss_ctx *ctx = c.get();
  skss_status st;
  {
    nb::gil_scoped_release unlocked;
    st = call(ctx);
  }
  check(st, skss_ctx_last_error(ctx));
}

void sat(Context &c, nb::handle in_h, int in_type, nb::handle out_h, int out_type, nb::handle out_sq_h,
         int layout, int algorithm) {
  const in_array in(in_h);
  const out_array out(out_h);
  const std::optional<out_array> out_sq = optional_out(out_sq_h);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = (int64_t)in.shape(0);
  d.width = (int64_t)in.shape(1);
  d.in_type = (skss_dtype)in_type;
  d.out_type = (skss_dtype)out_type;
  d.in_pitch = in.pitch(0);
  d.out_pitch = out.pitch(0);
  d.layout = (skss_sat_layout)layout;
  d.algorithm = (skss_sat_algorithm)algorithm;
  void *sq = nullptr;
  if (out_sq) {
    sq = out_sq->data();
    d.out_sq_pitch = out_sq->pitch(0);
  }
  run(c, [&](skss_ctx *ctx) { return skss_sat(ctx, &d, in.data(), out.data(), sq); });
}

void boxfilter(Context &c, nb::handle in_h, nb::handle out_h, int64_t radius, int border, int sat_algorithm) {
  const in_array in(in_h);
  const out_array out(out_h);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = (int64_t)in.shape(0);
  d.width = (int64_t)in.shape(1);
  d.radius = radius;
  d.in_pitch = in.pitch(0);
  d.out_pitch = out.pitch(0);
  d.border = (skss_boxfilter_border)border;
  d.sat_algorithm = (skss_sat_algorithm)sat_algorithm;
  run(c, [&](skss_ctx *ctx) {
    return skss_boxfilter_u8(ctx, &d, static_cast<const uint8_t *>(in.data()), static_cast<uint8_t *>(out.data()));
  });
}

/* in: N x H x W u8 (N = 1 for one image); out: N x H x W bytes or N x H x ceil(W/8) bits. */
void halftone(Context &c, nb::handle in_h, nb::handle out_h, int kernel, int threshold, bool bits, int algorithm) {
  const in_array in(in_h);
  const out_array out(out_h);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.images = (int64_t)in.shape(0);
  d.height = (int64_t)in.shape(1);
  d.width = (int64_t)in.shape(2);
  d.in_pitch = in.pitch(1);
  d.out_pitch = out.pitch(1);
  d.in_image_stride = in.pitch(0);
  d.out_image_stride = out.pitch(0);
  d.kernel = (skss_dither_kernel)kernel;
  d.threshold = threshold;
  d.output = bits ? SKSS_HALFTONE_OUTPUT_BITS : SKSS_HALFTONE_OUTPUT_BYTES;
  d.algorithm = (skss_halftone_algorithm)algorithm;
  run(c, [&](skss_ctx *ctx) { return skss_halftone(ctx, &d, static_cast<const uint8_t *>(in.data()), out.data()); });
}

/* weights, values: K x n int64 (C order); best: K int64; taken: K x n u8 or
 * None; table: K x (capacity + 1) int64 or None. */
void knapsack(Context &c, nb::handle weights_h, nb::handle values_h, int64_t capacity, int algorithm,
              int64_t max_bytes, nb::handle best_h, nb::handle taken_h, nb::handle table_h) {
  const in_array weights(weights_h), values(values_h);
  const out_array best(best_h);
  const std::optional<out_array> taken = optional_out(taken_h), table = optional_out(table_h);
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.instances = (int64_t)weights.shape(0);
  d.n_items = (int64_t)weights.shape(1);
  d.capacity = capacity;
  d.value_only = !taken;
  d.max_bytes = max_bytes;
  d.algorithm = (skss_knapsack_algorithm)algorithm;
  uint8_t *t = nullptr;
  if (taken) t = static_cast<uint8_t *>(taken->data());
  if (table) d.values_by_capacity = static_cast<int64_t *>(table->data());
  run(c, [&](skss_ctx *ctx) {
    return skss_knapsack(ctx, &d, static_cast<const int64_t *>(weights.data()),
                         static_cast<const int64_t *>(values.data()), static_cast<int64_t *>(best.data()), t);
  });
}

/* Pairwise alignment of two byte strings; matrix: k x k int32 (C order) or
 * None. Returns (score, a_begin, a_end, b_begin, b_end, ops) with ops a
 * bytes object (empty unless the alignment was asked for). */
nb::tuple align(Context &c, nb::bytes a, nb::bytes b, int mode, int output, int algorithm, int scoring,
                int32_t match, int32_t mismatch, std::optional<std::string> alphabet, nb::handle matrix_h,
                int32_t gap_open, int32_t gap_extend) {
  skss_align_desc d = SKSS_ALIGN_DESC_INIT;
  d.a_len = (int64_t)a.size();
  d.b_len = (int64_t)b.size();
  d.mode = (skss_align_mode)mode;
  d.output = (skss_align_output)output;
  d.algorithm = (skss_align_algorithm)algorithm;
  d.scoring = (skss_align_scoring)scoring;
  d.match = match;
  d.mismatch = mismatch;
  d.gap_open = gap_open;
  d.gap_extend = gap_extend;
  std::optional<in_array> matrix;
  if (!matrix_h.is_none()) {
    matrix.emplace(matrix_h);
    d.matrix = static_cast<const int32_t *>(matrix->data());
  }
  if (alphabet) d.alphabet = alphabet->c_str();
  std::string ops;
  if (d.output == SKSS_ALIGN_OUTPUT_ALIGNMENT) {
    d.ops_capacity = d.a_len + d.b_len;
    ops.resize((size_t)d.ops_capacity);
  }
  skss_align_result r;
  run(c, [&](skss_ctx *ctx) {
    return skss_align(ctx, &d, a.c_str(), b.c_str(), &r, ops.empty() ? nullptr : &ops[0]);
  });
  ops.resize((size_t)r.length);
  return nb::make_tuple(r.score, r.a_begin, r.a_end, r.b_begin, r.b_end, nb::bytes(ops.data(), ops.size()));
}

/* A scalar of the compaction's comparisons in the field its dtype reads. */
skss_scalar scalar(int dtype, nb::handle x) {
  skss_scalar s;
  std::memset(&s, 0, sizeof s);
  if (dtype == SKSS_DTYPE_F32 || dtype == SKSS_DTYPE_F64) s.f = nb::cast<double>(x);
  else if (dtype == SKSS_DTYPE_U8 || dtype == SKSS_DTYPE_U16 || dtype == SKSS_DTYPE_U32 || dtype == SKSS_DTYPE_U64)
    s.u = nb::cast<uint64_t>(x);
  else s.i = nb::cast<int64_t>(x);
  return s;
}

/* Returns the count; values / indices are n-element outputs or None. */
int64_t compact(Context &c, nb::handle in_h, int64_t n, int dtype, int keep, nb::handle a, nb::handle b,
                nb::handle mask_h, nb::handle values_h, nb::handle indices_h, int algorithm) {
  const std::optional<in_array> in_arr = in_h.is_none() ? std::nullopt : std::optional<in_array>(in_array(in_h));
  const std::optional<in_array> mask =
      mask_h.is_none() ? std::nullopt : std::optional<in_array>(in_array(mask_h));
  const std::optional<out_array> values = optional_out(values_h), indices = optional_out(indices_h);
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = n;
  d.dtype = (skss_dtype)dtype;
  d.keep = (skss_compact_keep)keep;
  d.a = scalar(dtype, a);
  d.b = scalar(dtype, b);
  d.algorithm = (skss_compact_algorithm)algorithm;
  const void *in = in_arr ? in_arr->data() : nullptr;
  if (mask) d.mask = mask->data();
  void *v = values ? values->data() : nullptr;
  int64_t *ix = indices ? static_cast<int64_t *>(indices->data()) : nullptr;
  int64_t count = 0;
  run(c, [&](skss_ctx *ctx) { return skss_compact(ctx, &d, in, v, ix, &count); });
  return count;
}

int algorithm_from_name(int op, const std::string &name) {
  int out = 0;
  if (skss_algorithm_from_name((skss_op)op, name.c_str(), &out) != SKSS_OK) return -1;
  return out;
}

int dither_kernel_from_name(const std::string &name) {
  skss_dither_kernel k;
  if (skss_dither_kernel_from_name(name.c_str(), &k) != SKSS_OK) return -1;
  return (int)k;
}

} // namespace

NB_MODULE(_skss, m) {
  m.doc() = "skss's C library (use the functions of the skss package)";
  /* skss.Error and one subclass per status, each also a matching built-in */
  PyObject *error = PyErr_NewException("skss.Error", PyExc_Exception, nullptr);
  m.attr("Error") = nb::steal(error);
  struct kind {
    skss_status status;
    const char *name;
    PyObject *builtin;
  };
  const kind kinds[] = {
      {SKSS_ERR_INVALID_ARG, "skss.InvalidArgumentError", PyExc_ValueError},
      {SKSS_ERR_UNSUPPORTED, "skss.UnsupportedError", PyExc_NotImplementedError},
      {SKSS_ERR_OUT_OF_MEMORY, "skss.OutOfMemoryError", PyExc_MemoryError},
      {SKSS_ERR_NO_DEVICE, "skss.NoDeviceError", PyExc_RuntimeError},
      {SKSS_ERR_CUDA, "skss.CudaError", PyExc_RuntimeError},
      {SKSS_ERR_OVERFLOW, "skss.OverflowError", PyExc_OverflowError},
      {SKSS_ERR_CALLBACK, "skss.CallbackError", PyExc_RuntimeError},
      {SKSS_ERR_INTERNAL, "skss.InternalError", PyExc_RuntimeError},
      {SKSS_ERR_TIMEOUT, "skss.TimeoutError", PyExc_TimeoutError},
  };
  for (const kind &k : kinds) {
    PyObject *bases = PyTuple_Pack(2, error, k.builtin);
    PyObject *cls = PyErr_NewException(k.name, bases, nullptr);
    Py_DECREF(bases);
    g_errors[k.status] = cls;
    m.attr(std::strchr(k.name, '.') + 1) = nb::borrow(cls);
  }
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const skss_failure &f) {
      PyObject *cls = f.status > SKSS_OK && f.status <= SKSS_ERR_TIMEOUT ? g_errors[f.status] : nullptr;
      PyErr_SetString(cls != nullptr ? cls : PyExc_RuntimeError, f.message.c_str());
    }
  });

  nb::class_<Context>(m, "Context")
      .def(nb::init<const std::string &, int, int>(), nb::arg("backend") = "auto", nb::arg("device") = 0,
           nb::arg("threads") = 0)
      .def("close", &Context::close)
      .def("synchronize", [](Context &c) {
        skss_ctx *ctx = c.get();
        skss_status st;
        {
          nb::gil_scoped_release unlocked;
          st = skss_ctx_synchronize(ctx);
        }
        check(st, skss_ctx_last_error(ctx));
      })
      .def("_set_stream", [](Context &c, uintptr_t stream) {
        skss_ctx *ctx = c.get();
        check(skss_ctx_set_stream(ctx, reinterpret_cast<void *>(stream)), skss_ctx_last_error(ctx));
      })
      .def_ro("device", &Context::device)
      .def_prop_ro("closed", [](const Context &c) { return c.ctx == nullptr; })
      .def_prop_ro("backend", [](Context &c) { return std::string(skss_backend_name(skss_ctx_backend(c.get()))); })
      .def_prop_ro("threads", [](Context &c) { return skss_ctx_threads(c.get()); })
      .def("op_backend", [](Context &c, int op) {
        return std::string(skss_backend_name(skss_ctx_op_backend(c.get(), (skss_op)op)));
      });

  /* the optional arrays may be None */
  m.def("sat", &sat, "ctx"_a, "in"_a, "in_type"_a, "out"_a, "out_type"_a, "out_sq"_a.none(), "layout"_a,
        "algorithm"_a);
  m.def("boxfilter", &boxfilter);
  m.def("halftone", &halftone);
  m.def("knapsack", &knapsack, "ctx"_a, "weights"_a, "values"_a, "capacity"_a, "algorithm"_a,
        "max_bytes"_a, "best"_a, "taken"_a.none(), "table"_a.none());
  m.def("align", &align, "ctx"_a, "a"_a, "b"_a, "mode"_a, "output"_a, "algorithm"_a, "scoring"_a, "match"_a,
        "mismatch"_a, "alphabet"_a.none(), "matrix"_a.none(), "gap_open"_a, "gap_extend"_a);
  m.def("compact", &compact, "ctx"_a, "in"_a.none(), "n"_a, "dtype"_a, "keep"_a, "a"_a, "b"_a, "mask"_a.none(),
        "values"_a.none(), "indices"_a.none(), "algorithm"_a);
  m.def("algorithm_from_name", &algorithm_from_name);
  m.def("dither_kernel_from_name", &dither_kernel_from_name);
  m.def("version", []() { return std::string(skss_version()); });
  m.def("device_count", []() { return skss_device_count(); });
  m.def("backend_available", [](const std::string &name) {
    skss_backend b;
    return skss_backend_from_name(name.c_str(), &b) == SKSS_OK && skss_backend_available(b) != 0;
  });
}
