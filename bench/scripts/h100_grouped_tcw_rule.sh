#!/usr/bin/env bash
# grouped_tcw's k-dependent tile rule as landed: GPU doctests (with the 60 / 124 / 207 mean-row
# cases), memcheck over the MoE doctests, kbit-verify --quick on grouped_tcw and automatic (MoE).
set -u
source bench/scripts/lib/device_run.sh
device_run_init /tmp/gtcwrule 150
gtcw_checks 60 40 60 memcheck
