/*
 * fuzz_guard.c — libFuzzer entry point of capture_fuzz: inputs run in a forked child (a fork server).
 *
 * HDF5 1.10 crashes, loops or asks for terabytes on many corrupt files (verify/RESULTS.md), which
 * in-process ends a libFuzzer run every few hundred inputs; libFuzzer's -fork mode restarts and
 * re-reads the corpus each time, which held the rate near 30 executions/s, and a fork per input
 * costs ~4 ms of CPU. Here the fuzzer's process (HDF5 initialised once) forks a child that runs
 * input after input: each input is passed through shared memory with a one-byte pipe message, the
 * child runs capture_fuzz_one from libcapture_reader{,_asan}.so and copies that library's coverage
 * counters back (reset before each input), so coverage guidance works as in-process. When the
 * child dies, the next input gets a fresh child. A child that dies is judged by the shared object
 * of the innermost frame that is in the reader library or in libhdf5 (backtrace + dladdr, taken in
 * the signal handler or the sanitizer's death callback; at a pc that is no code, by the caller
 * whose return address the call left on the stack, classify_bad_pc):
 *   - in libhdf5 (also libc called from HDF5), or capture_fuzz_one's report that HDF5 cannot close
 *     the file: HDF5's own bug; counted, the input saved under
 *     $FUZZ_GUARD_SAVE (at most $FUZZ_GUARD_SAVE_MAX) for the replay check, fuzzing goes on;
 *   - in the reader, or no such frame, or an exit without a verdict: ours; the child's report is
 *     on stderr, and the fuzzer's process aborts, so libFuzzer writes the input as a crash.
 * A hang is an input that uses more than $FUZZ_GUARD_HANG_MS of CPU time (default 4, 40 under
 * ASan: CPU time, so a loaded machine does not make hangs; a valid 80 KB capture takes about 1 ms;
 * HDF5's endless loops, 3-6% of the inputs once the corpus holds a few, make this limit the main
 * cost of a run: 10 ms ran 1,087-1,190 executions a second on 2 cores, 4 ms 1,785-2,083), judged
 * by where the CPU time goes: one sample of the timer in libhdf5 makes it HDF5's; a first sample
 * in the reader takes more, at $FUZZ_GUARD_RESAMPLE_MS each (default 10, 100 under ASan; never
 * less than the first budget) so that a slow input of ours is not cut short (on_signal), and the
 * majority decides. Huge allocations fail (return NULL) rather than kill: RLIMIT_AS in the plain
 * build, allocator_may_return_null under ASan (run_fuzz.sh). Under ASan,
 * after an input whose mallocs and frees do not balance, LeakSanitizer runs (leaks inside libhdf5
 * suppressed by run_fuzz.sh's LSAN_OPTIONS): a leak it reports is ours.
 * A child carries state from input to input: HDF5 can overrun one of its own heap blocks silently
 * (no sanitizer in the fast build) and the damage surfaces inputs later, in the reader's malloc
 * or free. So the fuzzer's process keeps the inputs the current child has served (a child serves
 * at most HIST_MAX, then a fresh one takes over: damage from an input the record had dropped could
 * not be replayed), and when it judges a fault ours it writes them, in order, to
 * $FUZZ_GUARD_SAVE/history-<pid>/NNNN (the faulting input last): run_fuzz.sh replays that
 * sequence in the ASan build, which sees the first overrun where it happens.
 * FUZZ_GUARD=0 runs inputs in-process (triage of one saved input, with the sanitizer's report).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if __has_feature(address_sanitizer)
#define GUARD_ASAN 1
#else
#define GUARD_ASAN 0
#endif

void capture_fuzz_init(void);
int capture_fuzz_one(const uint8_t *data, size_t size);
void capture_fuzz_counters(uint8_t **begin, uint8_t **end);

/* Sanitizer interface (present only in the ASan build). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *)) __attribute__((weak));

enum { V_NONE = 0, V_DONE, V_OURS, V_HDF5 };
#define MAX_INPUT (64u << 20) /* bytes; libFuzzer's -max_len is far below */
typedef struct {
  volatile int verdict;
  volatile int sig; /* the signal, 0 for a sanitizer report */
  char where[480];
  size_t len; /* of the input in shm_input */
} verdict_t;

static verdict_t *g_v; /* shared with the child */
static uint8_t *g_shm_cnt, *g_shm_input;
static uint8_t *g_cnt_begin, *g_cnt_end;
static int g_on = 1, g_verbose;
static long g_hang_ms = GUARD_ASAN ? 40 : 4, g_resample_ms = GUARD_ASAN ? 100 : 10;
static const char *g_save;
static long g_save_max = 100, g_saved;
static long g_inputs, g_children, g_hdf5_crash, g_hdf5_hang, g_hdf5_stuck;
static pid_t g_child;
static int g_to_child = -1, g_from_child = -1;

/* The shared object an address is in: V_OURS (the reader), V_HDF5 (libhdf5), V_NONE (another one:
 * libc, the fuzz binary) or -1 (none: not code of any loaded object). */
static int object_of(void *pc, char *where, size_t len) {
  Dl_info di;
  if (!dladdr(pc, &di) || !di.dli_fname) return -1;
  const int ours = strstr(di.dli_fname, "libcapture_reader") != NULL;
  if (!ours && !strstr(di.dli_fname, "libhdf5")) return V_NONE;
  const char *base = strrchr(di.dli_fname, '/');
  snprintf(where, len, "%s+0x%lx (%s)", base ? base + 1 : di.dli_fname,
           (unsigned long)((uintptr_t)pc - (uintptr_t)di.dli_fbase), di.dli_sname ? di.dli_sname : "?");
  return ours ? V_OURS : V_HDF5;
}

/* Where the current stack is: the innermost frame in the reader or in libhdf5 decides. Frames of
 * the fuzz binary (this guard, libFuzzer, the sanitizer runtime, its interceptors) and of libc are
 * skipped, so libc called from the reader counts as the reader. */
static int classify(void **fr, int n, char *where, size_t len) {
  for (int i = 0; i < n; ++i) {
    const int v = object_of(fr[i], where, len);
    if (v == V_OURS || v == V_HDF5) return v;
  }
  snprintf(where, len, "no frame in the reader or in libhdf5");
  return V_OURS;
}

/* What addr is in this process (/proc/self/maps; open, read and close are async-signal-safe):
 * MAP_CODE an executable mapping (also when the maps cannot be read: judged as before, by the
 * stack), MAP_DATA a mapping that is not executable (a heap, a stack, an object's data segment),
 * MAP_NONE none. */
enum { MAP_NONE, MAP_DATA, MAP_CODE };
static int mapping_of(uintptr_t addr) {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MAP_CODE;
  static char buf[8192];
  size_t have = 0;
  int found = MAP_NONE;
  for (;;) {
    const ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
    if (r <= 0) break;
    have += (size_t)r;
    buf[have] = '\0';
    char *line = buf, *nl;
    while ((nl = strchr(line, '\n')) != NULL) { /* "lo-hi perms ..." */
      *nl = '\0';
      char *dash = strchr(line, '-');
      if (dash) {
        const uintptr_t lo = (uintptr_t)strtoull(line, NULL, 16), hi = (uintptr_t)strtoull(dash + 1, &dash, 16);
        if (addr >= lo && addr < hi) {
          found = dash[0] == ' ' && dash[3] == 'x' ? MAP_CODE : MAP_DATA;
          break;
        }
      }
      line = nl + 1;
    }
    if (found) break;
    have = (size_t)(buf + have - line);
    memmove(buf, line, have);
  }
  close(fd);
  return found;
}

/* A fault at a pc that is no code (a call through a corrupt function pointer: into freed memory,
 * whose first words point into libc's malloc state, or to an unmapped address) leaves the unwinder
 * nothing to start from: backtrace() ends at the signal frame, and at an unmapped pc it faults
 * itself (libgcc reads the code at pc looking for a signal trampoline). The caller is then the
 * return address the call pushed, at the top of the faulting stack; that decides. Returns 0 when
 * pc is code (backtrace() judges), else the verdict; *unmapped tells whether backtrace() may run. */
static int classify_bad_pc(const ucontext_t *uc, char *where, size_t len, int *unmapped) {
  *unmapped = 0;
#if defined(__x86_64__)
  if (!uc) return 0;
  void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
  const int map = mapping_of((uintptr_t)pc);
  if (map == MAP_CODE) return 0;
  *unmapped = map == MAP_NONE;
  char tmp[sizeof g_v->where];
  void *ret = *(void *const *)uc->uc_mcontext.gregs[REG_RSP];
  int v = object_of(ret, tmp, sizeof tmp);
  if (v != V_OURS && v != V_HDF5) {
    if (!*unmapped) return 0;
    v = V_OURS; /* nothing tells whose call it was */
    snprintf(tmp, sizeof tmp, "an unknown caller (return address %p)", ret);
  }
  snprintf(where, len, "pc %p, not code, called from %s", pc, tmp);
  return v;
#else
  (void)uc, (void)where, (void)len;
  return 0;
#endif
}

static void judge(int sig, const ucontext_t *uc) {
  void *fr[128];
  char buf[sizeof g_v->where];
  int unmapped;
  int v = classify_bad_pc(uc, buf, sizeof buf, &unmapped);
  const int n = unmapped ? 0 : backtrace(fr, 128);
  if (!v) v = classify(fr, n, buf, sizeof buf);
  snprintf(g_v->where, sizeof g_v->where, "%s", buf);
  g_v->sig = sig;
  g_v->verdict = v;
  if (v == V_OURS) {
    static const char msg[] = "fuzz_guard: fault in the reader; stack:\n";
    (void)!write(2, msg, sizeof msg - 1);
    backtrace_symbols_fd(fr, n, 2);
  }
}

/* A hang is judged by samples, not by one: the CPU timer lands wherever the input's time happens
 * to be going when the budget runs out, and an input that spends most of it in HDF5 can be caught
 * in a short stretch of the reader's own work (a copy or a scan of what HDF5 returned). When the
 * first sample is in the reader, the timer is re-armed for HANG_SAMPLES more budgets of
 * $FUZZ_GUARD_RESAMPLE_MS; the hang is ours only if most samples land in the reader (a loop of
 * ours stays there), HDF5's otherwise, and an input that finishes meanwhile was slow, not hung. */
#define HANG_SAMPLES 8
static volatile int g_prof_ours, g_prof_hdf5;

static void on_signal(int sig, siginfo_t *si, void *ctx) {
  (void)si;
  if (sig == SIGPROF) {
    void *fr[128];
    const int n = backtrace(fr, 128);
    char buf[sizeof g_v->where];
    classify(fr, n, buf, sizeof buf) == V_OURS ? g_prof_ours++ : g_prof_hdf5++;
    const int samples = g_prof_ours + g_prof_hdf5;
    if (g_prof_ours > 0 && samples <= HANG_SAMPLES) {
      const struct itimerval again = {{0, 0}, {g_resample_ms / 1000, (g_resample_ms % 1000) * 1000}};
      setitimer(ITIMER_PROF, &again, NULL);
      return;
    }
    const int ours = g_prof_ours > g_prof_hdf5;
    snprintf(g_v->where, sizeof g_v->where, "%s; %d of %d CPU-time samples in the reader", buf,
             g_prof_ours, samples);
    g_v->sig = sig;
    g_v->verdict = ours ? V_OURS : V_HDF5;
    if (ours) {
      static const char msg[] = "fuzz_guard: the reader loops; stack of the last sample:\n";
      (void)!write(2, msg, sizeof msg - 1);
      backtrace_symbols_fd(fr, n, 2);
    }
    _exit(77);
  }
  judge(sig, (const ucontext_t *)ctx);
  _exit(77);
}
static void on_death(void) { judge(0, NULL); }

static volatile long g_mallocs, g_frees;
static void on_malloc(const volatile void *p, size_t n) { (void)p, (void)n, g_mallocs++; }
static void on_free(const volatile void *p) { (void)p, g_frees++; }

static void child_setup(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPROF, SIGSYS};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  /* Our own stack for the handler: a stack overflow (deep recursion in HDF5) must still be judged. */
  static char altstack[1 << 16];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; ++i) sigaction(sigs[i], &sa, NULL);
  signal(SIGALRM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
  if (GUARD_ASAN && __sanitizer_install_malloc_and_free_hooks)
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
#if !GUARD_ASAN
  const char *as = getenv("FUZZ_GUARD_AS_MB");
  rlim_t mb = as ? strtoull(as, NULL, 10) : 4096;
  struct rlimit lim = {mb << 20, mb << 20};
  setrlimit(RLIMIT_AS, &lim);
#endif
}

/* The child: one input per byte read, one byte back when it is done. */
static void child_loop(int in, int out) {
  child_setup();
  const size_t ncnt = (size_t)(g_cnt_end - g_cnt_begin);
  const struct itimerval hang = {{0, 0}, {g_hang_ms / 1000, (g_hang_ms % 1000) * 1000}}, off = {{0, 0}, {0, 0}};
  char c;
  for (;;) {
    ssize_t r = read(in, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r != 1) _exit(0);
    memset(g_cnt_begin, 0, ncnt);
    const long m0 = g_mallocs, f0 = g_frees;
    g_prof_ours = g_prof_hdf5 = 0;
    setitimer(ITIMER_PROF, &hang, NULL);
    const int stuck = capture_fuzz_one(g_shm_input, g_v->len) != 0;
    setitimer(ITIMER_PROF, &off, NULL);
    if (stuck) { /* HDF5 cannot close the file: its state is broken, this child ends */
      snprintf(g_v->where, sizeof g_v->where, "HDF5 refused to close the file");
      g_v->sig = 0;
      g_v->verdict = V_HDF5;
      _exit(79);
    }
    if (GUARD_ASAN && __lsan_do_recoverable_leak_check && g_mallocs - m0 != g_frees - f0 &&
        __lsan_do_recoverable_leak_check()) {
      /* Only leaks not suppressed are reported: no frame of libhdf5 in the allocation's stack. */
      snprintf(g_v->where, sizeof g_v->where, "a leak (LeakSanitizer's report above)");
      g_v->verdict = V_OURS;
      _exit(78);
    }
    memcpy(g_shm_cnt, g_cnt_begin, ncnt);
    g_v->verdict = V_DONE;
    c = 'd';
    if (write(out, &c, 1) != 1) _exit(0);
  }
}

static void start_child(void) {
  int a[2], b[2];
  if (pipe(a) || pipe(b)) {
    perror("fuzz_guard: pipe");
    abort();
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fuzz_guard: fork");
    abort();
  }
  if (pid == 0) {
    close(a[1]), close(b[0]);
    child_loop(a[0], b[1]);
  }
  close(a[0]), close(b[1]);
  g_child = pid, g_to_child = a[1], g_from_child = b[0];
  g_children++;
}

/* The child is gone (or hung in a way its own timer missed): reap it; the next input starts one. */
static int end_child(int kill_it) {
  int st = 0;
  if (kill_it) kill(g_child, SIGKILL);
  while (waitpid(g_child, &st, 0) < 0 && errno == EINTR) {
  }
  close(g_to_child), close(g_from_child);
  g_child = 0, g_to_child = g_from_child = -1;
  return st;
}

static void save(const char *kind, const uint8_t *data, size_t size) {
  if (!g_save || g_saved >= g_save_max) return;
  uint64_t h = 1469598103934665603ull; /* FNV-1a: the name, so that repeats overwrite */
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%016llx", g_save, kind, (unsigned long long)h);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, size, f);
  fclose(f);
  g_saved++;
}

/* The inputs the current child has served, oldest first (the last HIST_MAX of them). */
#define HIST_MAX 256
static uint8_t *g_hist[HIST_MAX];
static size_t g_hist_len[HIST_MAX];
static int g_hist_n, g_hist_dropped;

static void hist_reset(void) {
  for (int i = 0; i < g_hist_n; ++i) free(g_hist[i]);
  g_hist_n = 0, g_hist_dropped = 0;
}

static void hist_add(const uint8_t *data, size_t size) {
  if (g_hist_n == HIST_MAX) {
    free(g_hist[0]);
    memmove(g_hist, g_hist + 1, (HIST_MAX - 1) * sizeof *g_hist);
    memmove(g_hist_len, g_hist_len + 1, (HIST_MAX - 1) * sizeof *g_hist_len);
    g_hist_n--, g_hist_dropped = 1;
  }
  uint8_t *c = malloc(size ? size : 1);
  if (!c) return;
  memcpy(c, data, size);
  g_hist[g_hist_n] = c, g_hist_len[g_hist_n] = size, g_hist_n++;
}

static void hist_dump(void) {
  if (!g_save) return;
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/history-%ld", g_save, (long)getpid());
  if (mkdir(dir, 0755) && errno != EEXIST) return;
  for (int i = 0; i < g_hist_n; ++i) {
    snprintf(path, sizeof path, "%s/%04d", dir, i);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(g_hist[i], 1, g_hist_len[i], f);
    fclose(f);
  }
  fprintf(stderr, "fuzz_guard: the %d input(s) this child served%s are in %s\n", g_hist_n,
          g_hist_dropped ? " (the earlier ones dropped)" : "", dir);
}

static void report(void) {
  if (g_child) end_child(1);
  fprintf(stderr,
          "fuzz_guard: %ld inputs in %ld children; inside HDF5: %ld crashes, %ld hangs, %ld files it "
          "could not close (%ld saved); 0 in the reader\n",
          g_inputs, g_children, g_hdf5_crash, g_hdf5_hang, g_hdf5_stuck, g_saved);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  capture_fuzz_init();
  const char *on = getenv("FUZZ_GUARD");
  g_on = !(on && !strcmp(on, "0"));
  const char *hang = getenv("FUZZ_GUARD_HANG_MS");
  if (hang && atol(hang) > 0) g_hang_ms = atol(hang);
  const char *resample = getenv("FUZZ_GUARD_RESAMPLE_MS");
  if (resample && atol(resample) > 0) g_resample_ms = atol(resample);
  if (g_resample_ms < g_hang_ms) g_resample_ms = g_hang_ms;
  g_save = getenv("FUZZ_GUARD_SAVE");
  g_verbose = getenv("FUZZ_GUARD_VERBOSE") != NULL; /* one line per input that HDF5 failed on */
  const char *mx = getenv("FUZZ_GUARD_SAVE_MAX");
  if (mx) g_save_max = atol(mx);
  if (!g_on) return 0;
  void *bt[1];
  backtrace(bt, 1); /* loads libgcc_s now, not inside a signal handler */
  capture_fuzz_counters(&g_cnt_begin, &g_cnt_end);
  const size_t len = (size_t)(g_cnt_end - g_cnt_begin);
  if (!g_cnt_begin || len == 0) {
    fprintf(stderr, "fuzz_guard: the reader library has no coverage counters (built without "
                    "-fsanitize=fuzzer-no-link?)\n");
    exit(2);
  }
  const size_t head = (sizeof(verdict_t) + len + 4095) & ~(size_t)4095;
  void *m = mmap(NULL, head + MAX_INPUT, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    perror("fuzz_guard: mmap");
    exit(2);
  }
  g_v = m;
  g_shm_cnt = (uint8_t *)m + sizeof(verdict_t);
  g_shm_input = (uint8_t *)m + head;
  signal(SIGPIPE, SIG_IGN); /* a dead child is seen by read/write, not by a signal */
  atexit(report);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_on) return capture_fuzz_one(data, size) ? -1 : 0;
  if (size > MAX_INPUT) return -1;
  g_inputs++;
  if (g_child && g_hist_n == HIST_MAX) end_child(1); /* its history is full: a fresh child */
  if (!g_child) {
    hist_reset();
    start_child();
  }
  hist_add(data, size);
  memset(g_v, 0, sizeof *g_v);
  memcpy(g_shm_input, data, size);
  g_v->len = size;
  char c = 'g';
  int ok = write(g_to_child, &c, 1) == 1;
  if (ok) {
    /* A wall-clock backstop: the child's own CPU timer ends a loop; only a child blocked without
     * using CPU (which reading a memory image never should) is killed here. */
    struct pollfd pf = {g_from_child, POLLIN, 0};
    int pr;
    while ((pr = poll(&pf, 1, 120000)) < 0 && errno == EINTR) {
    }
    if (pr == 0) {
      end_child(1);
      snprintf(g_v->where, sizeof g_v->where, "blocked for 120 s without using its CPU budget");
      g_v->verdict = V_OURS;
      ok = 0;
    } else {
      ok = read(g_from_child, &c, 1) == 1 && g_v->verdict == V_DONE;
    }
  }
  if (ok) {
    memcpy(g_cnt_begin, g_shm_cnt, (size_t)(g_cnt_end - g_cnt_begin));
    return 0;
  }
  int st = g_child ? end_child(0) : 0;
  if (g_v->verdict == V_HDF5) {
    const int hung = g_v->sig == SIGPROF, stuck = WIFEXITED(st) && WEXITSTATUS(st) == 79;
    hung ? g_hdf5_hang++ : stuck ? g_hdf5_stuck++ : g_hdf5_crash++;
    save(hung ? "hdf5-hang" : stuck ? "hdf5-stuck" : "hdf5-crash", data, size);
    if (g_verbose) fprintf(stderr, "fuzz_guard: inside HDF5: %s at %s\n", hung ? "hang" : stuck ? "unclosable file" : "crash", g_v->where);
    return -1; /* not added to the corpus */
  }
  fprintf(stderr, "fuzz_guard: child %s %d; verdict: %s%s%s at %s\n",
          WIFSIGNALED(st) ? "killed by signal" : "exited with",
          WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
          g_v->verdict == V_OURS ? "fault in the reader" : "no verdict (died outside any handler)",
          g_v->verdict == V_OURS && g_v->sig ? ", signal " : "",
          g_v->verdict == V_OURS && g_v->sig ? strsignal(g_v->sig) : "",
          g_v->verdict ? g_v->where : "?");
  save("ours", data, size);
  hist_dump();
  abort(); /* libFuzzer writes this input as crash-<sha1> */
}
