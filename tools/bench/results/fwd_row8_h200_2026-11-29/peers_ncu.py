"""One forward launch each of torch.compile's and Liger's RMSNorm on bf16 M x N (argv), inside an
NVTX range "prof" for `ncu --nvtx --nvtx-include prof/` (warm-up calls, compilation and autotuning
outside it). Liger: its wheel on PYTHONPATH, else skipped."""
import sys
import torch
import torch.nn.functional as F

M, N = int(sys.argv[1]), int(sys.argv[2])
torch.manual_seed(0)
x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, device="cuda", dtype=torch.bfloat16)
fns = {"compile": torch.compile(lambda a, b: F.rms_norm(a, (N,), b, 1e-6))}
try:
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    fns["liger"] = lambda a, b: LigerRMSNormFunction.apply(a, b, 1e-6, 0.0, "llama")
except ImportError as e:
    print("liger not run:", e)
for name, f in fns.items():
    for _ in range(5):
        f(x, w)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("prof")
    f(x, w)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(name, "profiled")
