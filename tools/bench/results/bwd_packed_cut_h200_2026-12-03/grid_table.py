"""persistent / row_packed per cell from run1.sh's bench_modes logs: python3 grid_table.py grid1.log.gz grid2.log.gz grid3.log.gz
(the geomean over the runs, and in how many of them row_packed was faster; AUTO's pick from the runs that timed it)."""
import gzip, re, sys, collections, math
runs = []
for f in sys.argv[1:]:
    t = {}; tag = None
    for l in gzip.open(f, "rt"):
        if l.startswith("### "): tag = l.split()[1]; continue
        m = re.match(r"\s*(\d+)x(\d+)\s+bwd\s+(\S+)\s+([\d.]+)\s+\d+\s+(.*)", l)
        if m: t[(tag, int(m[1]), int(m[2]), m[3])] = (float(m[4]), m[5])
    runs.append(t)
tags = ["bf16", "bf16fused", "f32", "f32fused"]
allr = []
for tag in tags:
    print("##", tag, ": geomean over 3 runs of persistent / row_packed; (k) = runs of 3 where row_packed was faster")
    keys = sorted({(k[1], k[2]) for k in runs[0] if k[0] == tag})
    Ns = sorted({n for _, n in keys}); Ms = sorted({m for m, _ in keys})
    print("rows\\N " + " ".join("%9d" % n for n in Ns))
    for M in Ms:
        cells = []
        for N in Ns:
            rs = [r[(tag, M, N, "persistent")][0] / r[(tag, M, N, "row_packed")][0] for r in runs]
            g = math.exp(sum(map(math.log, rs)) / len(rs)); allr.append((g, tag, M, N))
            cells.append("%6.2f(%d)" % (g, sum(x > 1 for x in rs)))
        print("%6d " % M + " ".join(cells))
    print("AUTO's pick (runs 2, 3):", collections.Counter(r[(tag, M, N, "auto")][1].split("->")[-1].strip() for r in runs[1:] for M in Ms for N in Ns))
g = math.exp(sum(math.log(x[0]) for x in allr) / len(allr))
print("all %d cells: geomean persistent / row_packed %.3f; cells where persistent is faster: %d" % (len(allr), g, sum(x[0] < 1 for x in allr)))
print("slowest for row_packed:", sorted(allr)[:6])
