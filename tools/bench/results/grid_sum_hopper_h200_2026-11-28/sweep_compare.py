import json,gzip,math,collections,subprocess,sys
def load(p):
    d=json.load(gzip.open(p) if p.endswith('.gz') else open(p))
    out=collections.defaultdict(dict)
    for r in d['results']:
        if r['status']=='ok': out[(r['case'],r['dtype'],r['M'],r['N'],r['op'])][r['provider']]=r['median_us']
    return out
old=load('/work/main/tools/bench/results/bench_h200_2026-11-28_sweep2/bench.json.gz')
g=load(sys.argv[1]); n=load(sys.argv[2])
gm=lambda v: math.exp(sum(map(math.log,v))/len(v))
keys=sorted(set(old)&set(g)&set(n))
inp="\n".join(f"{k[1]} {k[2]} {k[3]} {k[4]} auto" for k in keys)+"\n"
pl=dict(zip(keys,subprocess.run(['/tmp/plan_of'],input=inp,capture_output=True,text=True).stdout.splitlines()))
pair=[]; fw=[]; bw=[]; fw_o=[]; bw_o=[]; below=0; below_o=0; changed=[]
for k in keys:
    a_new=g[k]['fusednorm:auto']; a_old=n[k]['fusednorm:auto']; a_sw=old[k]['fusednorm:auto']
    peers={p:v for p,v in old[k].items() if not p.startswith('fusednorm')}
    best=min(peers.values())
    pair.append(a_old/a_new)
    r_new=best/a_new; r_sw=best/a_sw
    (bw if 'bwd' in k[4] else fw).append(r_new); (bw_o if 'bwd' in k[4] else fw_o).append(r_sw)
    below+= r_new<0.97; below_o+= r_sw<0.97
    if abs(a_old/a_new-1)>0.05: changed.append((a_old/a_new,k,a_sw,a_old,a_new,best,pl[k].split()[4:6]))
print(f"cases {len(keys)}; the new build vs the build before it, one call: {gm(pair):.4f} geomean")
print(f"vs the sweep's best peer (peer times of 07:37 UTC): forward {gm(fw):.3f} (sweep {gm(fw_o):.3f}), backward {gm(bw):.3f} (sweep {gm(bw_o):.3f}); below 0.97: {below} (sweep {below_o})")
print(f"AUTO now vs the sweep's AUTO: {gm([n2/n1 for n1,n2 in [(g[k]['fusednorm:auto'],old[k]['fusednorm:auto']) for k in keys]]):.3f}")
for c in sorted(changed,reverse=True): print(f"  {c[0]:.2f} {c[1][1]} {c[1][2]}x{c[1][3]} {c[1][4]}: sweep {c[2]:.1f} before {c[3]:.1f} now {c[4]:.1f} us; best peer {c[5]:.1f} {c[6]}")
