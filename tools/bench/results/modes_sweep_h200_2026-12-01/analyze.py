import gzip, json, math, collections, sys
def load(fs):
    out=collections.defaultdict(dict)
    for f in fs:
        for r in json.load(gzip.open(f))['results']:
            if r.get('status')!='ok': continue
            out[(r['case'],r['dtype'],r['op'],r['M'],r['N'],r['inputs'])][r['provider']]=r
    return out
for label,fs in [('cold',['cold_0_99.json.gz','cold_100_199.json.gz']),('hot',['hot.json.gz'])]:
    d=load(fs); miss=[]; g=[]
    for k,v in sorted(d.items()):
        a=v.get('fusednorm:auto')
        if not a: continue
        best=min((x['median_us'],p) for p,x in v.items() if p!='fusednorm:auto')
        ratio=best[0]/a['median_us']  # >1 means auto slower... careful
        # auto/best speedup: best_us/auto_us ; <0.97 means auto more than 3% behind
        g.append(min(1.0,ratio))
        if ratio<0.97: miss.append((ratio,k,a['median_us'],best))
    print(label, len(g), 'geomean auto/bestmode', math.exp(sum(math.log(x) for x in g)/len(g)), 'misses', len(miss))
    for m in sorted(miss): print('  %.3f'%m[0], m[1][:5], 'auto %.1f'%m[2], 'best %.1f %s'%m[3])
