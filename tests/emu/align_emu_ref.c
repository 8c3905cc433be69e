/* align_emu_ref.c — the CPU pass (cpu/align_impl.h, a C header) for the C++ emulator test. */
#include "cpu/align_impl.h"

void skss_emu_ref_pass(const skss__align_scores *sc, skss__align_pass *p);

void skss_emu_ref_pass(const skss__align_scores *sc, skss__align_pass *p) {
  skss__align_pass_run(NULL, 1, sc, p, NULL);
}
