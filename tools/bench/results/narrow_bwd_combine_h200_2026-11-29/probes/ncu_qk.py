# ncu target: the fusednorm backward (and forward) of q/k-norm shapes, bf16, a few launches each.
import sys, torch, fusednorm
torch.manual_seed(1)
shapes = [tuple(map(int, s.split("x"))) for s in sys.argv[1].split(",")]
for (m, n) in shapes:
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        y = fusednorm.rms_norm(x, w, eps=1e-6)
        y.backward(dy)
    torch.cuda.synchronize()
