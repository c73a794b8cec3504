#include <torch/csrc/inductor/aoti_torch/c/shim.h>
extern "C" int probe(void) { int32_t d = aoti_torch_device_type_cpu(); return d; }
