#!/usr/bin/env python3
"""Summary of a gemv timeline (a KBIT_GEMV_TIMELINE build's doctest "gpu: gemv timeline ...", its CSV from
KBIT_GEMV_TIMELINE_OUT; bench/scripts/h200_gemv_timeline.sh):  gemv_timeline.py CSV[.gz]

Events of a step (kernels/gemv_common.cuh's gemv_tile, KBIT_GEMV_TIMELINE), per warp, SM clocks: e0 the step's top, e1 its tile's loads
arrived, e2 the next tile's loads issued, e3 its sums done. Per case: the grid (CTAs, SMs, CTAs per SM, the launch's
span by globaltimer, the SM clock rate), then per step the median and mean cycles of waiting (e1 - e0), issuing the
next loads (e2 - e1), decoding (e3 - e2) and the rest of the loop (next e0 - e3), the share of a warp's step time
spent waiting, and the CTAs' lengths."""
import collections
import csv
import gzip
import statistics
import sys


def d32(a, b):
    """b - a on the 32-bit clock (wraps)."""
    return (int(b) - int(a)) & 0xFFFFFFFF


def main():
    path = sys.argv[1]
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    rows = collections.defaultdict(list)
    for r in csv.DictReader(f):
        rows[(r['case'], int(r['bits']))].append(r)
    for (case, bits), rs in rows.items():
        ctas = {}
        warps = collections.defaultdict(list)
        for r in rs:
            ctas[int(r['cta'])] = r
            warps[(int(r['cta']), int(r['warp']))].append(r)
        sms = collections.Counter(int(r['smid']) for r in ctas.values())
        t0 = min(int(r['t_start']) for r in ctas.values())
        span_ns = max(d32(t0, r['t_end']) for r in ctas.values())
        ghz = statistics.median(d32(r['c_start'], r['c_end']) / max(1, d32(r['t_start'], r['t_end']))
                                for r in ctas.values())
        wait, issue, dec, rest, step = [], [], [], [], []
        for key, ws in warps.items():
            ws.sort(key=lambda r: int(r['step']))
            for i, r in enumerate(ws):
                wait.append(d32(r['e0'], r['e1']))
                issue.append(d32(r['e1'], r['e2']))
                dec.append(d32(r['e2'], r['e3']))
                if i + 1 < len(ws):
                    rest.append(d32(r['e3'], ws[i + 1]['e0']))
                    step.append(d32(r['e0'], ws[i + 1]['e0']))
        cta_cycles = [d32(r['c_start'], r['c_end']) for r in ctas.values()]
        total = sum(wait) + sum(issue) + sum(dec) + sum(rest)
        print(f"== {case} k={bits}: {len(ctas)} CTAs on {len(sms)} SMs (max {max(sms.values())} per SM), "
              f"span {span_ns / 1000:.2f} us, SM clock {ghz:.2f} GHz")
        for name, v in (('wait (e1-e0)', wait), ('issue (e2-e1)', issue), ('decode (e3-e2)', dec),
                        ('rest (e0\'-e3)', rest), ('step (e0\'-e0)', step)):
            if v:
                print(f"   {name:15s} median {statistics.median(v):8.0f}  mean {statistics.mean(v):8.0f} cycles"
                      f"  share {sum(v) / total:6.1%}" if name != 'step (e0\'-e0)' else
                      f"   {name:15s} median {statistics.median(v):8.0f}  mean {statistics.mean(v):8.0f} cycles")
        print(f"   CTA length median {statistics.median(cta_cycles):.0f} cycles, min {min(cta_cycles)}, "
              f"max {max(cta_cycles)}; steps per warp median {statistics.median(len(w) for w in warps.values())}")


if __name__ == '__main__':
    main()
