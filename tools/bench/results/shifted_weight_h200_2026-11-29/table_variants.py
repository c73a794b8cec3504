import sys, re, collections, math, tarfile
out = sys.argv[1]  # the logs archive (logs.tgz)
t = collections.defaultdict(lambda: collections.defaultdict(list))
with tarfile.open(out) as tf:
    for m in tf.getmembers():
        v, tag = m.name.split(".")[:2]
        for l in tf.extractfile(m).read().decode().splitlines():
            r = re.match(r"\s*(\d+x\d+)\s+(fwd|bwd)\s+auto\s+([\d.]+)\s+(\d+)\s+(\S+)", l)
            if r: t[(tag, r.group(1))][v].append((float(r.group(3)), r.group(5)))
vs = ["b0", "u2", "u3"]
g = collections.defaultdict(list)
print("%-5s %-11s %8s %8s %8s %6s %6s  %s" % ("cfg", "shape", "b0", "u2", "u3", "u2x", "u3x", "fam"))
for k, d in t.items():
    if not all(v in d for v in vs): continue
    a = {v: sum(x for x, _ in d[v]) / len(d[v]) for v in vs}
    sp = {v: max(x for x, _ in d[v]) / min(x for x, _ in d[v]) for v in vs}
    for v in vs[1:]: g[v].append(a["b0"] / a[v])
    print("%-5s %-11s %8.2f %8.2f %8.2f %6.3f %6.3f  %s  spread %.2f/%.2f/%.2f" % (k[0], k[1], a["b0"], a["u2"], a["u3"], a["b0"] / a["u2"], a["b0"] / a["u3"], d["u3"][0][1], sp["b0"], sp["u2"], sp["u3"]))
for v in vs[1:]: print("geomean b0/%s %.3f over %d" % (v, math.exp(sum(map(math.log, g[v])) / len(g[v])), len(g[v])))
