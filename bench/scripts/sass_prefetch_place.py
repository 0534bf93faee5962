#!/usr/bin/env python3
"""Where each kernel's main loop issues its weight prefetch, from the SASS of one or two cubins.

tcv's and gemv's loops load the next step's weights into registers while decoding the current one
(the absmax bytes are the loop's only LDG.E.U8). Where ptxas places those loads matters more than
the loop's instruction count: a leaner loop whose prefetch ptxas sank to the loop's end lost
0.87-0.95x, and L2 hints won only in the kernel whose prefetch sat late
(bench/results/2026-11-27-h100-tcvlean). Per kernel whose mangled name matches REGEX:
  the loop's length (instructions), the position of its last LDG.E.U8, the distance from there to
  the loop's end (the larger, the earlier the prefetch goes out), and the spill instructions in it.
With a second cubin, both side by side (same mangled names). Usage:
  nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -DKBIT_HAVE_SM90A=1 -I kernels -I lib \
       -cubin kernels/tcv.cu -o new.cubin      (and old.cubin from the source to compare with)
  python3 bench/scripts/sass_prefetch_place.py new.cubin [old.cubin] [--match REGEX]
NVDISASM overrides the nvdisasm path (CUDA toolkit or the PyPI wheel nvidia-cuda-nvdisasm)."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_loop_mix import disassemble, functions, largest_loop  # noqa: E402  (the same nvdisasm parsing)


def places(cubin, match):
    """{mangled name: (loop length, position of the last LDG.E.U8 or -1, spill instructions)}."""
    text = disassemble(cubin)
    out = {}
    for name, body in functions(text).items():
        if not re.search(match, name):
            continue
        loop = largest_loop(body)
        if not loop:
            continue
        u8 = [i for i, ins in enumerate(loop) if "LDG.E.U8" in ins]
        spills = sum(1 for ins in loop if "LDL" in ins or "STL" in ins)
        out[name] = (len(loop), u8[-1] if u8 else -1, spills)
    return out


def demangle(names):
    try:
        res = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
        return dict(zip(names, res.stdout.split("\n")))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def cell(p):
    if p is None:
        return "-"
    n, last, spills = p
    dist = n - last if last >= 0 else -1
    return f"{n:4d} instr, last U8 at {last:4d}, {dist:4d} before the end, {spills} spill"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("new")
    ap.add_argument("old", nargs="?")
    ap.add_argument("--match", default="", help="regex on the mangled kernel name")
    args = ap.parse_args()
    a = places(args.new, args.match)
    b = places(args.old, args.match) if args.old else {}
    names = demangle(sorted(a))
    for name in sorted(a):
        short = names[name].replace("kbit::gpu::detail::", "").replace("kbit::gpu::", "")
        short = short.split("(kbit::gpu::detail::ActTraits")[0].split("(ActTraits")[0]
        line = cell(a[name]) + (" | " + cell(b.get(name)) if args.old else "")
        print(f"{line}  {short}")


if __name__ == "__main__":
    main()
