#include "tools/bazel/testdata/k.cuh"
int so_entry(void) { return k_run(2); }
