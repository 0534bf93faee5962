#!/usr/bin/env python3
"""Fit of tcw's token-tile cost model (tcw_plan_cost, lib/kbit/tcw_sched.h) to a record of tcw under
256-, 128- and 64-token tiles (bench/scripts/h100_tcw_mncap.sh: bench-1-c256, bench-2-c128, bench-3-c64):
  tcw_tile_fit.py DIR
For each k in the record: least squares (relative error) of time = c(tile) x makespan + b x MB of fp32
partials + a constant, the plans computed by a Python copy of tcw_partition / tcw_slots (one CTA per SM,
two for k = 2's 64-token kernel, as when -mncap was recorded); then the choice at margins 0..15% (a smaller tile only where its
modelled cost is <= (1 - margin) x the default's) against the default tile and the best measured one.
  tcw_tile_fit.py --classes DIR OLD NEW [--one64] [--mid]
same-call A/B of OLD and NEW arms (DIR/bench-<i>-<arm>.json[.gz], tcw or automatic rows): the geomean
of OLD / NEW over the rows whose kernel (the `dispatch` field) changed, whose tcw token tile changed
(by the landed constants: C below, margin 8%, and the CTAs per SM of today's kernels: two at 64 tokens for
k = 2, 3 and 4, k = 4 taken to run on the pair table; --one64: one CTA at 64 tokens but for k = 2, as in records
before bench/results/2026-11-27-h100-minb64; --mid: the 192-token candidate too, as since
bench/results/2026-11-28-h100-tile192) and the rest (the control)."""
import collections
import gzip
import json
import math
import os
import sys


SMS = 132


def load(path):
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    return json.load(f)


def partition(M, N, steps, tiles, slots, whole):
    units = tiles * steps
    splits = min(max(1, slots // tiles), max(1, steps // 2))
    while splits > 1 and splits * M * N * 4 > 32e6:
        splits -= 1
    sl = -(-steps // splits)
    per_tile = -(-(tiles * splits) // slots) * sl
    ctas_k = max(1, min(slots, units // 2))
    sk = -(-units // ctas_k) * -(-ctas_k // slots)
    if per_tile >= 32 and 100 * sk <= 86 * per_tile:
        return dict(kind='sk', ctas=ctas_k, splits=0, cs=-(-units // ctas_k))
    r = dict(kind='pt', ctas=tiles * splits, splits=splits, cs=sl)
    run = -(-tiles // slots)
    cw = -(-tiles // run)
    if whole and splits == 1 and run > 1 and tiles % cw == 0:
        r = dict(kind='whole', ctas=cw, splits=0, cs=run * steps)
    return r


def default_tile(M):
    """tcw_default_tile (lib/kbit/tcw_sched.h)."""
    return 32 if M <= 32 else 64 if M <= 64 else 128 if M <= 128 else 256


def plan(M, N, K, bits, mn, two64=True):
    # two64: the 64-token kernels of k = 3 and of k = 4 (pair table) hold two CTAs per SM, as since
    # bench/results/2026-11-27-h100-minb64 and -occ2; False for records before them (the -mncap fit below)
    steps, rt = -(-K // 128), -(-N // 128)
    tiles = rt * -(-M // mn)
    res = 2 if (mn == 32 or (mn == 64 and (bits == 2 or (bits in (3, 4) and two64)))) else 1
    whole = mn >= 128 and bits >= 4 and steps >= 16
    p = partition(M, N, steps, tiles, res * SMS, whole)
    cps = res
    if res > 1 and p['cs'] < 6:
        p, cps = partition(M, N, steps, tiles, SMS, whole), 1
    p['slots'] = cps * SMS
    p['cps'] = cps
    p['mk'] = -(-p['ctas'] // p['slots']) * p['cs'] if p['kind'] == 'pt' else p['cs']
    if p['splits'] > 1:
        p['pb'] = p['splits'] * M * N * 4
    elif p['splits'] == 0 and tiles % p['ctas'] != 0:
        p['pb'] = p['ctas'] * 2 * mn * 128 * 4
    else:
        p['pb'] = 0
    return p


# The constants tcw_plan_cost uses (lib/kbit/tcw_sched.h): k <= 3 and k >= 4; C64_TWO: k >= 4 at 64 tokens
# where the plan counts two CTAs per SM.
C = {2: ({64: 1.27, 128: 1.09, 256: 1.64}, 0.62), 4: ({64: 0.92, 128: 1.12, 256: 1.70}, 0.48)}
for _c, _b in C.values():
    for _mn in (160, 192, 224):  # tcw_plan_cost's steps between 128 and 256 tokens: not fitted, linear (192 halfway)
        _c[_mn] = _c[128] + (_c[256] - _c[128]) * (_mn - 128) / 128
C64_TWO = 1.48
# k <= 3's 64-token step where the plan counts one CTA per SM and tcw_lone64_short holds (kTcwLone64K2, since
# bench/results/2026-11-28-h200-s46l); None: the fitted c(64), as before.
C64_LONE_K2 = 0.85


def lone64_short(M, cta_steps):  # tcw_lone64_short
    return cta_steps <= 4 or (cta_steps <= 6 and M <= 256)


MID_MAIN = (160, 192, 224)  # main's tiles between 128 and 256 tokens since bench/results/2026-11-28-h100-tilewidths


def choose(M, N, K, bits, two64=True, c64_two=C64_TWO, mid=MID_MAIN, consts=None, c64_lone=C64_LONE_K2):
    # c64_two: the k >= 4 64-token step at two CTAs per SM (None: c(64), as before that was priced)
    # c64_lone: the k <= 3 64-token step at one CTA per SM on short plans (None: c(64), as before the forty-sixth
    # session)
    # mid: the candidates between 128 and 256 tokens where the default is 256, a tuple of widths: MID_MAIN (main's
    # since -tilewidths), True for 192 alone (KBIT_TCW_TILE192, main's from bench/results/2026-11-28-h100-tile192),
    # False for none (records before it)
    # consts: the step and partial prices as C has them (default C)
    top = default_tile(M)
    if top < 128:
        return top
    c, b = (consts or C)[2 if bits <= 3 else 4]
    def cost(mn):
        p = plan(M, N, K, bits, mn, two64)
        two = c64_two is not None and bits >= 4 and mn == 64 and p['cps'] == 2
        lone = c64_lone is not None and bits <= 3 and mn == 64 and p['cps'] == 1 and lone64_short(M, p['cs'])
        cm = c64_two if two else c64_lone if lone else c[mn]
        return cm * p['mk'] + b * p['pb'] / 1e6
    best, c0 = top, cost(top)
    cb = c0
    mids = (192,) if mid is True else tuple(mid or ())
    # no more token tiles than 256, up to M = 576 (tcw_choose_tile, kTcwMidMaxM)
    cands = [m for m in sorted(mids) if top == 256 and M <= 576 and -(-M // m) == -(-M // 256)]
    cands += [m for m in (top // 2, top // 4) if m >= 64]
    for mn in cands:
        if cost(mn) <= 0.92 * c0 and cost(mn) < cb:
            best, cb = mn, cost(mn)
    return best


def ab_rows(d, old, new, mid_old, mid_new, kernel='tcw_pdl'):
    """The rows both arms of a same-call A/B ran (DIR's bench JSONs and rows.json, bench/scripts/pdl_compare.py),
    the best of each arm's reps: (old / new, model, shape, M, bits, N, K, old tile, new tile, us old, us new), the
    tiles by choose with mid_old and mid_new."""
    import pdl_compare
    times, _ = pdl_compare.kbit_times(d)
    nk = pdl_compare.catalogue_dims(d)
    for (arm, kern, model, shape, M, bits), v in times.items():
        w = times.get((new, kern, model, shape, M, bits))
        if arm != old or kern != kernel or not w:
            continue
        N, K = nk[(model, shape)]
        yield (min(v) / min(w), model, shape, M, bits, N, K, choose(M, N, K, bits, mid=mid_old),
               choose(M, N, K, bits, mid=mid_new), min(v), min(w))


def classes(d, old, new, two64=True, mid=False):
    import glob
    t = collections.defaultdict(lambda: collections.defaultdict(list))
    disp = {}
    for f in sorted(glob.glob(os.path.join(d, 'bench-*-*.json*'))):
        arm = os.path.basename(f).split('-', 2)[2].split('.')[0]
        for r in load(f)['rows']:
            if r['kind'] == 'baseline' or 'median' not in r.get('us', {}):
                continue
            key = (r['model'], r['shape'], r['M'], r['bits'], r['N'], r['K'], r['kernel'])
            t[key][arm].append(r['us']['median'])
            disp[(key, arm)] = r.get('dispatch') or r['kernel']
    g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
    out = collections.defaultdict(list)
    for key, v in t.items():
        if old not in v or new not in v:
            continue
        r = min(v[old]) / min(v[new])
        do, dn = disp[(key, old)], disp[(key, new)]
        M, N, K, bits = key[2], key[4], key[5], key[3]
        dflt = default_tile(M)
        if do != dn:
            cls = f'kernel moved ({do} -> {dn})'
        elif dn == 'tcw' and choose(M, N, K, bits, two64, mid=mid) != dflt:
            cls = 'tcw tile moved'
        else:
            cls = 'same plan (control)'
        out[cls].append((r, key))
    for cls in sorted(out):
        rs = [x[0] for x in out[cls]]
        print(f'{cls}: {len(rs)} rows, geomean {g(rs):.3f}, min {min(rs):.3f}, max {max(rs):.3f}')
        if not cls.startswith('same'):
            for r, key in sorted(out[cls]):
                print(f'  {r:.3f} {key[0]} {key[1]} M={key[2]} k={key[3]} ({key[6]})')


def main():
    if sys.argv[1] == '--classes':
        return classes(*sys.argv[2:5], two64='--one64' not in sys.argv[5:], mid='--mid' in sys.argv[5:])
    import numpy as np  # (the fit alone needs it)
    d = sys.argv[1]
    times = collections.defaultdict(dict)
    for arm, mn in (('1-c256', 256), ('2-c128', 128), ('3-c64', 64)):
        path = os.path.join(d, f'bench-{arm}.json')
        rep = load(path if os.path.exists(path) else path + '.gz')
        for r in rep['rows']:
            if r['kernel'] == 'tcw' and 'median' in r.get('us', {}):
                times[(r['model'], r['shape'], r['M'], r['bits'], r['N'], r['K'])][mn] = r['us']['median']
    g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
    for k in sorted({key[3] for key in times}):
        rows = []
        for key, t in sorted(times.items()):
            if key[3] != k:
                continue
            top = 128 if key[2] <= 128 else 256
            rows.append({mn: (plan(key[2], key[4], key[5], k, mn, two64=False), t[mn])
                         for mn in (64, 128, 256) if mn <= top and mn in t})
        X, y = [], []
        for c in rows:
            for mn, (p, t) in c.items():
                f = np.zeros(5)
                f[{64: 0, 128: 1, 256: 2}[mn]] = p['mk']
                f[3], f[4] = p['pb'] / 1e6, 1.0
                X.append(f)
                y.append(t)
        X, y = np.array(X), np.array(y)
        coef = np.linalg.lstsq(X / y[:, None], np.ones_like(y), rcond=None)[0]
        print(f'k = {k}: c(64, 128, 256) = {coef[0]:.3f} {coef[1]:.3f} {coef[2]:.3f} us per step, '
              f'b = {coef[3]:.3f} us per MB, constant {coef[4]:.2f} us ({len(y)} plans)')
        cost = lambda p, mn: coef[{64: 0, 128: 1, 256: 2}[mn]] * p['mk'] + coef[3] * p['pb'] / 1e6
        for margin in (0.0, 0.03, 0.05, 0.08, 0.10, 0.15):
            gain, worst, moved = [], 1e9, 0
            for c in rows:
                dm = max(c)
                ch = dm
                for mn in sorted(c):
                    if mn < dm and cost(c[mn][0], mn) <= (1 - margin) * cost(c[dm][0], dm) and \
                            cost(c[mn][0], mn) < cost(c[ch][0], ch):
                        ch = mn
                gain.append(c[dm][1] / c[ch][1])
                worst = min(worst, c[dm][1] / c[ch][1])
                moved += ch != dm
            print(f'  margin {margin:.2f}: geomean {g(gain):.4f} over {len(rows)} rows, {moved} moved, worst {worst:.3f}')


if __name__ == '__main__':
    main()
