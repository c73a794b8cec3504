import json,math,sys
def load(p):
    d=json.load(open(p)); return {(r['dtype'],r['M'],r['N'],r['op']):r['median_us'] for r in d['results'] if r['status']=='ok'}
old_tag,new_tag=sys.argv[1],sys.argv[2]
o=[load(f'b_{old_tag}_1/bench.json'),load(f'b_{old_tag}_4/bench.json')]; n=[load(f'b_{new_tag}_2/bench.json'),load(f'b_{new_tag}_3/bench.json')]
gm=lambda v: math.exp(sum(map(math.log,v))/len(v))
ch=[];un=[]
for k in sorted(o[0], key=lambda k:(k[0],k[3],k[2],k[1])):
    om=sum(x[k] for x in o)/2; nm=sum(x[k] for x in n)/2
    xs=4 if k[0]=='fp32' else 2; vec=16//xs; slots=-(-k[2]//vec)
    hs=(k[2]*xs)%16!=0; few=k[1]<132
    u1=hs and few and slots<=(512 if xs==4 else 128)
    (ch if u1 else un).append(om/nm)
    print(f"{k[0]} {k[3]:7s} {k[1]:3d}x{k[2]:<5d} {om:6.2f} -> {nm:6.2f} {om/nm:.3f} {'U1' if u1 else ''}")
print('u1',len(ch),f"{gm(ch):.3f}",f"{min(ch):.3f}-{max(ch):.3f}",'other',len(un),f"{gm(un):.3f}",f"{min(un):.3f}-{max(un):.3f}")
