/*
 * fuzz_fasta.c — libFuzzer target of the FASTA reader. The first byte picks
 * the alphabet (odd: protein), the rest is the text. A parsed record must
 * hold at least one letter, only upper-case letters of the alphabet, no
 * more letters than the text has bytes, and a name without a newline.
 */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const skss_fasta_alphabet alphabet = (data[0] & 1) ? SKSS_FASTA_PROTEIN : SKSS_FASTA_DNA;
  skss_fasta rec;
  char err[SKSS_IO_ERRLEN] = "";
  if (skss_fasta_parse((const char *)data + 1, size - 1, alphabet, &rec, err) != 0) {
    fuzz_check_failure(err, &rec, sizeof rec);
    return 0;
  }
  fuzz_require(rec.name != NULL && rec.seq != NULL && rec.len >= 1 && (size_t)rec.len < size);
  fuzz_require(strchr(rec.name, '\n') == NULL && (int64_t)strlen(rec.seq) == rec.len);
  const char *letters = skss_fasta_letters(alphabet);
  for (int64_t k = 0; k < rec.len; ++k) fuzz_require(strchr(letters, rec.seq[k]) != NULL);
  skss_fasta_free(&rec);
  return 0;
}
