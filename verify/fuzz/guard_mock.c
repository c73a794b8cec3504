/*
 * guard_mock.c — stand-ins for the capture reader and for libhdf5, for fuzz_guard.c's self-test
 * (guard_test.sh). Built twice: with -DMOCK_HDF5 as libhdf5_guardmock.so (the guard counts a frame
 * in any shared object named libhdf5* as HDF5's), and without as libcapture_reader_guardmock.so
 * (named as the reader). The first byte of an input says what the "reader" does with it; the
 * times are in units of the guard's CPU budget ($FUZZ_GUARD_HANG_MS), spent as CPU time:
 *   R  loops forever in the reader                   -> ours (the run aborts)
 *   H  loops forever in HDF5                         -> HDF5's hang (counted, fuzzing goes on)
 *   S  0.5 budget in HDF5, then 1.0 in the reader    -> neither: the budget runs out inside the
 *      (slow, finite: the budget runs out in the        reader's stretch, but the input ends
 *      reader's stretch)                                before a loop could be told from it
 *   T  12 budgets in the reader (slow, finite)       -> ours with re-armed budgets of one budget
 *                                                       (9 samples, all in the reader); neither
 *                                                       with $FUZZ_GUARD_RESAMPLE_MS of 4 budgets
 *                                                       (the input ends at the 4th sample)
 *   C  null write in the reader                      -> ours
 *   K  null write in HDF5                            -> HDF5's crash
 *   P  HDF5 calls through a corrupt function pointer -> HDF5's crash (the unwinder cannot start
 *      (to an unmapped address)                         at a pc that is no code; the guard reads
 *                                                       the caller from the stack)
 *   D  HDF5 calls into libc's data (a function       -> HDF5's crash
 *      pointer read from freed memory, which holds
 *      pointers into malloc's state)
 *   Q  the reader calls into its heap (mapped, not   -> ours
 *      code)
 *   anything else: returns at once.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#ifdef MOCK_HDF5
void mock_hdf5_spin(double ms) { /* ms < 0: forever */
  const double t0 = cpu_ms();
  while (ms < 0 || cpu_ms() - t0 < ms) {
  }
}
void mock_hdf5_crash(void) { *(volatile int *)(uintptr_t)8 = 1; }
void mock_hdf5_data_call(void) {
  void (*volatile fp)(void) = (void (*)(void))(void *)stdin; /* libc's FILE object: data */
  fp();
}
void mock_hdf5_bad_call(void) {
  void (*volatile fp)(void) = (void (*)(void))(uintptr_t)0x10;
  fp();
}
#else
void mock_hdf5_spin(double ms);
void mock_hdf5_crash(void);
void mock_hdf5_bad_call(void);
void mock_hdf5_data_call(void);

static uint8_t g_counters[64];
void capture_fuzz_init(void) {}
void capture_fuzz_counters(uint8_t **begin, uint8_t **end) {
  *begin = g_counters;
  *end = g_counters + sizeof g_counters;
}

static void __attribute__((noinline)) reader_spin(double ms) {
  const double t0 = cpu_ms();
  while (ms < 0 || cpu_ms() - t0 < ms) {
  }
}

int capture_fuzz_one(const uint8_t *data, size_t size) {
  const char *h = getenv("FUZZ_GUARD_HANG_MS");
  const double budget = h && atol(h) > 0 ? (double)atol(h) : 10.0;
  const int what = size ? data[0] : 0;
  g_counters[what % sizeof g_counters] = 1;
  switch (what) {
    case 'R': reader_spin(-1); break;
    case 'H': mock_hdf5_spin(-1); break;
    case 'S': mock_hdf5_spin(0.5 * budget); reader_spin(1.0 * budget); break;
    case 'T': reader_spin(12.0 * budget); break;
    case 'C': *(volatile int *)(uintptr_t)8 = 1; break;
    case 'K': mock_hdf5_crash(); break;
    case 'P': mock_hdf5_bad_call(); break;
    case 'D': mock_hdf5_data_call(); break;
    case 'Q': {
      static char *heap;
      if (!heap) heap = calloc(1, 4096);
      void (*volatile fp)(void) = (void (*)(void))(uintptr_t)heap;
      fp();
      break;
    }
    default: break;
  }
  return 0;
}
#endif
