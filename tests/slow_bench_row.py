#!/usr/bin/env python3
"""Copies a kbit-bench JSON report with the first timed kbit row twice as slow (every time
statistic doubled), for the bench.report test: `kbit-bench compare` must flag it (exit 1)."""
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
with open(src) as f:
    report = json.load(f)
row = next(r for r in report["rows"] if r["kind"] != "baseline" and r["us"]["n"] > 0)
row["us"] = {k: (v if k == "n" else v * 2) for k, v in row["us"].items()}
with open(dst, "w") as f:
    json.dump(report, f)
print(f"slowed {row['model']}.{row['shape']} M={row['M']} k={row['bits']} {row['dtype']} {row['kernel']}")
