/*
 * npy.c — NumPy .npy arrays, our own codec (format spec: numpy.lib.format).
 * Reading: the magic, version 1.0 (u16 header length) or 2.0/3.0 (u32), and
 * the header, a Python dict literal parsed strictly by a small recursive
 * descent parser (keys descr, fortran_order, shape, each exactly once, in
 * any order; ' or " strings without escapes; True/False; a tuple of
 * non-negative integers, Python 2's 'L' suffix accepted; spaces and trailing
 * commas as NumPy writes them). The data must be exactly the header's
 * count * itemsize bytes (checked with overflow-safe arithmetic before
 * anything is allocated); big-endian data is byte-swapped to native.
 * Writing: version 1.0, C order, little-endian, header padded so the data
 * starts at a multiple of 64 bytes as NumPy does. Single-threaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

#define SKSS__NPY_MAGIC "\x93NUMPY"
#define SKSS__NPY_MAGIC_LEN 6
#define SKSS__NPY_MAX_DIMS 8

typedef struct skss__npy_type {
  skss_dtype dtype;
  char kind; /* 'u', 'i', 'f' */
  int size;
} skss__npy_type;

static const skss__npy_type skss__npy_types[] = {
    {SKSS_DTYPE_U8, 'u', 1},  {SKSS_DTYPE_I8, 'i', 1},  {SKSS_DTYPE_U16, 'u', 2}, {SKSS_DTYPE_I16, 'i', 2},
    {SKSS_DTYPE_U32, 'u', 4}, {SKSS_DTYPE_I32, 'i', 4}, {SKSS_DTYPE_U64, 'u', 8}, {SKSS_DTYPE_I64, 'i', 8},
    {SKSS_DTYPE_F32, 'f', 4}, {SKSS_DTYPE_F64, 'f', 8}};
#define SKSS__NPY_TYPE_COUNT (sizeof skss__npy_types / sizeof skss__npy_types[0])

void skss_npy_free(skss_npy *arr) {
  if (arr == NULL) return;
  free(arr->data);
  memset(arr, 0, sizeof *arr);
}

/* ---- header parsing ------------------------------------------------------------ */

typedef struct skss__npy_lex {
  const uint8_t *text;
  size_t size;
  size_t pos;
} skss__npy_lex;

/* What the header declares. */
typedef struct skss__npy_decl {
  skss_dtype dtype;
  int is_bool, swap, fortran;
  int ndim;
  int64_t shape[SKSS__NPY_MAX_DIMS];
  unsigned seen; /* bit per key: 1 descr, 2 fortran_order, 4 shape */
} skss__npy_decl;

static void skss__npy_skip(skss__npy_lex *lx) {
  while (lx->pos < lx->size && skss__io_is_space(lx->text[lx->pos])) ++lx->pos;
}

static int skss__npy_peek(skss__npy_lex *lx) {
  skss__npy_skip(lx);
  return lx->pos < lx->size ? lx->text[lx->pos] : -1;
}

static int skss__npy_expect(skss__npy_lex *lx, char want, const char *where, char *err) {
  int got = skss__npy_peek(lx);
  if (got == want) {
    ++lx->pos;
    return 0;
  }
  if (got < 0) return skss__io_fail(err, "npy: header ends where '%c' %s was expected", want, where);
  return skss__io_fail(err, "npy: header: expected '%c' %s, found '%c'", want, where,
                       got >= 0x21 && got < 0x7f ? got : '?');
}

/* A quoted string without escapes into buf (printable ASCII only). */
static int skss__npy_string(skss__npy_lex *lx, char *buf, size_t cap, char *err) {
  int quote = skss__npy_peek(lx);
  if (quote != '\'' && quote != '"') return skss__io_fail(err, "npy: header: expected a quoted string");
  size_t len = 0;
  for (++lx->pos; lx->pos < lx->size && lx->text[lx->pos] != quote; ++lx->pos) {
    uint8_t c = lx->text[lx->pos];
    if (c < 0x20 || c >= 0x7f || c == '\\' || len + 1 >= cap)
      return skss__io_fail(err, "npy: header: unsupported string (escapes, non-ASCII or too long)");
    buf[len++] = (char)c;
  }
  if (lx->pos >= lx->size) return skss__io_fail(err, "npy: header: unterminated string");
  ++lx->pos;
  buf[len] = '\0';
  return 0;
}

static int skss__npy_parse_descr(const char *descr, skss__npy_decl *d, char *err) {
  const char *p = descr;
  char order = '=';
  if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
  char kind = *p ? *p++ : '\0';
  int size = 0;
  while (*p >= '0' && *p <= '9' && size < 100) size = size * 10 + (*p++ - '0');
  d->is_bool = kind == 'b' && size == 1 && *p == '\0';
  if (d->is_bool) kind = 'u';
  for (size_t i = 0; i < SKSS__NPY_TYPE_COUNT && *p == '\0'; ++i) {
    if (skss__npy_types[i].kind == kind && skss__npy_types[i].size == size) {
      d->dtype = skss__npy_types[i].dtype;
      d->swap = order == '>' && size > 1;
      return 0;
    }
  }
  return skss__io_fail(err, "npy: dtype '%s' is not supported (u1 i1 u2 i2 u4 i4 u8 i8 f4 f8 b1, either byte order)",
                       descr);
}

static int skss__npy_parse_bool(skss__npy_lex *lx, int *value, char *err) {
  skss__npy_skip(lx);
  size_t left = lx->size - lx->pos;
  const char *at = (const char *)lx->text + lx->pos;
  if (left >= 4 && memcmp(at, "True", 4) == 0) *value = 1, lx->pos += 4;
  else if (left >= 5 && memcmp(at, "False", 5) == 0) *value = 0, lx->pos += 5;
  else return skss__io_fail(err, "npy: header: fortran_order must be True or False");
  uint8_t next = lx->pos < lx->size ? lx->text[lx->pos] : ' ';
  if (next == '_' || skss__io_is_digit(next) || ((next | 0x20) >= 'a' && (next | 0x20) <= 'z'))
    return skss__io_fail(err, "npy: header: fortran_order must be True or False");
  return 0;
}

static int skss__npy_parse_dim(skss__npy_lex *lx, int64_t *dim, char *err) {
  skss__npy_skip(lx);
  switch (skss__io_scan_u63(lx->text, lx->size, &lx->pos, dim)) {
    case SKSS__IO_NUM_OK:
      if (lx->pos < lx->size && lx->text[lx->pos] == 'L') ++lx->pos; /* Python 2 long */
      return 0;
    case SKSS__IO_NUM_OVERFLOW:
      return skss__io_fail(err, "npy: header: a dimension does not fit a 64-bit integer");
    case SKSS__IO_NUM_NONE:
      break;
  }
  return skss__io_fail(err, "npy: header: shape must be a tuple of non-negative integers");
}

/* "()" | "(d,)" | "(d, d, ...)" with an optional trailing comma. */
static int skss__npy_parse_shape(skss__npy_lex *lx, skss__npy_decl *d, char *err) {
  if (skss__npy_expect(lx, '(', "to open the shape tuple", err) != 0) return -1;
  d->ndim = 0;
  int commas = 0;
  while (skss__npy_peek(lx) != ')') {
    if (d->ndim == SKSS__NPY_MAX_DIMS)
      return skss__io_fail(err, "npy: more than %d dimensions are not supported", SKSS__NPY_MAX_DIMS);
    if (skss__npy_parse_dim(lx, &d->shape[d->ndim++], err) != 0) return -1;
    if (skss__npy_peek(lx) != ',') break;
    ++lx->pos;
    ++commas;
  }
  if (skss__npy_expect(lx, ')', "to close the shape tuple", err) != 0) return -1;
  if (d->ndim == 1 && commas == 0)
    return skss__io_fail(err, "npy: header: shape (n) is not a tuple; NumPy writes (n,)");
  return 0;
}

static int skss__npy_parse_entry(skss__npy_lex *lx, skss__npy_decl *d, char *err) {
  char key[32], descr[32];
  if (skss__npy_string(lx, key, sizeof key, err) != 0) return -1;
  if (skss__npy_expect(lx, ':', "after a key", err) != 0) return -1;
  unsigned bit = strcmp(key, "descr") == 0 ? 1u : strcmp(key, "fortran_order") == 0 ? 2u
               : strcmp(key, "shape") == 0 ? 4u : 0u;
  if (bit == 0) return skss__io_fail(err, "npy: header: unexpected key '%s'", key);
  if (d->seen & bit) return skss__io_fail(err, "npy: header: key '%s' appears twice", key);
  d->seen |= bit;
  if (bit == 2) return skss__npy_parse_bool(lx, &d->fortran, err);
  if (bit == 4) return skss__npy_parse_shape(lx, d, err);
  if (skss__npy_peek(lx) == '[') return skss__io_fail(err, "npy: structured dtypes are not supported");
  if (skss__npy_string(lx, descr, sizeof descr, err) != 0) return -1;
  return skss__npy_parse_descr(descr, d, err);
}

static int skss__npy_parse_dict(skss__npy_lex *lx, skss__npy_decl *d, char *err) {
  if (skss__npy_expect(lx, '{', "to open the header dict", err) != 0) return -1;
  while (skss__npy_peek(lx) != '}') {
    if (skss__npy_parse_entry(lx, d, err) != 0) return -1;
    if (skss__npy_peek(lx) != ',') break;
    ++lx->pos;
  }
  if (skss__npy_expect(lx, '}', "to close the header dict", err) != 0) return -1;
  if (skss__npy_peek(lx) >= 0) return skss__io_fail(err, "npy: header: unexpected text after the dict");
  if (d->seen != 7u) return skss__io_fail(err, "npy: header: descr, fortran_order and shape are all required");
  if (d->fortran)
    return skss__io_fail(err, "npy: Fortran-order arrays are not supported; save np.ascontiguousarray(a)");
  return 0;
}

/* ---- decoding ------------------------------------------------------------------------ */

/* Finds the header text and the data after it. */
static int skss__npy_preamble(const uint8_t *data, size_t size, skss__npy_lex *header, size_t *data_at,
                              char *err) {
  if (size < SKSS__NPY_MAGIC_LEN || memcmp(data, SKSS__NPY_MAGIC, SKSS__NPY_MAGIC_LEN) != 0)
    return skss__io_fail(err, "not a .npy file (bad magic)");
  if (size < 10) return skss__io_fail(err, "npy: truncated preamble");
  int major = data[6], minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    return skss__io_fail(err, "npy: format version %d.%d is not supported (1.0, 2.0, 3.0)", major, minor);
  size_t at = major == 1 ? 10 : 12;
  if (size < at) return skss__io_fail(err, "npy: truncated preamble");
  size_t len = major == 1 ? (size_t)data[8] | (size_t)data[9] << 8
                          : (size_t)data[8] | (size_t)data[9] << 8 | (size_t)data[10] << 16 | (size_t)data[11] << 24;
  if (len > size - at)
    return skss__io_fail(err, "npy: the header claims %zu bytes, the file has %zu after the preamble", len, size - at);
  header->text = data + at;
  header->size = len;
  header->pos = 0;
  *data_at = at + len;
  return 0;
}

/* count and bytes of the declared array; fails on overflow or a data length mismatch. */
static int skss__npy_extent(const skss__npy_decl *d, size_t available, int64_t *count, size_t *bytes, char *err) {
  int64_t n = 1;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] != 0 && n > INT64_MAX / d->shape[i])
      return skss__io_fail(err, "npy: the shape's element count does not fit a 64-bit integer");
    n *= d->shape[i];
  }
  int64_t item = (int64_t)skss_dtype_size(d->dtype);
  if (n > INT64_MAX / item) return skss__io_fail(err, "npy: the array's byte size does not fit a 64-bit integer");
  if ((uint64_t)(n * item) != available)
    return skss__io_fail(err, "npy: the header's shape and dtype need %lld data bytes, the file has %zu",
                         (long long)(n * item), available);
  *count = n;
  *bytes = (size_t)(n * item);
  return 0;
}

static void skss__npy_swap(uint8_t *p, size_t bytes, size_t item) {
  for (size_t at = 0; at < bytes; at += item)
    for (size_t i = 0; i < item / 2; ++i) {
      uint8_t t = p[at + i];
      p[at + i] = p[at + item - 1 - i];
      p[at + item - 1 - i] = t;
    }
}

int skss_npy_decode(const uint8_t *data, size_t size, skss_npy *out, char err[SKSS_IO_ERRLEN]) {
  if (out == NULL) return skss__io_fail(err, "skss_npy_decode(): out is NULL");
  memset(out, 0, sizeof *out);
  if (data == NULL && size > 0) return skss__io_fail(err, "skss_npy_decode(): data is NULL");
  skss__npy_lex header;
  size_t data_at = 0, bytes = 0;
  int64_t count = 0;
  skss__npy_decl d = {0};
  if (skss__npy_preamble(data, size, &header, &data_at, err) != 0 || skss__npy_parse_dict(&header, &d, err) != 0 ||
      skss__npy_extent(&d, size - data_at, &count, &bytes, err) != 0)
    return -1;
  uint8_t *copy = malloc(bytes > 0 ? bytes : 1);
  if (copy == NULL) return skss__io_fail_nomem(err, "npy: out of memory for %zu bytes", bytes);
  if (bytes > 0) memcpy(copy, data + data_at, bytes);
  if (d.swap) skss__npy_swap(copy, bytes, skss_dtype_size(d.dtype));
  if (d.is_bool)
    for (size_t i = 0; i < bytes; ++i) copy[i] = copy[i] != 0;
  out->dtype = d.dtype;
  out->is_bool = d.is_bool;
  out->ndim = d.ndim;
  memcpy(out->shape, d.shape, sizeof d.shape);
  out->count = count;
  out->data = copy;
  return 0;
}

int skss_npy_read(const char *path, skss_npy *out, char err[SKSS_IO_ERRLEN]) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (path == NULL || out == NULL) return skss__io_fail(err, "skss_npy_read(): path and out must not be NULL");
  uint8_t *data;
  size_t size;
  int rc = skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, &data, &size, err);
  if (rc != 0) return rc;
  rc = skss_npy_decode(data, size, out, err);
  free(data);
  return rc == 0 ? 0 : skss__io_fail_path(err, path, rc);
}

/* ---- writing ----------------------------------------------------------------------- */

static const skss__npy_type *skss__npy_type_of(skss_dtype dtype) {
  for (size_t i = 0; i < SKSS__NPY_TYPE_COUNT; ++i)
    if (skss__npy_types[i].dtype == dtype) return &skss__npy_types[i];
  return NULL;
}

static int skss__npy_check_shape(int ndim, const int64_t *shape, int64_t *count, char *err) {
  if (ndim < 0 || ndim > SKSS__NPY_MAX_DIMS)
    return skss__io_fail(err, "skss_npy_write(): ndim %d is outside 0..%d", ndim, SKSS__NPY_MAX_DIMS);
  if (ndim > 0 && shape == NULL) return skss__io_fail(err, "skss_npy_write(): shape is NULL");
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return skss__io_fail(err, "skss_npy_write(): shape[%d] = %lld is negative", i, (long long)shape[i]);
    if (shape[i] != 0 && n > INT64_MAX / shape[i])
      return skss__io_fail(err, "skss_npy_write(): the element count overflows");
    n *= shape[i];
  }
  *count = n;
  return 0;
}

size_t skss__npy_header(skss_dtype dtype, int ndim, const int64_t *shape, int64_t *count, char *buf, char *err) {
  const skss__npy_type *type = skss__npy_type_of(dtype);
  if (type == NULL) {
    skss__io_fail(err, "skss_npy_write(): unknown dtype %d", (int)dtype);
    return 0;
  }
  if (skss__npy_check_shape(ndim, shape, count, err) != 0) return 0;
  char dims[8 * 24] = "";
  size_t used = 0;
  for (int i = 0; i < ndim; ++i)
    used += (size_t)snprintf(dims + used, sizeof dims - used, i == 0 ? "%lld" : ", %lld", (long long)shape[i]);
  int len = snprintf(buf + 10, SKSS__NPY_HEADER_MAX - 10, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': (%s%s), }",
                     type->size == 1 ? '|' : '<', type->kind, type->size, dims, ndim == 1 ? "," : "");
  size_t total = 10 + (size_t)len + 1; /* + the final '\n' */
  size_t padded = (total + 63) / 64 * 64;
  memset(buf + 10 + len, ' ', padded - total);
  buf[padded - 1] = '\n';
  memcpy(buf, SKSS__NPY_MAGIC "\x01\x00", 8);
  buf[8] = (char)((padded - 10) & 0xff);
  buf[9] = (char)((padded - 10) >> 8);
  return padded;
}

int skss_npy_write(const char *path, skss_dtype dtype, int ndim, const int64_t *shape, const void *data,
                   char err[SKSS_IO_ERRLEN]) {
  if (path == NULL) return skss__io_fail(err, "skss_npy_write(): path is NULL");
  char header[SKSS__NPY_HEADER_MAX];
  int64_t count;
  size_t header_len = skss__npy_header(dtype, ndim, shape, &count, header, err);
  if (header_len == 0) return -1;
  int64_t item = (int64_t)skss_dtype_size(dtype);
  if (count > INT64_MAX / item) return skss__io_fail(err, "skss_npy_write(): the byte size overflows");
  if (data == NULL && count > 0) return skss__io_fail(err, "skss_npy_write(): data is NULL");
  skss__io_piece pieces[2] = {{header, header_len}, {data, (size_t)(count * item)}};
  return skss__io_write_pieces(path, pieces, 2, err);
}
