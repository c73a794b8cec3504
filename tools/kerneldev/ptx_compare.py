#!/usr/bin/env python3
"""ptx_compare.py BASE_DIR NEW_DIR [OLD:NEW ...] — compare the PTX of every kernel entry of two
directories of .ptx files (tools/kerneldev/ptx.sh); with --sass, of two directories of
`cuobjdump -sass` listings (*.sass, one per object: compares per "Function :" block). Ignores .loc/.file lines, comments and the
debug sections, and the function numbers in branch labels (removing instances renumbers them).
OLD:NEW pairs map parameter offsets of the base before comparing (a struct parameter's field
moved); -OLD:NEW maps the parameter block's size. Prints one line per entry that differs, was
removed or added, then the counts."""
import re, sys, glob, os

def entries(path):
    text = open(path).read()
    text = re.sub(r'\n\s*\.section\s+\.debug.*?\n\s*\}', '\n', text, flags=re.S)
    out = {}
    # .entry NAME( ... ) { ... } ; entries end at a line that is exactly "}"
    for m in re.finditer(r'(\.visible|\.weak)?\s*\.entry\s+(\S+)\((.*?)\n\}\n', text, flags=re.S):
        name = m.group(2)
        body = m.group(0)
        lines = [l for l in body.splitlines() if not re.match(r'\s*(\.loc|\.file|//)', l)]
        body = '\n'.join(l.rstrip() for l in lines)
        # labels are numbered by the function's position in the file: removing instances renumbers
        body = re.sub(r'\$L__BB\d+_', '$L__BB_', body)
        out[name] = body
    return out

def sass_functions(path):
    """Function name -> its SASS, branch labels (.L_x_N, numbered across the file) renumbered in
    order of first use within the function."""
    def norm(lines):
        seen = {}
        text = '\n'.join(lines)
        return re.sub(r'\.L_x_\d+', lambda m: '.L_%d' % seen.setdefault(m.group(0), len(seen)), text)
    out, name, body = {}, None, []
    for line in open(path).read().splitlines():
        m = re.match(r'\s*Function : (\S+)', line)
        if m:
            if name: out[name] = norm(body)
            name, body = m.group(1), []
        elif name:
            body.append(line.rstrip())
    if name: out[name] = norm(body)
    return out


def main():
    global entries
    if len(sys.argv) > 1 and sys.argv[1] == '--sass':
        del sys.argv[1]
        entries, ext = sass_functions, '*.sass'
    else:
        ext = '*.ptx'
    if len(sys.argv) < 3:
        sys.stderr.write('usage: ptx_compare.py [--sass] BASE_DIR NEW_DIR [OLD:NEW ...]\n')
        sys.exit(2)
    base, new = sys.argv[1], sys.argv[2]
    offmap = {}
    for spec in sys.argv[3:]:
        a, b = spec.split(':')
        offmap[int(a)] = int(b)
    B, N = {}, {}
    for f in sorted(glob.glob(base + '/' + ext)):
        for k, v in entries(f).items(): B[k] = (os.path.basename(f), v)
    for f in sorted(glob.glob(new + '/' + ext)):
        for k, v in entries(f).items(): N[k] = (os.path.basename(f), v)
    same = diff = 0
    mapped_same = 0
    for k in sorted(B):
        if k not in N:
            print('REMOVED', B[k][0], k); continue
        if B[k][1] == N[k][1]:
            same += 1; continue
        if offmap:
            def sub(m):
                o = int(m.group(2)) if m.group(2) else 0
                return m.group(1) + ('+%d' % offmap.get(o, o) if (m.group(2) or offmap.get(0, 0)) else '') + ']'
            mb = re.sub(r'(\[\w+_param_0)(?:\+(\d+))?\]', sub, B[k][1])
            mb = re.sub(r'(_param_0)\[(\d+)\]', lambda m: m.group(1) + '[%d]' % offmap.get(-int(m.group(2)), int(m.group(2))), mb)
            if mb == N[k][1]:
                mapped_same += 1
                print('SAME-AFTER-PARAM-MAP', B[k][0], k); continue
        diff += 1
        print('DIFFERS', B[k][0], k)
    for k in sorted(N):
        if k not in B: print('ADDED', N[k][0], k)
    print('identical: %d, identical after the param map: %d, different: %d, removed: %d' %
          (same, mapped_same, diff, len([k for k in B if k not in N])))

main()
