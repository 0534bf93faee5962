#!/usr/bin/env python3
"""Loads issued before griddepcontrol.wait (SASS ACQBULK) in each kernel of a cubin: under
LinearArgs::pdl / MoeArgs::pdl only the weights (packed words, absmax, codebook) may be read before
the wait. The compiler treats __ldg (LDG.E.CONSTANT) as invariant and may hoist such a load above
the wait; the list shows what each kernel reads early, for review. nvdisasm: CUDA toolkit or the
PyPI wheel nvidia-cuda-nvdisasm (NVDISASM overrides the path). Usage:
  nvcc -O3 -std=c++20 -gencode=arch=compute_90a,code=sm_90a -DKBIT_HAVE_SM90A=1 -I kernels -I lib \\
       -cubin kernels/gemv.cu -o gemv.cubin
  python3 bench/scripts/pdl_sass_check.py gemv.cubin [REGEX]
prints per kernel with a wait: the loads before it (instruction and address register)."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_loop_mix import functions  # noqa: E402


def main():
    cubin = sys.argv[1]
    pat = re.compile(sys.argv[2] if len(sys.argv) > 2 else '.')
    sass = subprocess.run([os.environ.get('NVDISASM', 'nvdisasm'), '-c', cubin], check=True, capture_output=True,
                          text=True).stdout
    for name, body in sorted(functions(sass).items()):
        if not pat.search(name):
            continue
        wait = next((i for i, l in enumerate(body) if 'ACQBULK' in l), None)
        if wait is None:
            continue
        early = [l.split(';')[0].split('*/')[-1].strip() for l in body[:wait] if re.search(r'\bLD(G|GSTS)\b|LDG\.', l)]
        print('%-100s %2d loads before the wait%s' % (name[:100], len(early), ''.join('\n    ' + e for e in early)))


if __name__ == '__main__':
    main()
