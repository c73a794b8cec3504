#pragma once
#ifdef __cplusplus
extern "C" {
#endif
int k_run(int n);
#ifdef __cplusplus
}
#endif
