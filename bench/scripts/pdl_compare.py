#!/usr/bin/env python3
"""Tables for a PDL run: dense `automatic` / `automatic_pdl` rows of several arms, best of the
repeats per row, against a reference column. Usage:
  pdl_compare.py DIR REF_ARM:KERNEL ARM:KERNEL ...   (files DIR/bench-<i>-<arm>.json[.gz])
Prints the geomeans of REF / column (per bit width too) and one line per row with cuBLAS fp16; an
`automatic*` column's times carry the kernel that arm's dispatch ran (e.g. 6.46/tcw)."""
import collections, glob, gzip, json, math, os, sys


def load(path):
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        return json.load(f)


def reports(d):
    """(arm, report) for each DIR/bench-<i>-<arm>.json[.gz], in file-name order."""
    for p in sorted(glob.glob(os.path.join(d, 'bench-*.json*'))):
        yield os.path.basename(p).split('.')[0].split('-', 2)[2], load(p)


def kbit_times(d):
    """The dense kbit rows of DIR's runs (every one PASS, else AssertionError): {(arm, kernel, model, shape, M,
    bits): [median us per run]} and {same key: the kernel an automatic row ran}."""
    t, disp = collections.defaultdict(list), {}
    for arm, rep in reports(d):
        for r in rep['rows']:
            if r['moe'] or 'median' not in r.get('us', {}) or r['kind'] == 'baseline':
                continue
            key = (arm, r['kernel'], r['model'], r['shape'], r['M'], r['bits'])
            assert r['verify'] == 'PASS', key
            t[key].append(r['us']['median'])
            if r.get('dispatch'):
                disp[key] = r['dispatch']
    return t, disp


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def catalogue_dims(d):
    """{(model, shape): (N, K)} of DIR/rows.json, the catalogue a device script wrote for its bench runs."""
    with open(os.path.join(d, 'rows.json')) as f:
        return {(m['name'], g['name']): (g['N'], g['K']) for m in json.load(f)['models'] for g in m['gemms']}


def main():
    d, ref, cols = sys.argv[1], tuple(sys.argv[2].split(':')), [tuple(c.split(':')) for c in sys.argv[3:]]
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    cub = collections.defaultdict(list)
    disp = {}
    cdisp = {}  # (arm, kernel, key): the kernel an automatic row ran in that arm
    for arm, rep in reports(d):
        for r in rep['rows']:
            if r['moe'] or 'median' not in r.get('us', {}):
                continue
            key = (r['model'], r['shape'], r['M'], r['bits'])
            if r['kind'] == 'baseline':
                if r['kernel'] == 'cublas_f16':
                    cub[key[:3]].append(r['us']['median'])
                continue
            if r['verify'] != 'PASS':
                print('not PASS:', arm, key, r['kernel'], r['verify'])
                continue
            t[(arm, r['kernel'])][key].append(r['us']['median'])
            if r.get('dispatch'):
                disp[key] = r['dispatch']
                cdisp[(arm, r['kernel'], key)] = r['dispatch']
    best = lambda c, k: min(t[c][k]) if t[c].get(k) else None
    keys = sorted(t[ref])
    gm = geomean
    print('geomean %s / column (>1: column faster), min, max, rows' % ':'.join(ref))
    for c in cols:
        for bits in [None] + sorted({k[3] for k in keys}):
            rs = [best(ref, k) / best(c, k) for k in keys if best(c, k) and (bits is None or k[3] == bits)]
            if rs:
                print('  %-24s %-6s %.3f %.3f %.3f %d' % (':'.join(c), 'all' if bits is None else 'k=%d' % bits,
                                                         gm(rs), min(rs), max(rs), len(rs)))
    print()
    lab = lambda c: c[0] + ('+pdl' if c[1].endswith('_pdl') else '')
    # a column's value, with the dispatch of an automatic column
    val = lambda c, k, v: ('%.2f/%s' % (v, cdisp[(c[0], c[1], k)][:8]) if (c[0], c[1], k) in cdisp
                           else '%.2f' % v) if v else '-'
    print('%-16s %-30s %3s %2s %7s %16s ' % ('model', 'shape', 'M', 'k', 'cuBLAS', lab(ref)) +
          ' '.join('%16s' % lab(c) for c in cols) + '  dispatch  cuBLAS/last')
    for k in keys:
        cb = min(cub.get(k[:3], [float('nan')]))
        vals = [best(c, k) for c in cols]
        last = vals[-1] or float('nan')
        print('%-16s %-30s %3d %2d %7.2f %16s ' % (k[0][:16], k[1][:30], k[2], k[3], cb, val(ref, k, best(ref, k))) +
              ' '.join('%16s' % val(c, k, v) for c, v in zip(cols, vals)) + '  %-8s  %.2f' % (disp.get(k, '')[:8], cb / last))


if __name__ == '__main__':
    main()
