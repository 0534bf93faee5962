#!/usr/bin/env python3
"""Regression guard for reads moved above griddepcontrol.wait (ctest sass.pdl_reads).

Under LinearArgs::pdl a kernel may start while the previous kernel still writes A; it must read A only
after griddepcontrol.wait (SASS ACQBULK). ptxas may schedule an __ldg (LDG...CONSTANT) above the wait,
and did so in gemv's late-trigger staged kernels (bench/results/2026-11-26-h100-stagedmends). This
compiles kernels/gemv.cu for sm_90a and checks the two gemv kernel families whose reads before the wait
can be told apart by width: the workspace-mode kernels of the register pipeline (they stage the
codebook, then wait, then load weights) and the staged early-trigger kernels (weights by cp.async,
LDGSTS). In both, every load before the wait must be a 32-bit codebook load: a wider one is a weight
or activation load that does not belong there. The cluster and early kernels of the register pipeline
load 64- and 128-bit weights before the wait on purpose, so width cannot separate A there; they are
not checked.

It also compiles kernels/tcv.cu and checks every tcv kernel: the stage-first ones (kTcvWorkspace,
kTcvUnsplit) and grouped tcv read only the 32-bit codebook before the wait; the ones that load
weights first (kTcvLatency, kTcvEarly) read exactly the first step's weights there -- the lane's
k words of two rows (2 k 32-bit words, whatever the load widths) and their two absmax bytes -- and the
codebook, so an activation load moved above the wait shows as extra bits. Usage: pdl_sass_reads.py
NVCC SOURCE_DIR WORK_DIR. Exit 77 (skip) without nvdisasm. KBIT_SASS_CUBIN / KBIT_SASS_TCV_CUBIN: check
a gemv / tcv cubin built already (checking this script itself)."""
import os
import re
import subprocess
import sys


def main():
    nvcc, src, work = sys.argv[1:4]
    sys.path.insert(0, os.path.join(src, "bench", "scripts"))
    from sass_loop_mix import cubin_command, find_nvdisasm, functions  # shared by the SASS scripts
    nvdisasm = find_nvdisasm(nvcc)
    if not nvdisasm:
        print("nvdisasm not found next to %s or on PATH: skipped" % nvcc)
        return 77
    os.makedirs(work, exist_ok=True)

    def sass_of(source, env):
        cubin = os.environ.get(env) or os.path.join(work, source.replace(".cu", "_sm90a.cubin"))
        if not os.environ.get(env):
            subprocess.run(cubin_command(nvcc, src, source, cubin), check=True)
        return functions(subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True, text=True).stdout)

    bad = []
    failed = check_gemv(sass_of("gemv.cu", "KBIT_SASS_CUBIN"), bad)
    failed |= check_tcv(sass_of("tcv.cu", "KBIT_SASS_TCV_CUBIN"), bad)
    for b in bad:
        print("FAIL " + b)
    return 1 if bad or failed else 0


def before_wait(body):
    """The opcodes (with modifiers) of the global loads before griddepcontrol.wait (SASS ACQBULK), or
    None without a wait."""
    wait = next((i for i, l in enumerate(body) if "ACQBULK" in l), None)
    if wait is None:
        return None
    ops = []
    for line in body[:wait]:
        ins = line.split(";")[0].split("*/")[-1].strip()
        op = re.sub(r"^@!?U?P\w+\s+", "", ins).split(" ")[0]  # the opcode and its modifiers
        if op.startswith("LDG") and not op.startswith("LDGSTS") and not op.startswith("LDGDEPBAR"):
            ops.append(op)
    return ops


def load_bits(op):
    m = re.search(r"\.(U8|S8|U16|S16|64|128)(\.|$)", op)
    return {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}[m.group(1)] if m else 32


def check_family(label, funcs, select, judge, minimum, bad):
    """Every kernel of funcs that select(name) keys (None: not one of them) must have a wait, and
    judge(key, loads before it) must return None, else the text for its FAIL line. True when fewer
    than `minimum` matched: the kernel names or modes changed."""
    checked = 0
    for name, body in sorted(funcs.items()):
        key = select(name)
        if key is None:
            continue
        ops = before_wait(body)
        if ops is None:
            bad.append("%s: no griddepcontrol.wait" % name)
            continue
        checked += 1
        error = judge(key, ops)
        if error:
            bad.append("%s: %s" % (name, error))
    print("%d %s kernels checked" % (checked, label))
    if checked < minimum:
        print("FAIL only %d %s kernels matched: the kernel names or modes changed, update this check" %
              (checked, label))
        return True
    return False


def check_tcv(funcs, bad):
    """tcv's kernels (see the module comment)."""
    def select(name):
        m = re.search(r"10tcv_kernelI.*?ELi(\d)ELi\dELb\dELNS1_7TcvModeE(\d)E", name)
        if m:  # (k, whether the weights come first: kTcvLatency, kTcvEarly)
            return int(m.group(1)), int(m.group(2)) in (2, 3)
        return (0, False) if "18grouped_tcv_kernel" in name else None

    def judge(key, ops):
        kb, weights_first = key
        rest = list(ops)
        codebook = next((o for o in ops if load_bits(o) == 32 and ".CONSTANT" not in o), None)
        if codebook:
            rest.remove(codebook)
        if not weights_first:
            return "%s before the wait (only the codebook belongs there)" % " ".join(rest) if rest else None
        absmax = [o for o in rest if load_bits(o) == 8]
        words = sum(load_bits(o) for o in rest if load_bits(o) != 8)
        if len(absmax) != 2 or words != 2 * kb * 32:
            return "%s before the wait (want 2 x %d weight words and 2 absmax bytes)" % (" ".join(rest), kb)
        return None

    # 2 activation types x (4 modes x (k = 2..5 x NT = 1, 2 and the pair-table forms)) + grouped: > 100.
    return check_family("tcv", funcs, select, judge, 100, bad)


def check_gemv(funcs, bad):
    """gemv's workspace-mode and staged early kernels (see the module comment)."""
    def select(name):
        m = re.search(r"11gemv_kernelI.*GemvModeE(\d)ELb(\d)ELi(\d)E", name)
        if not m:
            return None
        mode, st = int(m.group(1)), int(m.group(3))
        return True if (mode == 0 and st == 0) or (mode == 2 and st > 0) else None

    def judge(_, ops):
        wide = [o for o in ops if load_bits(o) != 32]
        return "%s before the wait" % " ".join(wide) if wide else None

    # 2 activation types x (register workspace kernels: k = 2..5 x M = 1..4, pair tables at k = 2..4
    # for some M) + staged early kernels: far more than 40; fewer means the names changed.
    return check_family("gemv", funcs, select, judge, 40, bad)


if __name__ == "__main__":
    sys.exit(main())
