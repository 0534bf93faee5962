#!/usr/bin/env python3
"""bench/results/2026-11-27-h100-pdl448/landed-estimate.txt: automatic_pdl old / landed per (M, k), where "landed"
is the new arm's time on the rows the landed rule (choose_kernel, k <= 4: N >= 8192 of 16-24 M weights to M = 384, from
24 M to 320; K >= 8192 from 8 M at 321..448) gives tcw and the old arm's elsewhere. Usage: pdl448_landed.py DIR"""
import collections, json, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import reports  # noqa: E402
D=sys.argv[1]
shp={}
for m in json.load(open(D+'/rules.json'))['models']:
  for g in m['gemms']: shp[(m['name'],g['name'])]=(g['N'],g['K'])
t=collections.defaultdict(list)
for arm,rep in reports(D):
  for r in rep['rows']:
    if r['moe'] or 'median' not in r.get('us',{}) or r['kind']=='baseline': continue
    assert r['verify']=='PASS'
    t[(arm,r['model'],r['shape'],r['M'],r['bits'])].append(r['us']['median'])
def landed_tcw(N,K,M,b):
  W=N*K
  if b>4: return False
  if M<=(384 if W<24e6 else 320) and N>=8192 and W>=16e6: return True
  if 320<M<=448 and K>=8192 and W>=8e6: return True
  return False
gm=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
keys=sorted({k[1:] for k in t})
byM=collections.defaultdict(list); rows=[]
for k in keys:
  o=min(t[('old',)+k]); n=min(t[('new',)+k]); N,K=shp[k[:2]]
  L=n if landed_tcw(N,K,k[2],k[3]) else o
  byM[(k[2],k[3])].append(o/L)
  if landed_tcw(N,K,k[2],k[3]): rows.append((o/L,k,o,n))
print('landed estimate, geomean old / landed per (M, k) over the 7 shapes (rows moved to tcw: new time, else old)')
for M in sorted({k[0] for k in byM}):
  print('  M=%d '%M+' '.join('k=%d %.3f'%(b,gm(byM[(M,b)])) for b in (2,3,4,5)))
print('moved rows: %d, old/new min %.3f max %.3f geomean %.3f'%(len(rows),min(r[0] for r in rows),max(r[0] for r in rows),gm([r[0] for r in rows])))
for r in sorted(rows)[:5]: print('  lowest: %.3f %s %.2f -> %.2f us'%(r[0],'/'.join(map(str,r[1])),r[2],r[3]))
for r in sorted(rows)[-4:]: print('  highest: %.3f %s %.2f -> %.2f us'%(r[0],'/'.join(map(str,r[1])),r[2],r[3]))
