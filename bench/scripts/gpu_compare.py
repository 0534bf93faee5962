#!/usr/bin/env python3
"""The same kbit-bench rows on two GPUs (two records, e.g. an H100's and an H200's): dense automatic_pdl rows at the
M and bit width given, each GPU's median us, % of its measured read bandwidth, the kernel dispatched, and cuBLAS fp16.
The kbit time unchanged while cuBLAS gains the memory's ratio says the kernel is not bound by DRAM there.
Usage: gpu_compare.py A.json[.gz] B.json[.gz] [--M 1] [--bits 4]"""
import argparse, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdl_compare import load  # noqa: E402


def index(d):
    o = {}
    for r in d['rows']:
        if r['moe'] or 'median' not in r.get('us', {}):
            continue
        if r['kind'] == 'kbit' and r['kernel'] == 'automatic_pdl':
            assert r['verify'] == 'PASS', (r['model'], r['shape'], r['M'], r['bits'], r['verify'])
            o[(r['model'], r['shape'], r['M'], r['bits'])] = r
        elif r['kind'] == 'baseline' and r['kernel'] == 'cublas_f16':
            o[('cublas', r['model'], r['shape'], r['M'])] = r
    return o


def main():
    p = argparse.ArgumentParser()
    p.add_argument('a'), p.add_argument('b')
    p.add_argument('--M', type=int, default=1), p.add_argument('--bits', type=int, default=4)
    o = p.parse_args()
    da, db = load(o.a), load(o.b)
    A, B = index(da), index(db)
    na, nb = da['run']['device'], db['run']['device']
    print('A: %s, read %.0f GB/s; B: %s, read %.0f GB/s; M = %d, k = %d; us (%% of read bandwidth) kernel | cuBLAS fp16'
          % (na, da['run']['read_gbps'], nb, db['run']['read_gbps'], o.M, o.bits))
    for k in sorted(A):
        if k[0] == 'cublas' or k[2] != o.M or k[3] != o.bits or k not in B:
            continue
        a, b = A[k], B[k]
        ca, cb = A.get(('cublas',) + k[:3]), B.get(('cublas',) + k[:3])
        print('%-16s %-28s %6dx%-6d A %8.2f (%4.1f%%) %-6s | %8.2f   B %8.2f (%4.1f%%) %-6s | %8.2f   B/A kbit %.2f cuBLAS %.2f' % (
            k[0][:16], k[1], a['N'], a['K'], a['us']['median'], a['pct_bw'], a['dispatch'], ca['us']['median'] if ca else 0,
            b['us']['median'], b['pct_bw'], b['dispatch'], cb['us']['median'] if cb else 0,
            b['us']['median'] / a['us']['median'], (cb['us']['median'] / ca['us']['median']) if ca and cb else 0))


if __name__ == '__main__':
    main()
