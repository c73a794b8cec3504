import re,collections,statistics,sys
cur=None; t=collections.defaultdict(list); plan={}
for l in open(sys.argv[1]):
    if l.startswith('###'): _,b,d,*f=l.split(); cur=(b,d,'fused' if f else 'plain'); continue
    m=re.match(r'\s*(\d+x\d+)\s+fwd\s+auto\s+([\d.]+)\s+(\d+)\s+(.*)',l)
    if m: t[(cur[0],cur[1],cur[2],m.group(1))].append(float(m.group(2))); plan[(cur[0],cur[1],cur[2],m.group(1))]=m.group(4)
builds=sys.argv[2].split(',')
keys=sorted(set((k[1],k[2],k[3]) for k in t))
for d,f,s in keys:
    v=[statistics.mean(t[(b,d,f,s)]) for b in builds]
    print(f"{d:5}{f:6}{s:12}", " ".join(f"{b} {x:7.1f}" for b,x in zip(builds,v)), " ".join(f"{v[0]/x:5.3f}x" for x in v[1:]), re.sub(r'threads=|rows/cta=1 |->wide','',plan[(builds[-1],d,f,s)])[:70])
