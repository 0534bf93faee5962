#!/usr/bin/env python3
"""Compare the SASS of kernels in two cubins, instruction by instruction (addresses, label numbers,
internal helper numbering and whitespace ignored): how a source refactor is shown to leave a
measured kernel unchanged without a GPU. nvdisasm: CUDA toolkit or the PyPI wheel
nvidia-cuda-nvdisasm. Usage:
  nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -DKBIT_HAVE_SM90A=1 -I kernels -I lib \
       -cubin kernels/tcw.cu -o new.cubin      (and old.cubin from the measured source)
  python3 bench/scripts/sass_compare.py new.cubin old.cubin REGEX [NEWNAME->OLDNAME]
prints SAME/DIFF per function of new.cubin whose mangled name matches REGEX; NEWNAME->OLDNAME maps a
renamed kernel (a substring of the mangled name, e.g. 18tcw_streamk_kernel->10tcw_kernel).
NVDISASM overrides the nvdisasm path."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_loop_mix import INSTR, disassemble, functions  # noqa: E402  (the same nvdisasm parsing)


def instructions(cubin):
    """{mangled name: [instruction, normalized]} of every function in the cubin."""
    text = disassemble(cubin)
    out = {}
    for name, body in functions(text).items():
        ins = [INSTR.match(l).group(1) for l in body if INSTR.match(l)]
        ins = [i.split(";")[0] for i in ins]
        ins = [re.sub(r"__internal_\d+_", "__internal_", re.sub(r"\.L_x_\d+", "L", i)) for i in ins]
        out[name] = [re.sub(r"\s+", " ", i).strip() for i in ins]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("regex")
    ap.add_argument("rename", nargs="?", help="NEWNAME->OLDNAME (substrings of the mangled names)")
    args = ap.parse_args()
    a, b = instructions(args.new), instructions(args.old)
    src, dst = args.rename.split("->") if args.rename else ("", "")
    for name in sorted(a):
        if not re.search(args.regex, name):
            continue
        other = name.replace(src, dst) if src else name
        if other not in b:
            print("MISSING", other[:90])
            continue
        x = [i.replace(src, dst) for i in a[name]] if src else a[name]
        print("SAME " if x == b[other] else "DIFF ", len(x), len(b[other]), name[:100])


if __name__ == "__main__":
    main()
