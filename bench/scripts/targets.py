#!/usr/bin/env python3
"""Issue 7's targets (shared/PERF.md, "Targets") read from one kbit-bench JSON report (schema kbit-bench/1).

Every ratio is cuBLAS fp16 time / kbit time from the same run (the report's ratio_f16), or for MoE rows the best
fp16 MoE alternative / kbit (ratio_moe). Only rows of one kbit kernel are read (--kernel, default automatic_pdl:
what a caller gets from the dispatch under PDL); rows whose verification did not PASS are counted as failures and
listed. Sizes are the k = 4 bytes of the weights, PERF.md's roofline (k / 8 + 1 / 32 bytes per weight):
  - "weights >= 8 MB": dense rows of at least 8e6 such bytes (15.06 M weights);
  - "dense/attention shapes (0.5-10 MB)": Qwen3-Coder-Next and GLM-4.7-Flash dense rows between 0.5e6 and 10e6.
Each target prints how many rows meet it, the worst rows, and a verdict (MET only if every row meets it).

Usage: python3 targets.py REPORT.json[.gz] [--kernel automatic_pdl] [--markdown OUT.md]"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare  # noqa: E402  (the JSON reading, .gz included)

MB = 1e6


def load(path):
    d = pdl_compare.load(path)
    if d.get('schema') != 'kbit-bench/1':
        sys.exit(f'{path}: schema {d.get("schema")!r}, expected kbit-bench/1')
    return d


def k4_bytes(r):
    # Weights of one expert (dense rows: E = 1) at k = 4: 0.5 + 1/32 bytes per weight.
    return r['N'] * r['K'] * (4 / 8 + 1 / 32)


def label(r):
    return f"{r['model']} {r['shape']} M={r['M']} k={r['bits']}"


class Target:
    def __init__(self, name, rows, value, goal, fmt='{:.2f}x'):
        self.name, self.goal, self.fmt = name, goal, fmt
        self.rows = sorted(rows, key=value)
        self.value = value

    def lines(self):
        n = len(self.rows)
        if n == 0:
            return [f'| {self.name} | no rows in this report | - |']
        bad = [r for r in self.rows if r['verify'] != 'PASS' or self.value(r) < self.goal]
        worst = ', '.join(f'{label(r)} {self.fmt.format(self.value(r))}' +
                          ('' if r['verify'] == 'PASS' else f" (verify {r['verify']})") for r in self.rows[:3])
        vals = [self.value(r) for r in self.rows]
        geo = math.exp(sum(math.log(max(v, 1e-9)) for v in vals) / n)
        verdict = 'MET' if not bad else f'not met: {len(bad)} of {n} rows short'
        return [f'| {self.name} | {n - len(bad)} of {n} rows; range {self.fmt.format(vals[0])} .. '
                f'{self.fmt.format(vals[-1])}, geomean {self.fmt.format(geo)}; worst: {worst} | {verdict} |']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('report')
    ap.add_argument('--kernel', default='automatic_pdl')
    ap.add_argument('--markdown', help='also write the table here')
    a = ap.parse_args()
    d = load(a.report)
    rows = [r for r in d['rows'] if r['kind'] == 'kbit' and r['kernel'] == a.kernel and not r['hot']]
    if not rows:
        sys.exit(f'{a.report}: no cold rows of kernel {a.kernel}')
    dense = [r for r in rows if not r['moe'] and r['dtype'] == 'f16']
    moe = [r for r in rows if r['moe'] and r['dtype'] == 'f16']
    big = [r for r in dense if k4_bytes(r) >= 8 * MB]
    f16 = lambda r: r['ratio_f16']  # noqa: E731
    out = ['| Target | Rows (this report) | Verdict |', '|---|---|---|']
    ts = []
    k4 = lambda rs: [r for r in rs if r['bits'] == 4]  # noqa: E731
    ts.append(Target('M = 1, >= 8 MB: >= 90% of read bandwidth',
                     [r for r in k4(big) if r['M'] == 1], lambda r: r['pct_bw'], 90, '{:.1f}%'))
    ts.append(Target('M = 2..16, >= 8 MB: >= 3.0x', [r for r in k4(big) if 2 <= r['M'] <= 16], f16, 3.0))
    for m, g in ((32, 2.5), (64, 2.0), (128, 1.3)):
        ts.append(Target(f'M = {m}, >= 8 MB: >= {g}x', [r for r in k4(big) if r['M'] == m], f16, g))
    ts.append(Target('never slower than cuBLAS, M <= 1024, >= 8 MB', [r for r in k4(big) if r['M'] <= 1024],
                     f16, 1.0))
    small = [r for r in k4(dense) if r['model'] in ('qwen3-coder-next', 'glm-4.7-flash')
             and 0.5 * MB <= k4_bytes(r) <= 10 * MB and r['M'] <= 16]
    ts.append(Target('Qwen3/GLM dense and attention shapes (0.5-10 MB), M <= 16: >= 2.0x', small, f16, 2.0))
    moe_r = lambda r: r['ratio_moe']  # noqa: E731
    ts.append(Target('MoE, M <= 16: >= 3x the best fp16 alternative', [r for r in k4(moe) if r['M'] <= 16],
                     moe_r, 3.0))
    ts.append(Target('MoE, M > 16: never slower than the best fp16 alternative',
                     [r for r in k4(moe) if r['M'] > 16], moe_r, 1.0))
    ts.append(Target('k = 2, M = 1, >= 8 MB: >= 5x',
                     [r for r in big if r['bits'] == 2 and r['M'] == 1], f16, 5.0))
    for t in ts:
        out += t.lines()
    pdl = a.kernel.endswith('_pdl')
    tot = [t for t in d.get('totals', []) if t['model'] == 'qwen3-coder-next' and t['M'] == 1 and t['bits'] == 4
           and t['dtype'] == 'f16' and bool(t['pdl']) == pdl and not t['hot']]
    if tot:
        t = tot[0]
        out.append(f"| Qwen3-Coder-Next block, M = 1: >= 3x (TOTAL) | {t['kbit_us']:.2f} us against "
                   f"{t['fp16_us']:.2f} us: {t['ratio']:.2f}x ({t['shapes']} shapes, {t['missing']} missing) | "
                   f"{'MET' if t['ratio'] >= 3 and not t['missing'] else 'not met'} |")
    else:
        out.append('| Qwen3-Coder-Next block, M = 1: >= 3x (TOTAL) | no TOTAL row in this report | - |')
    run = d.get('run', {})
    head = (f"{a.report}: kernel {a.kernel}, {run.get('device', '?')}, commit {run.get('git_commit', '?')}, "
            f"read bandwidth {run.get('read_gbps', 0):.0f} GB/s")
    text = head + '\n\n' + '\n'.join(out) + '\n'
    print(text, end='')
    if a.markdown:
        with open(a.markdown + '.tmp', 'w') as f:
            f.write(text)
        os.replace(a.markdown + '.tmp', a.markdown)


if __name__ == '__main__':
    main()
