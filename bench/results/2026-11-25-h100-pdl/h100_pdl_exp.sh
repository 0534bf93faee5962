set -u
R=$PWD; W=$OUT; V=".deps/gpu/kbit-verify --shapes $R/data/shapes.json"
s() { echo "$*" | tee -a $W/summary.txt; }
(cd .deps/gpu && KBIT_EXP_PDL=1 timeout 60 ./kbit_tests_kernels > $W/kernels-pdl.txt 2>&1); s "kernels pdl rc=$?"; grep -E "assertions" $W/kernels-pdl.txt | tee -a $W/summary.txt
KBIT_EXP_PDL=1 timeout 60 $V --quick --kernels gemv,tcv,automatic --filter "qwen3|glm" > $W/verify-pdl.txt 2>&1; s "verify pdl rc=$?"; tail -1 $W/verify-pdl.txt | tee -a $W/summary.txt
B="--models qwen3-coder-next glm-4.7-flash --M 1 2 4 8 16 --bits 2 4 --dtypes f16 --kernels gemv tcv automatic"
for i in 1 2 3 4; do
  if [ $((i % 2)) = 1 ]; then e=""; n=kbit-bench; else e="KBIT_EXP_PDL=1"; n=exp; fi
  env $e timeout -s INT 50 .deps/gpu/kbit-bench --shapes $R/data/shapes.json --git-commit exp-pdl-$n $B --csv $W/bench-$i-$n.csv > $W/bench-$i-$n.txt 2>&1
  s "bench $i $n rc=$?"
done
gzip $W/*.csv
