"""Which kernels of a .cu file the change altered: per function, the sm_90a SASS of the base tree
(b_FILE.cubin) against the change's (n_FILE.cubin), both from
    nvcc -arch=sm_90a -cubin -O3 -std=c++17 -I TREE -I TREE/kernels/include -o X_FILE.cubin TREE/kernels/cuda/FILE.cu
Usage: CUOBJDUMP=... python3 sass_vs_base.py FILE... (in the folder of the cubins)."""
import collections
import hashlib
import os
import re
import subprocess
import sys

CUO = os.environ.get("CUOBJDUMP", "cuobjdump")
def funcs(path):
    out=subprocess.run([CUO,'-sass',path],capture_output=True,text=True).stdout
    d={};cur=None;buf=[]
    for l in out.splitlines():
        m=re.search(r'Function : (\S+)',l)
        if m:
            if cur: d[cur]=hashlib.md5('\n'.join(buf).encode()).hexdigest()
            cur=m.group(1);buf=[];continue
        m=re.match(r'\s+/\*[0-9a-f]{4}\*/\s+(.*?)\s*;',l)
        if m and cur: buf.append(m.group(1))
    if cur: d[cur]=hashlib.md5('\n'.join(buf).encode()).hexdigest()
    return d
for f in sys.argv[1:]:
    a=funcs(f'b_{f}.cubin'); b=funcs(f'n_{f}.cubin')
    same=[k for k in a if b.get(k)==a[k]]; diff=[k for k in a if k in b and b[k]!=a[k]]
    names=collections.Counter(re.sub(r'I.*','',subprocess.run(['c++filt',k],capture_output=True,text=True).stdout.strip().split('<')[0]) for k in diff)
    print(f, 'functions', len(a), 'identical', len(same), 'differ', len(diff), dict(names))
