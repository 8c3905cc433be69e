/*
 * file_util.c — whole-file reading with a size cap, atomic writing (a fresh
 * temporary file beside the target, fsync, rename), staged writes of several
 * outputs, one-line error messages and the strict number scanner every text
 * format uses. The temporary files' names live in static buffers so that a
 * signal handler can remove them (skss_io_remove_temporaries). Single-threaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io_internal.h"

/* ---- messages ------------------------------------------------------------ */

static void skss__io_sanitize(char *err) {
  for (char *c = err; *c != '\0'; ++c)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

int skss__io_fail(char *err, const char *fmt, ...) {
  if (err == NULL) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, SKSS_IO_ERRLEN, fmt, ap);
  va_end(ap);
  skss__io_sanitize(err);
  return -1;
}

int skss__io_fail_nomem(char *err, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, SKSS_IO_ERRLEN, fmt, ap);
    va_end(ap);
    skss__io_sanitize(err);
  }
  return SKSS_IO_ERR_NOMEM;
}

int skss__io_fail_path(char *err, const char *path, int code) {
  if (err == NULL) return code;
  char msg[SKSS_IO_ERRLEN];
  memcpy(msg, err, SKSS_IO_ERRLEN);
  msg[SKSS_IO_ERRLEN - 1] = '\0';
  const char *shown = strcmp(path, "-") == 0 ? "stdin" : path;
  skss__io_fail(err, "%s: %s", shown, msg);
  return code;
}

static int skss__io_fail_errno(char *err, const char *what, const char *path, int errnum) {
  char text[128];
  if (strerror_r(errnum, text, sizeof text) != 0) snprintf(text, sizeof text, "errno %d", errnum);
  return skss__io_fail(err, "%s %s: %s", what, path, text);
}

/* ---- numbers and sizes -------------------------------------------------------- */

skss__io_num skss__io_scan_u63(const uint8_t *data, size_t size, size_t *pos, int64_t *value) {
  size_t i = *pos;
  if (i >= size || !skss__io_is_digit(data[i])) return SKSS__IO_NUM_NONE;
  int64_t v = 0;
  bool overflow = false;
  for (; i < size && skss__io_is_digit(data[i]); ++i) {
    int64_t digit = data[i] - '0';
    if (v > (INT64_MAX - digit) / 10) overflow = true;
    if (!overflow) v = v * 10 + digit;
  }
  *pos = i;
  *value = v;
  return overflow ? SKSS__IO_NUM_OVERFLOW : SKSS__IO_NUM_OK;
}

int skss__io_check_dims(const char *what, int64_t width, int64_t height, int64_t max_pixels, char *err) {
  if (width <= 0 || height <= 0)
    return skss__io_fail(err, "%s: image size %lld x %lld: both sides must be at least 1", what,
                         (long long)width, (long long)height);
  if (width > SKSS_IO_MAX_SIDE || height > SKSS_IO_MAX_SIDE)
    return skss__io_fail(err, "%s: image size %lld x %lld: a side exceeds the limit %lld", what,
                         (long long)width, (long long)height, (long long)SKSS_IO_MAX_SIDE);
  if (width > SKSS_IO_MAX_PIXELS / height)
    return skss__io_fail(err, "%s: image size %lld x %lld exceeds the limit of %lld pixels", what,
                         (long long)width, (long long)height, (long long)SKSS_IO_MAX_PIXELS);
  if (width * height > max_pixels) {
    skss__io_fail(err, "%s: image size %lld x %lld (%lld pixels) exceeds the limit of %lld pixels", what,
                  (long long)width, (long long)height, (long long)(width * height), (long long)max_pixels);
    return SKSS_IO_ERR_TOO_LARGE;
  }
  return 0;
}

/* ---- reading -------------------------------------------------------------------- */

/* Reads fd to its end into a growing buffer; fails past max_bytes. */
static int skss__io_read_fd(int fd, const char *path, size_t max_bytes, size_t hint,
                            uint8_t **data, size_t *size, char *err) {
  size_t cap = hint < max_bytes ? hint + 1 : max_bytes + 1; /* +1 to see EOF or the excess */
  if (cap < 4096) cap = 4096;
  uint8_t *buf = malloc(cap + 1);
  size_t len = 0;
  if (buf == NULL) return skss__io_fail_nomem(err, "out of memory reading %s", path);
  for (;;) {
    if (len == cap) {
      size_t grown = cap > SIZE_MAX / 4 ? SIZE_MAX / 2 : cap * 2;
      if (grown > max_bytes + 1) grown = max_bytes + 1;
      uint8_t *bigger = grown > cap ? realloc(buf, grown + 1) : NULL;
      if (bigger == NULL) {
        free(buf);
        return skss__io_fail_nomem(err, "out of memory reading %s (%zu bytes so far)", path, len);
      }
      buf = bigger;
      cap = grown;
    }
    ssize_t got = read(fd, buf + len, cap - len);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int e = errno;
      free(buf);
      return skss__io_fail_errno(err, "cannot read", path, e);
    }
    if (got == 0) break;
    len += (size_t)got;
    if (len > max_bytes) {
      free(buf);
      return skss__io_fail(err, "%s is larger than the limit of %zu bytes", path, max_bytes);
    }
  }
  buf[len] = '\0';
  *data = buf;
  *size = len;
  return 0;
}

int skss_read_file(const char *path, size_t max_bytes, uint8_t **data, size_t *size, char err[SKSS_IO_ERRLEN]) {
  if (data != NULL) *data = NULL;
  if (size != NULL) *size = 0;
  if (path == NULL || data == NULL || size == NULL)
    return skss__io_fail(err, "skss_read_file(): path, data and size must not be NULL");
  if (max_bytes >= SIZE_MAX - 1) max_bytes = SIZE_MAX - 2;
  if (strcmp(path, "-") == 0) return skss__io_read_fd(STDIN_FILENO, "stdin", max_bytes, 0, data, size, err);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return skss__io_fail_errno(err, "cannot open", path, errno);
  struct stat st;
  int rc = -1;
  if (fstat(fd, &st) != 0) {
    rc = skss__io_fail_errno(err, "cannot stat", path, errno);
  } else if (S_ISDIR(st.st_mode)) {
    rc = skss__io_fail(err, "%s is a directory", path);
  } else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
    rc = skss__io_fail(err, "%s is %lld bytes, larger than the limit of %zu bytes", path,
                       (long long)st.st_size, max_bytes);
  } else {
    size_t hint = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
    rc = skss__io_read_fd(fd, path, max_bytes, hint, data, size, err);
  }
  close(fd);
  return rc;
}

/* ---- writing -------------------------------------------------------------------- */

static int skss__io_write_all(int fd, const skss__io_piece *pieces, int count) {
  for (int i = 0; i < count; ++i) {
    const uint8_t *p = pieces[i].data;
    size_t left = pieces[i].size;
    while (left > 0) {
      size_t chunk = left < ((size_t)1 << 30) ? left : ((size_t)1 << 30);
      ssize_t put = write(fd, p, chunk);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return put == 0 ? EIO : errno;
      p += put;
      left -= (size_t)put;
    }
  }
  return 0;
}

/* The directory part of path ("." when it has none) into dir. */
static int skss__io_dir_of(const char *path, char *dir, size_t cap) {
  const char *slash = strrchr(path, '/');
  size_t len = slash == NULL ? 1 : (slash == path ? 1 : (size_t)(slash - path));
  if (len + 1 > cap) return -1;
  if (slash == NULL) dir[0] = '.';
  else memcpy(dir, path, len);
  dir[len] = '\0';
  return 0;
}

/* ---- temporary files ----------------------------------------------------------- */

/* One temporary file: its name, whether it may exist on disk now (read by
 * the signal handler, so set only once the name is complete and cleared
 * before the file is renamed), and, when staged, the target it replaces. */
#define SKSS__IO_PATH_MAX 4096
#define SKSS__IO_TEMP_SLOTS SKSS_IO_MAX_STAGED
typedef struct skss__io_temp {
  char path[SKSS__IO_PATH_MAX + 32];
  char dir[SKSS__IO_PATH_MAX];
  char target[SKSS__IO_PATH_MAX];
  volatile sig_atomic_t live;
  bool staged;
} skss__io_temp;

static skss__io_temp skss__io_temps[SKSS__IO_TEMP_SLOTS];
static bool skss__io_staging;

void skss_io_remove_temporaries(void) {
  for (int i = 0; i < SKSS__IO_TEMP_SLOTS; ++i)
    if (skss__io_temps[i].live) unlink(skss__io_temps[i].path);
}

static skss__io_temp *skss__io_free_slot(void) {
  for (int i = 0; i < SKSS__IO_TEMP_SLOTS; ++i)
    if (!skss__io_temps[i].live && !skss__io_temps[i].staged) return &skss__io_temps[i];
  return NULL;
}

static void skss__io_temp_release(skss__io_temp *t, bool remove) {
  if (remove && t->live) unlink(t->path);
  t->live = 0;
  t->staged = false;
}

/* Creates a new file with a unique short name in t->dir (so that any target
 * name works); O_EXCL rather than mkstemp so that the kernel applies the
 * umask to mode 0666 as for any new file. */
static int skss__io_create_temp(skss__io_temp *t) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t seed = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                  (uint64_t)(uintptr_t)t;
  for (int attempt = 0; attempt < 64; ++attempt) {
    seed += 0x9e3779b97f4a7c15u; /* splitmix64: a fresh well-mixed name each attempt */
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    char name[sizeof t->path];
    int len = snprintf(name, sizeof name, "%s/.skss-%016llx.tmp", t->dir, (unsigned long long)z);
    if (len < 0 || (size_t)len >= sizeof name) {
      errno = ENAMETOOLONG;
      return -1;
    }
    memcpy(t->path, name, (size_t)len + 1);
    atomic_signal_fence(memory_order_seq_cst); /* the name is complete before a handler may read it */
    t->live = 1;
    int fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    t->live = 0;
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

/* Makes the rename durable; some filesystems refuse fsync on a directory,
 * which costs durability only, so its result is deliberately not checked. */
static void skss__io_sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

/* Renames a finished temporary file over its target. */
static int skss__io_temp_commit(skss__io_temp *t, const char *target) {
  t->live = 0; /* from here on the name may be the target's: never unlink it */
  if (rename(t->path, target) != 0) {
    int e = errno;
    unlink(t->path);
    t->staged = false;
    return e;
  }
  t->staged = false;
  skss__io_sync_dir(t->dir);
  return 0;
}

/* ---- atomic and staged writes ---------------------------------------------------- */

static int skss__io_write_stdout(const skss__io_piece *pieces, int count, char *err) {
  int e = skss__io_write_all(STDOUT_FILENO, pieces, count);
  return e == 0 ? 0 : skss__io_fail_errno(err, "cannot write to", "stdout", e);
}

/* Writes the pieces into a new temporary file beside `path` (t->dir) and
 * closes it; returns 0 or an errno value with the step that failed. */
static int skss__io_write_temp(skss__io_temp *t, const struct stat *target, bool exists,
                               const skss__io_piece *pieces, int count, const char **step) {
  int fd = skss__io_create_temp(t);
  if (fd < 0) {
    *step = "cannot create a temporary file for";
    return errno;
  }
  int e = skss__io_write_all(fd, pieces, count);
  *step = "cannot write";
  if (e == 0 && exists && S_ISREG(target->st_mode) && fchmod(fd, target->st_mode & 07777) != 0) {
    e = errno;
    *step = "cannot set the mode of";
  }
  if (e == 0 && fsync(fd) != 0) {
    e = errno;
    *step = "cannot flush";
  }
  if (close(fd) != 0 && e == 0) {
    e = errno;
    *step = "cannot close";
  }
  return e;
}

int skss__io_write_pieces(const char *path, const skss__io_piece *pieces, int count, char *err) {
  if (strcmp(path, "-") == 0) return skss__io_write_stdout(pieces, count, err);
  size_t path_len = strlen(path);
  if (path_len == 0) return skss__io_fail(err, "the output path is empty");
  if (path_len >= SKSS__IO_PATH_MAX) return skss__io_fail(err, "the output path is too long");
  if (path[path_len - 1] == '/') return skss__io_fail(err, "cannot write %s: it names a directory", path);
  struct stat target;
  bool exists = stat(path, &target) == 0;
  if (exists && S_ISDIR(target.st_mode)) return skss__io_fail(err, "cannot write %s: it is a directory", path);
  skss__io_temp *t = skss__io_free_slot();
  if (t == NULL) return skss__io_fail(err, "cannot write %s: more than %d staged outputs", path, SKSS_IO_MAX_STAGED);
  skss__io_dir_of(path, t->dir, sizeof t->dir);
  /* checked now, so that a staged commit cannot fail on it after renaming another output */
  const char *slash = strrchr(path, '/');
  long name_max = pathconf(t->dir, _PC_NAME_MAX);
  if (strlen(slash ? slash + 1 : path) > (size_t)(name_max > 0 ? name_max : NAME_MAX))
    return skss__io_fail(err, "cannot write %s: the file name is longer than %ld bytes", path,
                         name_max > 0 ? name_max : (long)NAME_MAX);
  const char *step;
  int e = skss__io_write_temp(t, &target, exists, pieces, count, &step);
  if (e == 0 && skss__io_staging) {
    memcpy(t->target, path, path_len + 1);
    t->staged = true;
    return 0;
  }
  if (e == 0) {
    step = "cannot replace";
    e = skss__io_temp_commit(t, path);
  }
  if (e != 0) {
    skss__io_temp_release(t, true);
    return skss__io_fail_errno(err, step, path, e);
  }
  return 0;
}

int skss_write_file_atomic(const char *path, const void *data, size_t size, char err[SKSS_IO_ERRLEN]) {
  if (path == NULL || (data == NULL && size > 0))
    return skss__io_fail(err, "skss_write_file_atomic(): path is NULL or data is NULL with size > 0");
  skss__io_piece piece = {data, size};
  return skss__io_write_pieces(path, &piece, 1, err);
}

void skss_io_stage_begin(void) {
  skss_io_stage_abort();
  skss__io_staging = true;
}

int skss_io_stage_commit(char err[SKSS_IO_ERRLEN]) {
  int rc = 0;
  skss__io_staging = false;
  for (int i = 0; i < SKSS__IO_TEMP_SLOTS; ++i) {
    skss__io_temp *t = &skss__io_temps[i];
    if (!t->staged) continue;
    int e = rc == 0 ? skss__io_temp_commit(t, t->target) : 0;
    if (e != 0) rc = skss__io_fail_errno(err, "cannot replace", t->target, e);
    skss__io_temp_release(t, true);
  }
  return rc;
}

void skss_io_stage_abort(void) {
  skss__io_staging = false;
  for (int i = 0; i < SKSS__IO_TEMP_SLOTS; ++i)
    if (skss__io_temps[i].staged) skss__io_temp_release(&skss__io_temps[i], true);
}
