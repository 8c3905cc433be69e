/*
 * fasta.c — the first record of a FASTA text, our own line-based reader
 * (skss_io.h states the rules): a '>' header line, then sequence lines up
 * to the next '>' line or the end. Blank lines, spaces, tabs and '\r' are
 * skipped; letters are checked against the chosen alphabet and stored upper
 * case. The sequence buffer is sized by the text, so no input can make it
 * grow past the file. Single-threaded.
 */
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

static const char DNA_LETTERS[] = "ACGTN";
static const char PROTEIN_LETTERS[] = "ACDEFGHIKLMNPQRSTVWYBZX*";

const char *skss_fasta_letters(skss_fasta_alphabet alphabet) {
  return alphabet == SKSS_FASTA_PROTEIN ? PROTEIN_LETTERS : DNA_LETTERS;
}

void skss_fasta_free(skss_fasta *f) {
  if (f == NULL) return;
  free(f->name);
  free(f->seq);
  memset(f, 0, sizeof *f);
}

static bool skss__fa_skip(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The end of the line that starts at pos (the '\n' or the text's end). */
static size_t skss__fa_line_end(const uint8_t *data, size_t size, size_t pos) {
  const uint8_t *nl = memchr(data + pos, '\n', size - pos);
  return nl != NULL ? (size_t)(nl - data) : size;
}

/* The header line from pos (just past '>') to its end, '\r' and blanks trimmed. */
static int skss__fa_name(const uint8_t *data, size_t pos, size_t end, skss_fasta *out, char *err) {
  while (pos < end && skss__fa_skip(data[pos])) ++pos;
  while (end > pos && skss__fa_skip(data[end - 1])) --end;
  out->name = malloc(end - pos + 1);
  if (out->name == NULL) return skss__io_fail_nomem(err, "no memory for a FASTA header of %zu bytes", end - pos);
  memcpy(out->name, data + pos, end - pos);
  out->name[end - pos] = '\0';
  return 0;
}

static int skss__fa_bad_letter(uint8_t c, int64_t line, skss_fasta_alphabet alphabet, char *err) {
  const char *kind = alphabet == SKSS_FASTA_PROTEIN ? "protein" : "DNA";
  if (c >= 0x21 && c <= 0x7E)
    return skss__io_fail(err, "line %lld: '%c' is not a %s letter (%s, either case)", (long long)line, c, kind,
                         skss_fasta_letters(alphabet));
  return skss__io_fail(err, "line %lld: byte 0x%02x is not a %s letter (%s, either case)", (long long)line,
                       (unsigned)c, kind, skss_fasta_letters(alphabet));
}

static int skss__fa_parse(const uint8_t *data, size_t size, skss_fasta_alphabet alphabet, skss_fasta *out,
                          char *err) {
  uint8_t allowed[256] = {0};
  for (const char *p = skss_fasta_letters(alphabet); *p; ++p) {
    allowed[(uint8_t)*p] = (uint8_t)*p;
    if (*p >= 'A' && *p <= 'Z') allowed[(uint8_t)(*p - 'A' + 'a')] = (uint8_t)*p;
  }
  size_t pos = 0;
  int64_t line = 1;
  /* Blank lines before the header. */
  for (;;) {
    if (pos >= size) return skss__io_fail(err, "no FASTA record (the text is empty or blank)");
    const size_t end = skss__fa_line_end(data, size, pos);
    size_t first = pos;
    while (first < end && skss__fa_skip(data[first])) ++first;
    if (first < end) {
      if (data[first] != '>')
        return skss__io_fail(err, "line %lld: expected a '>' header line before the sequence", (long long)line);
      int rc = skss__fa_name(data, first + 1, end, out, err);
      if (rc != 0) return rc;
      pos = end < size ? end + 1 : end;
      ++line;
      break;
    }
    pos = end < size ? end + 1 : end;
    ++line;
  }
  out->seq = malloc(size - pos + 1);
  if (out->seq == NULL) return skss__io_fail_nomem(err, "no memory for a sequence of up to %zu letters", size - pos);
  int64_t len = 0;
  while (pos < size) {
    const size_t end = skss__fa_line_end(data, size, pos);
    size_t first = pos;
    while (first < end && skss__fa_skip(data[first])) ++first;
    if (first < end && data[first] == '>') break; /* the next record: ignored */
    for (size_t k = first; k < end; ++k) {
      const uint8_t c = data[k];
      if (skss__fa_skip(c)) continue;
      if (allowed[c] == 0) return skss__fa_bad_letter(c, line, alphabet, err);
      out->seq[len++] = (char)allowed[c];
    }
    pos = end < size ? end + 1 : end;
    ++line;
  }
  out->seq[len] = '\0';
  out->len = len;
  if (len == 0) return skss__io_fail(err, "the first FASTA record ('%s') has no letters", out->name);
  return 0;
}

int skss_fasta_parse(const char *text, size_t size, skss_fasta_alphabet alphabet, skss_fasta *out,
                     char err[SKSS_IO_ERRLEN]) {
  if (out == NULL || (text == NULL && size > 0)) return skss__io_fail(err, "skss_fasta_parse(): bad arguments");
  memset(out, 0, sizeof *out);
  if (alphabet != SKSS_FASTA_DNA && alphabet != SKSS_FASTA_PROTEIN)
    return skss__io_fail(err, "skss_fasta_parse(): unknown alphabet %d", (int)alphabet);
  const int rc = skss__fa_parse((const uint8_t *)text, size, alphabet, out, err);
  if (rc != 0) skss_fasta_free(out);
  return rc;
}

int skss_fasta_read(const char *path, skss_fasta_alphabet alphabet, skss_fasta *out, char err[SKSS_IO_ERRLEN]) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (path == NULL || out == NULL) return skss__io_fail(err, "skss_fasta_read(): path and out must not be NULL");
  uint8_t *data;
  size_t size;
  int rc = skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, &data, &size, err);
  if (rc != 0) return rc;
  rc = skss_fasta_parse((const char *)data, size, alphabet, out, err);
  free(data);
  return rc == 0 ? 0 : skss__io_fail_path(err, path, rc);
}
