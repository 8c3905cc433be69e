/*
 * bench_machine.c — what a result file needs to be read later: the CPU model
 * (/proc/cpuinfo), online cores, kernel, the date, and the git commit of the
 * source: SKSS_GIT_COMMIT when the build defines it, else `git describe` of
 * the source tree the bench was compiled from, else "unknown".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static void cpu_model(char *out, size_t len) {
  char line[512];
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || colon == NULL) continue;
    colon += strspn(colon + 1, " \t") + 1;
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(out, len, "%s", colon);
    break;
  }
  fclose(f);
}

static void git_commit(char *out, size_t len) {
  snprintf(out, len, "unknown");
#if defined(SKSS_GIT_COMMIT)
  snprintf(out, len, "%s", SKSS_GIT_COMMIT);
#elif defined(SKSS_BENCH_SOURCE_DIR)
  char *argv[] = {"git", "-C", SKSS_BENCH_SOURCE_DIR, "describe", "--always", "--dirty", "--abbrev=12", NULL};
  char *text = NULL, err[BENCH_ERRLEN];
  size_t n = 0;
  if (bench_capture(argv, 1, &text, &n, err) == 0 && n > 0) {
    text[strcspn(text, "\n")] = '\0';
    snprintf(out, len, "%s", text);
  }
  free(text);
#endif
}

void bench_describe_machine(bench_report *rep) {
  cpu_model(rep->cpu_model, sizeof rep->cpu_model);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  rep->cores = cores > 0 ? (int)cores : 1;
  struct utsname u;
  if (uname(&u) == 0)
    snprintf(rep->kernel, sizeof rep->kernel, "%s %s %s", u.sysname, u.release, u.machine);
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc) != NULL) strftime(rep->date, sizeof rep->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  git_commit(rep->git_commit, sizeof rep->git_commit);
}
