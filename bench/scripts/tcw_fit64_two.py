#!/usr/bin/env python3
"""tcw's 64-token step at two CTAs per SM (bench/results/2026-11-27-h100-minb64): tcw_fit64_two.py DIR [C64_TWO]
DIR holds the same-call arms main (k = 4's 64-token kernel at one CTA per SM) and mb (two), bench-<i>-<arm>.json.
1. Least squares (relative error) of time = c64@1 x makespan + c64@2 x makespan + b x MB of partials + a
   constant over every k = 4 tcw row whose plan (tcw_tile_fit.py's Python copy, the token tile chosen by the
   constants of that build) took 64 tokens, in either arm; plans off the fit by > 15% printed.
2. The token tile choice with C64_TWO (default 1.48, what tcw_plan_cost uses) for two CTAs per SM: per row the
   tiles of main, of mb and of the new constants, and the measured time of the new choice where an arm ran it
   (geomean per M of main / new)."""
import sys, glob, os, json, math, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcw_tile_fit as T
import numpy as np
d = sys.argv[1]
# The plans and the tile choice are tcw_tile_fit.py's Python copy: two64 = the 64-token kernel at two CTAs per
# SM (the mb arm); c64_two = the two-CTA step cost (None: priced as one CTA's, as both arms' builds did).
def plan(M, N, K, bits, mn, res64):
    return T.plan(M, N, K, bits, mn, two64=res64 == 2)
def choose(M, N, K, bits, res64, c64_two):
    return T.choose(M, N, K, bits, two64=res64 == 2, c64_two=c64_two, mid=False)
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(os.path.join(d, 'bench-*-*.json*'))):
    arm = os.path.basename(f).split('-', 2)[2].split('.')[0]
    if arm not in ('main', 'mb'): continue
    for r in T.load(f)['rows']:
        if r['kernel'] != 'tcw' or 'median' not in r.get('us', {}) or r['bits'] != 4: continue
        t[(r['model'], r['shape'], r['M'], r['N'], r['K'])][arm].append(r['us']['median'])
X, y, info = [], [], []
for key, v in sorted(t.items()):
    M, N, K = key[2], key[3], key[4]
    for arm, res64 in (('main', 1), ('mb', 2)):
        mn = choose(M, N, K, 4, res64, None)
        p = plan(M, N, K, 4, mn, res64)
        if mn != 64: continue
        tm = min(v[arm])
        f = np.zeros(4); f[0 if p['cps'] == 1 else 1] = p['mk']; f[2] = p['pb'] / 1e6; f[3] = 1
        X.append(f); y.append(tm); info.append((arm, key, p, tm))
X, y = np.array(X), np.array(y)
coef = np.linalg.lstsq(X / y[:, None], np.ones_like(y), rcond=None)[0]
print('c64@1 %.3f c64@2 %.3f b %.3f const %.2f  (%d plans)' % tuple(list(coef) + [len(y)]))
pred = X @ coef
for (arm, key, p, tm), pr in zip(info, pred):
    if abs(pr / tm - 1) > 0.15: print('  off', arm, key[0], key[1], 'M', key[2], p['kind'], 'cps', p['cps'], 'mk', p['mk'], 'pb', p['pb'], 't %.1f pred %.1f' % (tm, pr))
print('--- choice with c64@2 =', sys.argv[2] if len(sys.argv) > 2 else T.C64_TWO)
C_NEW = float(sys.argv[2]) if len(sys.argv) > 2 else T.C64_TWO
g = lambda a: math.exp(sum(map(math.log, a)) / len(a))
byM = collections.defaultdict(list)
for key, v in sorted(t.items()):
    M, N, K = key[2], key[3], key[4]
    c_main = choose(M, N, K, 4, 1, None); c_mb = choose(M, N, K, 4, 2, None); c_new = choose(M, N, K, 4, 2, C_NEW)
    tmain, tmb = min(v['main']), min(v['mb'])
    if c_new == c_mb: tn = tmb
    elif c_new == c_main and c_main != 64: tn = tmain
    else: tn = None
    if tn is None: print('  unmeasured', key[:3], c_main, c_mb, c_new); continue
    byM[M].append(tmain / tn)
    if c_new != c_main or abs(tmain / tn - 1) > 0.05:
        print('  %-16s %-26s M=%4d tiles main %3d mb %3d new %3d  main %.1f mb %.1f -> new/main %.3f' % (key[0], key[1], M, c_main, c_mb, c_new, tmain, tmb, tmain / tn))
for M in sorted(byM): print('M', M, 'geomean %.3f min %.3f max %.3f n %d' % (g(byM[M]), min(byM[M]), max(byM[M]), len(byM[M])))
