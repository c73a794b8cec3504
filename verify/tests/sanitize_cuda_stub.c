/* The CUDA half of the fusednorm C API for the sanitizer build (verify/tests/sanitize_test.sh),
 * which compiles the C sources with gcc and no nvcc: no device, every CUDA entry point refuses.
 * device.c's CUDA runtime calls are only reached when fusednorm_cuda_available() says 1. */
#include <cuda_runtime_api.h>

#include "kernels/include/fusednorm.h"

int fusednorm_cuda_available(void) { return 0; }
const char *fusednorm_cuda_error_string(void) { return "this build has no CUDA kernels"; }
fusednorm_status fusednorm_backward_workspace_size_cuda(const fusednorm_problem *p, int device,
                                                        size_t *bytes) {
  (void)p, (void)device, (void)bytes;
  return FUSEDNORM_ERR_CUDA;
}
fusednorm_status fusednorm_forward_cuda(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                        cudaStream_t stream) {
  (void)p, (void)a, (void)stream;
  return FUSEDNORM_ERR_CUDA;
}
fusednorm_status fusednorm_backward_cuda(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                         cudaStream_t stream) {
  (void)p, (void)a, (void)stream;
  return FUSEDNORM_ERR_CUDA;
}
