#!/usr/bin/env python3
"""Stall samples per SASS instruction from an ncu source page (h100_ncu_profile.sh with
NCU_SOURCE_PAGE=1 writes <case>.sass.csv, plain or gzipped):
  ncu_source_stalls.py FILE [TOP]          totals, samples by execution count (one count per loop
                                           level or branch), the TOP instructions (default 30)
  ncu_source_stalls.py FILE --regions HEX  samples per HEX bytes of code, with the largest execution
                                           count there and whether it holds HGMMA / STG / BAR.SYNC"""
import collections, csv, gzip, sys


def load(path):
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    rows = list(csv.reader(f))
    hdr = rows[1]
    ix = {h: i for i, h in enumerate(hdr)}
    stalls = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    ins = []
    for r in rows[2:]:
        try:
            addr = int(r[0], 16)
        except ValueError:
            continue
        ins.append(dict(addr=addr, src=r[1].strip(), s=int(r[ix['Warp Stall Sampling (All Samples)']] or 0),
                        ex=int(r[ix['Instructions Executed']] or 0), st={h: int(r[ix[h]] or 0) for h in stalls}))
    if not ins:
        sys.exit(f'{path}: no instructions (not an ncu source page with SourceCounters?)')
    return rows[0][1] if len(rows[0]) > 1 else '', ins


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    name, ins = load(sys.argv[1])
    base, tot = ins[0]['addr'], sum(i['s'] for i in ins) or 1
    print(name[:160])
    print('instructions', len(ins), 'samples', tot)
    if len(sys.argv) > 3 and sys.argv[2] == '--regions':
        size = int(sys.argv[3], 16)
        blk = collections.defaultdict(lambda: [0, 0, set()])
        for i in ins:
            b = blk[(i['addr'] - base) // size]
            b[0] += i['s']
            b[1] = max(b[1], i['ex'])
            for tag in ('HGMMA', 'STG', 'BAR.SYNC'):
                if tag in i['src']:
                    b[2].add(tag)
        for k in sorted(blk):
            s, ex, tags = blk[k]
            if s > 0.002 * tot:
                print(f'{k * size:6x} {100 * s / tot:5.1f}% max executed {ex:9d} {" ".join(sorted(tags))}')
        return
    byex = collections.Counter()
    agg = collections.Counter()
    for i in ins:
        byex[i['ex']] += i['s']
        agg.update(i['st'])
    print('samples by execution count:')
    for ex, s in byex.most_common(15):
        print(f'  executed {ex:10d}: {s:8d} samples {100 * s / tot:5.1f}%')
    print('stall reasons:', ', '.join(f'{h[6:]} {100 * v / tot:.1f}%' for h, v in agg.most_common(12)))
    print('top instructions (offset, samples, share, executed, SASS, top reasons):')
    for i in sorted(ins, key=lambda x: -x['s'])[:int(sys.argv[2]) if len(sys.argv) > 2 else 30]:
        top = ', '.join(f'{h[6:]}={v}' for h, v in sorted(i['st'].items(), key=lambda x: -x[1])[:3] if v)
        print(f"  {i['addr'] - base:6x} {i['s']:7d} {100 * i['s'] / tot:5.1f}% {i['ex']:9d} {i['src'][:60]:60s} {top}")


if __name__ == '__main__':
    main()
