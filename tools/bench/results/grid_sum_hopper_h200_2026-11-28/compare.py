import re,sys,math,subprocess
def load(f):
    d={}
    for l in open(f):
        m=re.match(r'\[bench\] (\w+) (\d+)x(\d+) cold in .*fastest: (.*)',l)
        if not m: continue
        for op,us in re.findall(r'(\w+) fusednorm:auto \d+ \(([\d.]+) us\)',m.group(4)):
            d[(m.group(1),int(m.group(2)),int(m.group(3)),op)]=float(us)
    return d
def run(prefix, olds, news):
    O=[load(f) for f in olds]; N=[load(f) for f in news]
    keys=sorted(O[0], key=lambda k:(k[0],k[3],k[2],k[1]))
    inp="\n".join(f"{k[0]} {k[1]} {k[2]} {k[3]} auto" for k in keys)+"\n"
    pl=subprocess.run(['/tmp/plan_of'],input=inp,capture_output=True,text=True).stdout.splitlines()
    ch=[];un=[]
    for k,p in zip(keys,pl):
        o=[x[k] for x in O if k in x]; n=[x[k] for x in N if k in x]
        om=sum(o)/len(o); nm=sum(n)/len(n); gs=' c1 ' in (' '+p.split('cl=')[1].split()[0].join([' c',' '])) if 'cl=' in p else False
        g='cl=1 ' in p and 'fwd_wide' in p
        r=om/nm
        (ch if g else un).append(r)
        print(f"{prefix} {k[0]} {k[3]:8s} {k[1]}x{k[2]:<8d} old {' '.join(f'{x:.1f}' for x in o):12s} new {' '.join(f'{x:.1f}' for x in n):12s} {r:.2f} {'GRID' if g else ''} {' '.join(p.split()[4:8])}")
    gm=lambda v: math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
    print(prefix,'changed',len(ch),f'{gm(ch):.3f}',f'{min(ch) if ch else 0:.2f}-{max(ch) if ch else 0:.2f}','unchanged',len(un),f'{gm(un):.3f}', f'{min(un):.2f}-{max(un):.2f}')
run('grid',['grid_n90b_1.log','grid_n90b_4.log'],['grid_g90_2.log','grid_g90_3.log'])
run('held',['held_n90b_1.log'],['held_g90_2.log','held_g90_3.log'])
