/* kernels/tests/devices.h — real GPUs' figures for CPU tests of the launch plans (test_select,
 * test_plan_coverage): the plans select.c makes for them, without those GPUs. */
#ifndef FUSEDNORM_TESTS_DEVICES_H_
#define FUSEDNORM_TESTS_DEVICES_H_

#include "kernels/include/fusednorm.h"

/* Published figures (vendor datasheets and the CUDA programming guide's per-compute-capability
 * limits): SMs, cc, max threads / SM, max resident CTAs / SM, registers / SM, shared memory / SM,
 * opt-in shared memory per block, L2 bytes. The H200's L2 is what its driver reports (60 MiB; bench_modes logs in
 * kernels/results/). */
typedef struct {
  const char *name;
  fusednorm_device_info d;
} device;
/* The H200's resident clusters (fusednorm_device_info.max_clusters) as its driver reports them
 * (test_cuda's device lines, 580.159.04, 2026-11-29): [CTAs an SM - 1][clusters of 2, 4, 8, 16].
 * The other devices' are not known here (0: the plan counts every SM's CTAs). */
#define NO_CLUSTERS {{0}}
#define H200_CLUSTERS {{66, 30, 15, 7}, {132, 62, 30, 14}, {198, 92, 45, 21}, {264, 124, 62, 28}}
#define KB 1024
#define MB (1024 * 1024)
static const device kDevices[] = {
    {"A100-80GB", {108, 8, 0, 2048, 32, 65536, 164 * KB, 163 * KB, 40 * MB, NO_CLUSTERS}},
    {"A10", {72, 8, 6, 1536, 16, 65536, 100 * KB, 99 * KB, 6 * MB, NO_CLUSTERS}},
    {"L40S", {142, 8, 9, 1536, 24, 65536, 100 * KB, 99 * KB, 96 * MB, NO_CLUSTERS}},
    {"RTX4090", {128, 8, 9, 1536, 24, 65536, 100 * KB, 99 * KB, 72 * MB, NO_CLUSTERS}},
    {"H100-SXM", {132, 9, 0, 2048, 32, 65536, 228 * KB, 227 * KB, 50 * MB, NO_CLUSTERS}},
    {"H200", {132, 9, 0, 2048, 32, 65536, 228 * KB, 227 * KB, 60 * MB, H200_CLUSTERS}},
    {"B200", {148, 10, 0, 2048, 32, 65536, 228 * KB, 227 * KB, 126 * MB, NO_CLUSTERS}},
    {"RTX5090", {170, 12, 0, 1536, 32, 65536, 100 * KB, 99 * KB, 96 * MB, NO_CLUSTERS}},
};
#define NDEV ((int)(sizeof kDevices / sizeof kDevices[0]))

#endif /* FUSEDNORM_TESTS_DEVICES_H_ */
