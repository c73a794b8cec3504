/*
 * reader_counters.c — the coverage counters of libcapture_reader{,_asan}.so (its own
 * __sancov_cntrs section, bounded by the linker's __start_/__stop_ symbols): fuzz_guard.c copies
 * them from the child that ran an input back into the fuzzer's process.
 *
 * Compiled WITHOUT -fsanitize=fuzzer-no-link (run_fuzz.sh): in an instrumented file this reference
 * to the section's bounds keeps the library's counters from being registered with libFuzzer
 * (clang 14: "Loaded 1 modules", then a PC-table size mismatch).
 */
#include <stdint.h>

extern uint8_t __start___sancov_cntrs[] __attribute__((weak, visibility("hidden")));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak, visibility("hidden")));

void capture_fuzz_counters(uint8_t **begin, uint8_t **end) {
  *begin = __start___sancov_cntrs;
  *end = __stop___sancov_cntrs;
}
