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
import os
import re, subprocess, sys
def funcs(cubin):
    out = subprocess.run([os.environ.get('NVDISASM', 'nvdisasm'),'-c',cubin],capture_output=True,text=True).stdout
    fs={}; cur=None
    for line in out.splitlines():
        m=re.match(r'\s*\.text\.(\S+):',line)
        if m: cur=m.group(1); fs[cur]=[]; continue
        if cur and '/*' in line:
            m=re.search(r'/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;',line)
            if m:
                ins=re.sub(r'__internal_\d+_','__internal_',re.sub(r'\.L_x_\d+','L',m.group(1)))
                fs[cur].append(re.sub(r'\s+',' ',ins))
    return fs
a=funcs(sys.argv[1]); b=funcs(sys.argv[2])
pat=sys.argv[3]; ren=sys.argv[4] if len(sys.argv)>4 else None
for name in sorted(a):
    if not re.search(pat,name): continue
    other = name if not ren else name.replace(*ren.split('->'))
    if other not in b: print("MISSING", other[:90]); continue
    x=a[name]; y=b[other]
    if ren:
        src,dst=ren.split('->'); x=[i.replace(src,dst) for i in x]
    print("SAME " if x==y else "DIFF ", len(x), len(y), name[:100])
