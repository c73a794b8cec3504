"""ptx_compare.py --sass on synthetic cuobjdump listings: the container lines of an image (arch,
identifier, `.target`, ...) that follow the last function of the previous image are not part of
that function, so a kernel that moves from the middle to the end of a listing (the objects after
it removed) compares identical; a changed instruction still differs."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "ptx_compare.py")

IMAGE = """
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = {obj}

\tcode for sm_90a
\t\t.target\tsm_90a
"""
FUNC = """
\t\tFunction : {name}
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   {insn} ;              /* 0x000fe40000000f00 */
                                                                        /* 0x000fc00000000000 */
        /*0010*/                   EXIT ;                /* 0x000000000000794d */
                                                                        /* 0x000fea0003800000 */
        ..........
"""


def listing(images):
    return "".join(IMAGE.format(obj=o) + "".join(FUNC.format(name=n, insn=i) for n, i in fs)
                   for o, fs in images)


def compare(base, head):
    with tempfile.TemporaryDirectory() as d:
        for side, text in (("base", base), ("head", head)):
            os.makedirs(os.path.join(d, side))
            with open(os.path.join(d, side, "listing.sass"), "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, TOOL, "--sass", os.path.join(d, "base"), os.path.join(d, "head")],
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def main():
    fails = 0
    a = ("a.o", [("_Z4keepv", "MOV R1, c[0x0][0x28]")])
    gone = ("b.o", [("_Z4gonev", "MOV R2, c[0x0][0x28]")])
    rc, out = compare(listing([a, gone]), listing([a]))
    ok = rc == 0 and "DIFFERS" not in out and "REMOVED listing.sass _Z4gonev" in out and "identical: 1," in out
    print(("PASS" if ok else "FAIL") + ": the last kernel of an image, next image removed: identical")
    if not ok:
        print(out)
    fails += not ok
    changed = ("a.o", [("_Z4keepv", "MOV R3, c[0x0][0x28]")])
    rc, out = compare(listing([a, gone]), listing([changed, gone]))
    ok = rc == 0 and "DIFFERS listing.sass _Z4keepv" in out and "different: 1," in out
    print(("PASS" if ok else "FAIL") + ": a changed register: differs")
    if not ok:
        print(out)
    fails += not ok
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
