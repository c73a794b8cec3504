import sys, torch, torch.nn.functional as F, fusednorm
EPS=1e-6
DT={"bf16":torch.bfloat16,"fp16":torch.float16,"f32":torch.float32}
dt,M,N,prov=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]),sys.argv[4]
x=torch.randn(M,N,device="cuda",dtype=DT[dt]); w=(1+0.1*torch.randn(N,device="cuda")).to(DT[dt])
def g(x,w): return F.rms_norm(x.float(),(N,),w.float(),EPS).to(x.dtype)
cg=torch.compile(g,dynamic=False)
f=(lambda: fusednorm.rms_norm(x,w,EPS)) if prov=="fn" else (lambda: cg(x,w))
with torch.no_grad():
    for _ in range(3): f()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    f()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
