#!/usr/bin/env python3
"""Tables of bench/results/2026-11-28-h200-s45land from its kbit-bench text reports (every kbit row must read PASS).

  s45_tables.py DIR nt    grouped_tcv and automatic_pdl, items by the mean rows (arm mean) / by the hint (arm hint),
                          best of the runs, with x the best fp16 alternative of the same runs
  s45_tables.py DIR cross grouped_tcv against grouped_tcw and automatic's choice, best of the runs (-s45k2: k = 2 at
                          2-25 mean rows per active expert)
  s45_tables.py DIR k5lo  k = 5 at 1-20 mean rows: grouped_tcv, grouped_tcw and automatic at the rule's tile (arm rule)
                          and at KBIT_GTCW_MN=32 (arm mn32), one run each
"""
import sys

from gtcwmn64_tables import EXPERTS, geomean, rows as rows_of


def rows(d, arms):
    """The runs of the arms in DIR (gtcwmn64_tables.rows)."""
    return rows_of(*(f"{d}/bench-[0-9]-{a}.txt*" for a in arms))


def main():
    d, what = sys.argv[1], sys.argv[2]
    if what == "nt":
        r, ref = rows(d, ("mean", "hint"))
        tcv, auto = [], []
        print(f"{'row':38} {'M':>3} k {'tcv hint':>8} {'mean':>8} ratio  {'auto hint':>9} {'mean':>8} ratio  "
              f"x fp16: hint  mean  (automatic_pdl's kernel)")
        for key in sorted(r, key=lambda k: (k[0], k[2], k[1])):
            by = {(a, k): min(v) for (a, k), v in r[key].items()}
            th, tm = by[("hint", "grouped_tcv")], by[("mean", "grouped_tcv")]
            ah = min((t, k) for (a, k), t in by.items() if a == "hint" and k.startswith("automatic"))
            am = min((t, k) for (a, k), t in by.items() if a == "mean" and k.startswith("automatic"))
            best = min(ref[key[:2]])
            tcv.append(th / tm)
            auto.append(ah[0] / am[0])
            print(f"{key[0]:38} {key[1]:3d} {key[2]} {th:8.2f} {tm:8.2f} {th / tm:.3f}  {ah[0]:9.2f} {am[0]:8.2f} "
                  f"{ah[0] / am[0]:.3f}  {best / ah[0]:.2f}x {best / am[0]:.2f}x  {am[1][15:]}")
        print(f"best of the runs per arm; hint/mean geomean grouped_tcv {geomean(tcv):.3f}x "
              f"({min(tcv):.3f}-{max(tcv):.3f}), automatic_pdl {geomean(auto):.3f}x ({min(auto):.3f}-{max(auto):.3f}), "
              f"{len(tcv)} rows")
    elif what == "cross":
        r, _ = rows(d, ("cross",))
        print(f"{'row':38} {'M':>4} k mean {'grouped_tcv':>11} {'grouped_tcw':>11} tcv/tcw  automatic")
        for key in sorted(r, key=lambda k: (k[0], k[2], k[1])):
            e, top = EXPERTS[key[0].split(".mlp")[0]]
            routed = key[1] * top
            mean = -(-routed // min(e, routed))
            by = {k: min(v) for (_, k), v in r[key].items()}
            auto = min((t, k) for k, t in by.items() if k.startswith("automatic"))
            print(f"{key[0]:38} {key[1]:4d} {key[2]} {mean:4d} {by['grouped_tcv']:11.2f} {by['grouped_tcw']:11.2f} "
                  f"{by['grouped_tcv'] / by['grouped_tcw']:.3f}    {auto[1][11:]} {auto[0]:.2f}")
    elif what == "k5lo":
        r, _ = rows(d, ("rule", "mn32"))
        print(f"{'row':38} {'M':>4} {'kernel':26} {'rule':>8} {'mn32':>8} mn32/rule")
        for key in sorted(r):
            for kern in sorted({k for (_, k) in r[key]}):
                t = {a: min(v) for (a, k), v in r[key].items() if k == kern}
                print(f"{key[0]:38} {key[1]:4d} {kern:26} {t['rule']:8.2f} {t['mn32']:8.2f} {t['mn32'] / t['rule']:.3f}")


if __name__ == "__main__":
    main()
