/*
 * bench_peers.c — the peers of the same run: bench/peers/cpu_peers.py is
 * started once with every case's spec, the seed, the thread count and the
 * timing plan as arguments; it rebuilds the inputs with NumPy, times Pillow,
 * OpenCV, OR-Tools and NumPy, and answers one JSON document on stdout. Its
 * rows join the report; the signature each peer reports of its own result
 * (a sum, a count, an optimum) is compared with ours, which shows both sides
 * worked on the same data. A missing interpreter, script or module is
 * recorded in the report, never an error; cJSON reads the answer. In a GPU
 * run the script is gpu_peers.py (torch on the GPU, timed with CUDA events
 * with the GPU plan, and OpenCV on the host; the other primitives as
 * cpu_peers.py), every distinct spec is passed once, and its rows join every
 * case of that spec.
 *
 * The script is found in --peers-dir, else $SKSS_PEERS_DIR, else the source
 * tree the bench was compiled from (SKSS_BENCH_PEERS_DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "bench.h"

#define PEERS_SCRIPT "cpu_peers.py"
#define GPU_PEERS_SCRIPT "gpu_peers.py"
#define PEERS_FIXED_ARGS 32

static int read_all(int fd, char **out, size_t *out_len) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (buf == NULL) return -1;
  for (;;) {
    if (len + 1 == cap) {
      char *grown = realloc(buf, 2 * cap);
      if (grown == NULL) {
        free(buf);
        return -1;
      }
      buf = grown;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + len, cap - 1 - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += (size_t)got;
  }
  buf[len] = '\0';
  *out = buf;
  *out_len = len;
  return 0;
}

int bench_capture(char *const argv[], int discard_stderr, char **out, size_t *out_len,
                  char err[BENCH_ERRLEN]) {
  int fds[2];
  if (pipe(fds) != 0) {
    snprintf(err, BENCH_ERRLEN, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL); /* the child must not repeat our buffered output */
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, BENCH_ERRLEN, "fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    int null_fd = discard_stderr ? open("/dev/null", O_WRONLY) : -1;
    if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  int rc = read_all(fds[0], out, out_len);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  if (rc != 0) {
    snprintf(err, BENCH_ERRLEN, "out of memory reading the output of %s", argv[0]);
    return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static const char *peers_dir(const bench_config *cfg) {
  if (cfg->peers_dir != NULL) return cfg->peers_dir;
  const char *env = getenv("SKSS_PEERS_DIR");
  if (env != NULL && env[0] != '\0') return env;
#ifdef SKSS_BENCH_PEERS_DIR
  return SKSS_BENCH_PEERS_DIR;
#else
  return NULL;
#endif
}

/* Argument strings that must outlive the argv array. */
typedef struct peer_args {
  char script[4096], seed[24], threads[16], min_time[24], max_time[24], min_runs[16], repeat[16];
  char gpu_min_time[24], gpu_max_time[24], gpu_min_runs[16], gpu_max_runs[16];
} peer_args;

/* Whether case k's spec goes to the script: it has peers, and no earlier
 * case has the same spec. */
static int spec_wanted(const bench_report *rep, size_t k) {
  const bench_case *c = &rep->cases.items[k];
  if (c->no_peers || c->no_script_peers) return 0;
  for (size_t j = 0; j < k; j++)
    if (!rep->cases.items[j].no_peers && !rep->cases.items[j].no_script_peers &&
        strcmp(rep->cases.items[j].spec, c->spec) == 0)
      return 0;
  return 1;
}

static size_t add_gpu_args(const bench_config *cfg, peer_args *a, char **argv, size_t n) {
  bench_plan plan = bench_gpu_plan_for(cfg);
  snprintf(a->gpu_min_time, sizeof a->gpu_min_time, "%g", plan.min_time_s);
  snprintf(a->gpu_max_time, sizeof a->gpu_max_time, "%g", plan.max_time_s);
  snprintf(a->gpu_min_runs, sizeof a->gpu_min_runs, "%d", plan.min_runs);
  snprintf(a->gpu_max_runs, sizeof a->gpu_max_runs, "%d", plan.max_runs);
  char *args[] = {"--gpu-min-time", a->gpu_min_time, "--gpu-max-time", a->gpu_max_time,
                  "--gpu-min-runs", a->gpu_min_runs, "--gpu-max-runs", a->gpu_max_runs};
  for (size_t k = 0; k < sizeof args / sizeof args[0]; k++) argv[n++] = args[k];
  return n;
}

static char **build_argv(const bench_config *cfg, const bench_report *rep, peer_args *a) {
  char **argv = malloc((PEERS_FIXED_ARGS + 2 * rep->cases.count) * sizeof *argv);
  if (argv == NULL) return NULL;
  bench_plan plan = bench_plan_for(cfg);
  snprintf(a->seed, sizeof a->seed, "%llu", (unsigned long long)cfg->seed);
  snprintf(a->threads, sizeof a->threads, "%d", cfg->threads);
  snprintf(a->min_time, sizeof a->min_time, "%g", plan.min_time_s);
  snprintf(a->max_time, sizeof a->max_time, "%g", plan.max_time_s);
  snprintf(a->min_runs, sizeof a->min_runs, "%d", plan.min_runs);
  snprintf(a->repeat, sizeof a->repeat, "%d", cfg->repeat);
  size_t n = 0;
  char *fixed[] = {(char *)cfg->python, a->script,   "--seed",     a->seed,     "--threads",
                   a->threads,          "--min-time", a->min_time, "--max-time", a->max_time,
                   "--min-runs",        a->min_runs, "--repeat",   a->repeat};
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) argv[n++] = fixed[k];
  if (cfg->quick) argv[n++] = "--quick";
  if (cfg->gpu) n = add_gpu_args(cfg, a, argv, n);
  for (size_t k = 0; k < rep->cases.count; k++) {
    if (!spec_wanted(rep, k)) continue;
    argv[n++] = "--case";
    argv[n++] = rep->cases.items[k].spec;
  }
  argv[n] = NULL;
  return argv;
}

/* Member `key` of `obj` when it is a number (a string), else `fallback`. */
static double json_number(const cJSON *obj, const char *key, double fallback) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

static const char *json_string(const cJSON *obj, const char *key, const char *fallback) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : fallback;
}

/* "agrees" when the peer's signature equals ours (float sums: within 1e-3
 * (f32) or 1e-9 (f64) relative, the peers sum in another order), "differs"
 * otherwise. */
static const char *compare_signature(const bench_case *c, const cJSON *sig) {
  if (!c->has_signature || !cJSON_IsArray(sig) || cJSON_GetArraySize(sig) != 2) return "n/a";
  skss_dtype out = c->op == SKSS_OP_SAT ? c->p.sat.out : SKSS_DTYPE_U8;
  double rel = out == SKSS_DTYPE_F32 ? 1e-3 : out == SKSS_DTYPE_F64 ? 1e-9 : 0;
  for (int k = 0; k < 2; k++) {
    const cJSON *item = cJSON_GetArrayItem(sig, k);
    if (!cJSON_IsNumber(item)) return "differs";
    double got = item->valuedouble, want = c->signature[k];
    if (rel > 0 ? !(fabs(got - want) <= rel * fabs(want)) : got != want) return "differs";
  }
  return "agrees";
}

static bench_outcome outcome_of(const char *status) {
  if (strcmp(status, "ok") == 0) return BENCH_ROW_OK;
  if (strcmp(status, "unavailable") == 0) return BENCH_ROW_UNAVAILABLE;
  if (strcmp(status, "timeout") == 0) return BENCH_ROW_TIMEOUT;
  return BENCH_ROW_FAILED;
}

static void add_peer_row(bench_report *rep, size_t ci, const cJSON *res) {
  bench_row *r = bench_report_add_row(rep, ci);
  if (r == NULL) return;
  const bench_case *c = &rep->cases.items[ci];
  r->is_peer = 1;
  r->on_gpu = strcmp(json_string(res, "device", "cpu"), "gpu") == 0;
  snprintf(r->algorithm, sizeof r->algorithm, "%s", json_string(res, "peer", "?"));
  snprintf(r->backend, sizeof r->backend, "peer");
  r->threads = (int)json_number(res, "threads", 1);
  r->outcome = outcome_of(json_string(res, "status", "error"));
  snprintf(r->message, sizeof r->message, "%s", json_string(res, "message", ""));
  r->t.median_s = json_number(res, "median_s", 0);
  r->t.min_s = json_number(res, "min_s", 0);
  r->t.p90_s = json_number(res, "p90_s", 0);
  r->t.runs = (int)json_number(res, "runs", 0);
  r->t.cores_used = json_number(res, "cores_used", 0);
  const cJSON *opt = cJSON_GetObjectItemCaseSensitive(res, "optimal");
  r->optimal = cJSON_IsBool(opt) ? cJSON_IsTrue(opt) : -1;
  snprintf(r->check, sizeof r->check, "%s",
           compare_signature(c, cJSON_GetObjectItemCaseSensitive(res, "signature")));
  if (r->outcome == BENCH_ROW_OK && r->t.median_s <= 0) r->outcome = BENCH_ROW_FAILED;
  if (r->outcome != BENCH_ROW_OK) return;
  r->bytes = json_number(res, "bytes", 0);
  r->throughput = c->items / r->t.median_s;
}

static void read_answer(bench_report *rep, const cJSON *doc) {
  snprintf(rep->python_version, sizeof rep->python_version, "%s", json_string(doc, "python", "?"));
  const cJSON *versions = cJSON_GetObjectItemCaseSensitive(doc, "versions"), *v;
  if (cJSON_IsObject(versions)) {
    cJSON_ArrayForEach(v, versions) {
      if (rep->n_versions == BENCH_MAX_VERSIONS) break;
      snprintf(rep->versions[rep->n_versions][0], sizeof rep->versions[0][0], "%s", v->string);
      snprintf(rep->versions[rep->n_versions][1], sizeof rep->versions[0][1], "%s",
               cJSON_IsString(v) ? v->valuestring : "not installed");
      rep->n_versions++;
    }
  }
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results"), *res;
  if (!cJSON_IsArray(results)) return;
  cJSON_ArrayForEach(res, results) {
    const char *spec = json_string(res, "case", "");
    for (size_t ci = 0; ci < rep->cases.count; ci++)
      if (!rep->cases.items[ci].no_peers && !rep->cases.items[ci].no_script_peers &&
          strcmp(rep->cases.items[ci].spec, spec) == 0)
        add_peer_row(rep, ci, res);
  }
}

/* The peers' answer (`text` is NUL-terminated, nothing may follow the
 * object), or NULL with err set. cJSON reports a syntax error and running
 * out of memory alike, at the byte where it stopped. */
static cJSON *parse_answer(const char *text, size_t len, char err[BENCH_ERRLEN]) {
  cJSON *doc = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);
  if (doc == NULL) {
    const char *stop = cJSON_GetErrorPtr();
    long long at = stop != NULL && stop >= text && stop <= text + len ? (long long)(stop - text) : 0;
    snprintf(err, BENCH_ERRLEN, "not JSON (or out of memory) at byte %lld of %zu", at, len);
  } else if (!cJSON_IsObject(doc)) {
    snprintf(err, BENCH_ERRLEN, "not a JSON object");
    cJSON_Delete(doc);
    doc = NULL;
  }
  return doc;
}

void bench_run_peers(const bench_config *cfg, bench_report *rep) {
  const char *dir = peers_dir(cfg);
  char err[BENCH_ERRLEN] = "";
  peer_args args;
  if (dir == NULL) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: no peers directory (--peers-dir or SKSS_PEERS_DIR)");
    return;
  }
  size_t wanted = 0;
  for (size_t k = 0; k < rep->cases.count; k++) wanted += spec_wanted(rep, k);
  if (wanted == 0) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: no case of this run has peers");
    return;
  }
  snprintf(args.script, sizeof args.script, "%s/%s", dir, cfg->gpu ? GPU_PEERS_SCRIPT : PEERS_SCRIPT);
  if (access(args.script, R_OK) != 0) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: %.200s: %s", args.script, strerror(errno));
    return;
  }
  char **argv = build_argv(cfg, rep, &args), *out = NULL;
  size_t len = 0;
  if (argv == NULL) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: out of memory");
    return;
  }
  int status = bench_capture(argv, 0, &out, &len, err);
  free(argv);
  cJSON *doc = status >= 0 ? parse_answer(out, len, err) : NULL;
  if (doc != NULL) {
    rep->peers_ran = 1;
    read_answer(rep, doc);
    snprintf(rep->peers_message, BENCH_ERRLEN, "%.200s (exit status %d)", args.script, status);
  } else if (status == 127 && len == 0) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: cannot run %.200s", cfg->python);
  } else if (status >= 0) {
    snprintf(rep->peers_message, BENCH_ERRLEN, "%.50s %.100s exited with status %d; output: %.60s", cfg->python,
             args.script, status, err);
  } else {
    snprintf(rep->peers_message, BENCH_ERRLEN, "not run: %.200s", err);
  }
  cJSON_Delete(doc);
  free(out);
}
