#!/usr/bin/env python3
"""Summary of a tcw timeline (a KBIT_TCW_TIMELINE build's doctest "gpu: tcw timeline ...", its CSV from
KBIT_TCW_TIMELINE_OUT; bench/scripts/h100_tcw_timeline.sh):  tcw_timeline.py CSV[.gz]
Per case (shape, M, k, token tile): SM clock cycles per step of tcw_kernel's warps, split at the stamps
(kernels/tcw_common.cuh, KBIT_TCW_TIMELINE):
  weights  e1 - e0  the step's weights in registers and cut to nibbles / offsets (the load's wait included)
  wait1    e2 - e1  wgmma_wait<1>: the previous step's first half retired
  frag0    e3 - e2  the first half's fragments built
  sync     e4 - e3  sync_step: the stage's activations landed and the previous second half retired
  half1    e5 - e4  the first half issued, the second half's fragments built and issued
  refill   next e0 - e5  thread 0's refill (warp 0) and the loop
k <= 3 stamps no e1, e2: its decode is all in frag0 (e3 - e0). Medians over the CTAs' warps and the steps
but each CTA's first and last, per warpgroup; `tensor` is the step's wgmma work at 4096 FLOP per clock per SM
(2 x 128 rows x tile x 128 k / 4096 = 8 x tile cycles), so step / tensor is how far a step is from the tensor
pipe's limit. The CTA line: its mean time (globaltimer, before the prologue to after the main loop, without the
epilogue) and the SM clock over the same interval.
Then per warp (the lag table): the median time of each stamp from the step's earliest e0 over all 8 warps (one CTA's
step at a time, neither its first nor its last), and the median offset of warpgroup 1's e4 from warpgroup 0's, in
steps. wgmma is warpgroup-wide, so a warpgroup's wgmma start when its last warp reaches e4."""
import collections
import csv
import gzip
import statistics
import sys

PARTS = ('weights', 'wait1', 'frag0', 'sync', 'half1', 'refill', 'step')


def main():
    path = sys.argv[1]
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    rows = collections.defaultdict(list)
    for r in csv.DictReader(f):
        key = (r['case'], int(r['M']), int(r['bits']), int(r['tile']))
        rows[key].append(r)
    for key, rs in rows.items():
        name, M, bits, tile = key
        by_warp = collections.defaultdict(dict)
        ctas = {}
        for r in rs:
            by_warp[(int(r['cta']), int(r['warp']))][int(r['step'])] = [int(r[f'e{i}']) for i in range(6)]
            ctas[int(r['cta'])] = (int(r['t_start']), int(r['t_end']), int(r['c_start']), int(r['c_end']))
        parts = {wg: collections.defaultdict(list) for wg in (0, 1)}
        cycles_per_ns = []
        for (cta, warp), steps in by_warp.items():
            n = max(steps) + 1
            wg = warp // 4
            for s in range(1, n - 1):  # not a CTA's first (the pipeline's fill) or last step
                e, nxt = steps[s], steps[s + 1]
                d = lambda a, b: (b - a) & 0xffffffff
                if bits <= 3:
                    parts[wg]['frag0'].append(d(e[0], e[3]))
                else:
                    parts[wg]['weights'].append(d(e[0], e[1]))
                    parts[wg]['wait1'].append(d(e[1], e[2]))
                    parts[wg]['frag0'].append(d(e[2], e[3]))
                parts[wg]['sync'].append(d(e[3], e[4]))
                parts[wg]['half1'].append(d(e[4], e[5]))
                parts[wg]['refill'].append(d(e[5], nxt[0]))
                parts[wg]['step'].append(d(e[0], nxt[0]))
            if warp == 0:
                t0, t1, c0, c1 = ctas[cta]
                if (t1 - t0) & 0xffffffff > 0:
                    cycles_per_ns.append(((c1 - c0) & 0xffffffff) / ((t1 - t0) & 0xffffffff))
        tensor = 8 * tile
        print(f'{name} M = {M}, k = {bits}, tile {tile}: {len(ctas)} CTAs stamped, tensor work {tensor} cycles a step')
        print('  warpgroup ' + ''.join(f'{p:>9}' for p in PARTS) + '   step/tensor')
        for wg in (0, 1):
            med = {p: statistics.median(v) for p, v in parts[wg].items() if v}
            cells = ''.join(f'{med[p]:9.0f}' if p in med else f'{"-":>9}' for p in PARTS)
            print(f'  {wg:9d} {cells}   {med.get("step", 0) / tensor:5.2f}')
        durs = [((t1 - t0) & 0xffffffff) / 1000 for t0, t1, _, _ in ctas.values() if t1]
        if durs:
            clk = statistics.median(cycles_per_ns) if cycles_per_ns else float('nan')
            print(f'  CTA time {statistics.mean(durs):.2f} us mean ({min(durs):.2f}-{max(durs):.2f}; thread 0 from '
                  f'before the prologue to after the main loop); SM clock ~{clk:.2f} GHz (clock over globaltimer '
                  f'on the same interval; the globaltimer ticks coarsely)')
        lag_table(by_warp, bits)
        print()


def lag_table(by_warp, bits):
    """Per warp, the median of (stamp - the step's earliest e0) over the CTAs' inner steps; and wg1's e4 offset."""
    ctas = sorted({cta for cta, _ in by_warp})
    rel = collections.defaultdict(list)
    offset = []
    for cta in ctas:
        ws = [by_warp.get((cta, w)) for w in range(8)]
        if any(w is None for w in ws):
            continue
        n = min(max(w) + 1 for w in ws)
        for s in range(1, n - 1):
            base = min(ws[w][s][0] for w in range(8))
            for w in range(8):
                e = ws[w][s] + [ws[w][s + 1][0]]
                rel[w].append([(x - base) & 0xffffffff for x in e])
            step = (ws[0][s + 1][0] - ws[0][s][0]) & 0xffffffff
            d = ws[4][s][4] - ws[0][s][4]
            d = d - (1 << 32) if d >= 1 << 31 else d
            offset.append(d / step if step else 0.0)
    if not rel:
        return
    cols = ('e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'next e0')
    print('  lag table: median cycles from the step\'s earliest e0' + ('' if bits >= 4 else ' (k <= 3: no e1, e2)'))
    print('  warp ' + ''.join(f'{c:>9}' for c in cols))
    for w in range(8):
        med = [statistics.median(c) for c in zip(*rel[w])]
        cells = ''.join(f'{"-":>9}' if bits <= 3 and i in (1, 2) else f'{m:9.0f}' for i, m in enumerate(med))
        print(f'  {w:4d} {cells}')
    print(f'  warpgroup 1 e4 - warpgroup 0 e4: median {statistics.median(offset):+.2f} steps')


if __name__ == '__main__':
    main()
