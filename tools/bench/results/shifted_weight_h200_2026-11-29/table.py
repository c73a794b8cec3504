"""The AUTO forward times of bench_modes logs (a run's logs.tgz, files BUILD.CFG.I.log), per case
and build, the first build against each other (mean of its runs / mean of theirs) and the geomean.
    python3 table.py LOGS.tgz BASE BUILD [BUILD...]"""
import sys, re, collections, math, tarfile
out, vs = sys.argv[1], sys.argv[2:]
t = collections.defaultdict(lambda: collections.defaultdict(list))
with tarfile.open(out) as tf:
    for m in tf.getmembers():
        v, tag = m.name.split(".")[:2]
        for l in tf.extractfile(m).read().decode().splitlines():
            r = re.match(r"\s*(\d+x\d+)\s+(fwd|bwd)\s+auto\s+([\d.]+)\s+(\d+)\s+(\S+)", l)
            if r: t[(tag, r.group(1))][v].append((float(r.group(3)), r.group(5)))
g = collections.defaultdict(list)
print("cfg shape " + " ".join(vs) + " " + " ".join(f"{vs[0]}/{v}" for v in vs[1:]) + " family(last) spread(max/min of a build's runs)")
for k, d in t.items():
    if not all(v in d for v in vs): continue
    a = {v: sum(x for x, _ in d[v]) / len(d[v]) for v in vs}
    sp = {v: max(x for x, _ in d[v]) / min(x for x, _ in d[v]) for v in vs}
    for v in vs[1:]: g[v].append(a[vs[0]] / a[v])
    print("%-5s %-11s " % k + " ".join("%8.2f" % a[v] for v in vs) + " " + " ".join("%6.3f" % (a[vs[0]] / a[v]) for v in vs[1:])
          + "  %-12s spread " % d[vs[-1]][0][1] + "/".join("%.2f" % sp[v] for v in vs))
for v in vs[1:]: print("geomean %s/%s %.3f over %d" % (vs[0], v, math.exp(sum(map(math.log, g[v])) / len(g[v])), len(g[v])))
