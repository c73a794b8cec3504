#!/usr/bin/env python3
"""ptx_compare.py [--sass] [--diffs OUT_DIR] BASE_DIR NEW_DIR [OLD:NEW ...] — compare the PTX of
every kernel entry of two directories of .ptx files (tools/kerneldev/ptx.sh). Ignores .loc/.file
lines, comments and the debug sections, and the function numbers in branch labels (removing
instances renumbers them). OLD:NEW pairs map parameter offsets of the base before comparing (a
struct parameter's field moved); -OLD:NEW maps the parameter block's size.
--sass: compares two directories of `cuobjdump -sass` listings (*.sass, any number of objects
each) per "Function :" block, with each function's `cuobjdump -res-usage` line when X.res lies
beside X.sass (tools/kerneldev/sass_check.sh; what is normalized and why: above sass_functions).
--diffs OUT_DIR: a unified diff per differing entry (OUT_DIR/NNN.diff, the name on its first line).
Prints one line per entry that differs, was removed or added, then the counts; exit 0 (the counts
are the answer), 2 for bad arguments or input that is not a listing."""
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

# ---- SASS (cuobjdump -sass), with --sass ------------------------------------------------------
# A listing holds one ELF image per object and architecture; each image opens with container lines
# ("Fatbin elf code:", "arch = sm_90a", "identifier = <object path>", "code for sm_90a", ...) and
# its functions follow as "Function : <mangled name>" blocks. The container lines come after the
# last function of the previous image, so they are dropped, not read as part of that function.
SASS_CONTAINER = re.compile(
    r'\s*(Fatbin (elf|ptx) code:|=+\s*$|arch = |code version = |host = |compile_size = |'
    r'identifier = |producer = |code for sm_|\.target\s|\.headerflags\s|\.{3,}\s*$|$)')
# What is normalized, and why it is not semantic:
#  - branch labels .L_x_N: numbered across the whole image, so removing one kernel renumbers the
#    labels of every kernel after it; renumbered here in order of first use within the function.
#    The branch's target itself is in the instruction's encoding (an offset relative to the
#    branch), which is kept, so a changed target still shows.
#  - runs of blanks inside a line (alignment padding).
#  - the per-file hash in the names of internal-linkage entities (_INTERNAL_<hash>_): derived from
#    the translation unit, not from the code.
# What is kept, because it is semantic: every instruction with its operands; the /*00f0*/ address
# (an offset from the function's start: each kernel is its own .text section, so it moves only if
# the code before it changes); the /* 0x... */ encoding words (the instruction's bits, including
# the scheduling control: stall counts, barriers, yield); constant-bank offsets (c[0x0][...]: the
# kernel parameters and launch constants). The one thing kept that CAN move without the function
# changing is c[0x4][...], the module-wide bank holding the addresses of globals: a function that
# differs only there is reported as DIFFERS-C4-ONLY so that it can be judged separately.
INTERNAL = re.compile(r'_INTERNAL_[0-9a-f]+_')
LABEL = re.compile(r'\.L_(?:x_)?\d+')


def _sass_norm(lines):
    seen = {}
    # runs of blanks collapsed: cuobjdump pads each instruction to align its encoding comment, so a
    # label number's length (.L_x_9 / .L_x_10) moves the padding
    text = '\n'.join(' '.join(l.split()) for l in lines)
    text = LABEL.sub(lambda m: '.L_%d' % seen.setdefault(m.group(0), len(seen)), text)
    return INTERNAL.sub('_INTERNAL_h_', text)


def _add(out, name, body, path):
    key, k = name, 1
    while key in out:  # the same name in two images (e.g. one instance in two objects)
        k += 1
        key = '%s#%d' % (name, k)
    if k > 1:
        sys.stderr.write('ptx_compare: %s: %s appears %d times; compared as %s\n' % (path, name, k, key))
    out[key] = body


def resource_usage(path):
    """`cuobjdump -res-usage` listing -> {function: 'REG:.. STACK:.. SHARED:.. LOCAL:.. CONSTANT[0]:..'}
    (registers decide occupancy, CONSTANT[0] is the parameter block: both semantic, neither in -sass)."""
    res, name = {}, None
    for line in open(path).read().splitlines():
        m = re.match(r'\s*Function (\S+?):?\s*(REG:.*)?$', line)
        if m:
            name = INTERNAL.sub('_INTERNAL_h_', m.group(1))
            line = m.group(2) or ''
        if name and 'REG:' in line:
            _add(res, name, ' '.join(line.split()), path)
            name = None
    if not res:
        sys.stderr.write('ptx_compare: %s holds no "Function NAME: REG:..." entry (not a cuobjdump -res-usage listing?)\n' % path)
        sys.exit(2)
    return res


def sass_functions(path):
    """Function name -> its normalized SASS (see above), headed by its resource usage when a
    `cuobjdump -res-usage` listing of the same object lies beside it (X.sass, X.res)."""
    out, name, body = {}, None, []
    for line in open(path).read().splitlines():
        m = re.match(r'\s*Function : (\S+)', line)
        if m:
            if name: _add(out, name, _sass_norm(body), path)
            name, body = INTERNAL.sub('_INTERNAL_h_', m.group(1)), []
        elif name and not SASS_CONTAINER.match(line):
            body.append(line.rstrip())
    if name: _add(out, name, _sass_norm(body), path)
    if not out:
        sys.stderr.write('ptx_compare: %s holds no "Function :" block (not a cuobjdump -sass listing?)\n' % path)
        sys.exit(2)
    res_path = path[:-len('.sass')] + '.res'
    if os.path.exists(res_path):
        res = resource_usage(res_path)
        for k in out:
            out[k] = '// resources: ' + res.get(k, 'MISSING from ' + os.path.basename(res_path)) + '\n' + out[k]
    return out


def sass_c4_only(a, b):
    """True if two listings differ only in lines that address c[0x4][...] (with those lines'
    encoding words): the same code reading a global's address from another slot of the bank."""
    la, lb = a.splitlines(), b.splitlines()
    if a == b or len(la) != len(lb):
        return False
    enc = re.compile(r'\s*/\* 0x[0-9a-f]+ \*/\s*$')
    strip = lambda t: re.sub(r'/\* 0x[0-9a-f]+ \*/', '', re.sub(r'c\[0x4\]\[[^]]*\]', 'c[0x4][*]', t))
    prev_c4 = False
    for x, y in zip(la, lb):
        c4 = 'c[0x4]' in x and 'c[0x4]' in y
        if x != y and not (c4 and strip(x) == strip(y)) and not (prev_c4 and enc.match(x) and enc.match(y)):
            return False
        prev_c4 = c4
    return True


def main():
    args = sys.argv[1:]
    sass = '--sass' in args
    diffs = None
    if '--diffs' in args:
        i = args.index('--diffs')
        if i + 1 >= len(args):
            args = []
        else:
            diffs = args[i + 1]
            del args[i:i + 2]
    args = [a for a in args if a != '--sass']
    if len(args) < 2 or not os.path.isdir(args[0]) or not os.path.isdir(args[1]):
        sys.stderr.write('usage: ptx_compare.py [--sass] [--diffs OUT_DIR] BASE_DIR NEW_DIR [OLD:NEW ...]\n')
        sys.exit(2)
    read, ext = (sass_functions, '*.sass') if sass else (entries, '*.ptx')
    base, new = args[0], args[1]
    offmap = {}
    for spec in args[2:]:
        a, b = spec.split(':')
        offmap[int(a)] = int(b)
    B, N = {}, {}
    for d, into in ((base, B), (new, N)):
        files = sorted(glob.glob(d + '/' + ext))
        if not files:
            sys.stderr.write('ptx_compare: no %s in %s\n' % (ext, d))
            sys.exit(2)
        for f in files:
            for k, v in read(f).items(): into[k] = (os.path.basename(f), v)
    same = diff = mapped_same = c4_only = 0
    differing = []
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
        differing.append(k)
        if sass and sass_c4_only(B[k][1], N[k][1]):
            c4_only += 1
            print('DIFFERS-C4-ONLY', B[k][0], k); continue
        diff += 1
        print('DIFFERS', B[k][0], k)
    for k in sorted(N):
        if k not in B: print('ADDED', N[k][0], k)
    if diffs and differing:
        import difflib
        os.makedirs(diffs, exist_ok=True)
        for i, k in enumerate(differing):
            # numbered files: mangled names can exceed a file name's 255 bytes
            with open(os.path.join(diffs, '%03d.diff' % i), 'w') as f:
                f.write('# %s\n' % k)
                f.writelines(difflib.unified_diff(B[k][1].splitlines(True), N[k][1].splitlines(True),
                                                  base + '/' + B[k][0], new + '/' + N[k][0], n=5))
    removed = len([k for k in B if k not in N])
    added = len([k for k in N if k not in B])
    print('identical: %d, identical after the param map: %d, different: %d%s, removed: %d, added: %d' %
          (same, mapped_same, diff, ', different only in c[0x4]: %d' % c4_only if sass else '', removed, added))


main()
