#!/usr/bin/env python3
"""The step costs implied by bench/results/2026-11-28-h100-tilewidths (arms main, w160, w224) for the 160- and
224-token tiles, against the linear price tcw_plan_cost gives them:  tilewidths_fit.py DIR
Per moved row (by tcw_tile_fit.choose with 192 alone, then with 160 or 224 too): the old arm's time over its
modelled cost sets the row's us per model unit; the new arm's time then implies the new tile's step cost c(new).
Medians per (old tile, new tile, k). Then which of the 224-token rows the 8% rule would still move at the implied
c(224), with their measured old / new."""
import sys, statistics
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_compare, tcw_tile_fit as T
# implied step cost c(new) per moved row: time_new/time_old = (c_new*mk_new + b*pb_new)/(c_old*mk_old + b*pb_old)
def implied(d, arm, mids, pairs):
    times,_=pdl_compare.kbit_times(d); nk=pdl_compare.catalogue_dims(d)
    out={}
    for (a,k,mo,sh,M,b),v in times.items():
        if a!=pairs[0] or k!='tcw_pdl': continue
        nv=times.get((arm,k,mo,sh,M,b))
        if not nv: continue
        N,K=nk[(mo,sh)]
        x=T.choose(M,N,K,b,mid=mids[0]); y=T.choose(M,N,K,b,mid=mids[1])
        if x==y: continue
        c,bb=T.C[2 if b<=3 else 4]
        po=T.plan(M,N,K,b,x); pn=T.plan(M,N,K,b,y)
        to,tn=min(v),min(nv)
        old_cost=c[x]*po['mk']+bb*po['pb']/1e6
        # scale: measured us per model unit from the old arm
        s=to/old_cost
        cn=(tn/s - bb*pn['pb']/1e6)/pn['mk']
        out.setdefault((x,y,2 if b<=3 else 4),[]).append(cn)
    return out
D = sys.argv[1]
r=implied(D,'w160',((192,),(160,192)),('main',))
r.update({('w224',)+k:v for k,v in implied(D,'w224',((192,),(192,224)),('main',)).items()})
for k,v in sorted(r.items(), key=str):
    print(k, len(v), 'median implied c(new) %.3f  (linear price: %s)'%(statistics.median(v), {kk: round(vv,3) for kk,vv in T.C[k[-1]][0].items() if kk in (160,192,224)}))
print('--- refit 224: rows that keep 224 with c(224) implied')
import math
times,_=pdl_compare.kbit_times(D); nk=pdl_compare.catalogue_dims(D)
keep=[];drop=[]
saved={b: T.C[b][0][224] for b in (2,4)}
for (a,k,mo,sh,M,b),v in times.items():
    if a!='main' or k!='tcw_pdl': continue
    nv=times.get(('w224',k,mo,sh,M,b)); N,K=nk[(mo,sh)]
    x=T.choose(M,N,K,b,mid=(192,)); y=T.choose(M,N,K,b,mid=(192,224))
    if x==y: continue
    T.C[2][0][224]=1.606; T.C[4][0][224]=1.631
    z=T.choose(M,N,K,b,mid=(192,224))
    T.C[2][0][224]=saved[2]; T.C[4][0][224]=saved[4]
    (keep if z==224 else drop).append((min(v)/min(nv),mo,sh,M,b))
g=lambda xs: math.exp(sum(math.log(x[0]) for x in xs)/len(xs)) if xs else float('nan')
print('keep',len(keep),round(g(keep),3),sorted(round(x[0],3) for x in keep))
print('drop',len(drop),round(g(drop),3),sorted(round(x[0],3) for x in drop))
