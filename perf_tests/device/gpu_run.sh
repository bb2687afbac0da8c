#!/usr/bin/env bash
# GPU steps for a lent GPU machine that runs commands over a copy of this
# working tree. The binaries come from a CUDA build (build-cuda/), or from
# the folder GUSTAV_GPU_BIN holding gustav and gustav_tests_cuda, each
# possibly xz-compressed to travel light; the real matrices the benchmark
# wants come from the folder named by --shared. Each step
# writes its full log under $OUT (default /tmp/gustav-gpu) and prints a
# short tail, so one call can run several steps within its time limit.
#
#   perf_tests/device/gpu_run.sh STEP [STEP...]
#     info            the GPU, the clocks, and whether the binaries load
#     tests           every CUDA unit test (gtest brief output)
#     shards N F L    gtest shards F to L of N side by side on the one GPU,
#                     each timed per test (the suite does not fit one call:
#                     later calls take the next shards); prints each shard's
#                     verdict, the failures and the twenty slowest tests
#     memcheck FILTER compute-sanitizer memcheck over the tests FILTER selects
#     racecheck FILTER compute-sanitizer racecheck (Kokkos' own top-level
#                     reductions and scans excluded) over FILTER's tests
#     bench ARGS      gustav bench --space cuda ARGS (JSON in $OUT/bench.json)
#     cpubench ARGS   gustav bench --space openmp ARGS on every host thread
#                     (the CUDA build has OpenMP too; JSON in $OUT/cpu_bench.json)
#     spmv ARGS       gustav spmv --space cuda ARGS (JSON in $OUT/spmv.json)
#     multiply ARGS   gustav multiply --space cuda ARGS
# Steps take their arguments up to the next step name or "--". Each step
# is stopped after GUSTAV_STEP_TIMEOUT seconds (default 300), so a hung
# kernel costs one step, not the whole call.
set -uo pipefail
out=${OUT:-/tmp/gustav-gpu}
build=${GUSTAV_GPU_BUILD:-build-cuda}
mkdir -p "$out"
tool=$build/src/tool/gustav
tests=$build/unit_tests/gustav_tests_cuda
if [ -n "${GUSTAV_GPU_BIN:-}" ]; then
  unpacked=/tmp/gustav-bin
  mkdir -p "$unpacked"
  for b in gustav gustav_tests_cuda; do
    if [ -f "$GUSTAV_GPU_BIN/$b.xz" ] && [ ! -x "$unpacked/$b" ]; then
      xz -dc "$GUSTAV_GPU_BIN/$b.xz" > "$unpacked/$b" && chmod +x "$unpacked/$b"
    elif [ -f "$GUSTAV_GPU_BIN/$b" ]; then
      cp "$GUSTAV_GPU_BIN/$b" "$unpacked/$b"
    fi
  done
  tool=$unpacked/gustav
  tests=$unpacked/gustav_tests_cuda
fi
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
steps="info tests shards memcheck racecheck bench cpubench spmv multiply"
limit=${GUSTAV_STEP_TIMEOUT:-300}

run_step() {
  local step=$1; shift
  echo "=== $step $* ($(date +%T))"
  case "$step" in
    info)
      nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv
      for b in "$tool" "$tests"; do
        [ -x "$b" ] || { echo "missing: $b"; continue; }
        ldd "$b" | grep "not found" && echo "$b: libraries missing"
      done
      "$tool" info
      ;;
    tests)
      timeout "$limit" "$tests" --gtest_brief=1 > "$out/tests.log" 2>&1
      echo "exit $?"
      grep -E "^\[ differential|PASSED|FAILED|SKIPPED" "$out/tests.log" | tail -n 30
      ;;
    shards)
      local total=${1:?shards N F L} first=${2:?shards N F L} last=${3:?shards N F L} k logs=()
      # This step's logs only: an earlier shards step in the same folder
      # (another N or range) leaves its own beside them.
      for k in $(seq "$first" "$last"); do
        logs+=("$out/shard_${total}_$k.log")
        ( GTEST_TOTAL_SHARDS=$total GTEST_SHARD_INDEX=$k timeout "$limit" "$tests" --gtest_print_time=1 \
            > "${logs[-1]}" 2>&1; echo "exit $?" >> "${logs[-1]}" ) &
      done
      wait
      for k in $(seq "$first" "$last"); do
        echo "shard $k of $total: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]|^exit' "$out/shard_${total}_$k.log" | tr '\n' ' ')"
      done
      grep -h "^\[  FAILED  \]" "${logs[@]}" | sort -u | head -n 30
      grep -h "cases on" "${logs[@]}" | sort | uniq -c | head -n 20
      grep -h -E "^\[       OK \] .* \([0-9]+ ms\)" "${logs[@]}" |
        sed -E 's/^\[       OK \] (.*) \(([0-9]+) ms\)/\2 \1/' | sort -rn | head -n 20
      ;;
    memcheck)
      timeout "$limit" compute-sanitizer --tool memcheck --print-limit 20 "$tests" --gtest_brief=1 --gtest_filter="${1:-*}" \
        > "$out/memcheck.log" 2>&1
      echo "exit $?"
      grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck.log" | tail -n 12
      ;;
    racecheck)
      timeout "$limit" compute-sanitizer --tool racecheck --racecheck-report analysis \
        --kernel-name-exclude kns=ParallelReduce,kns=ParallelScan "$tests" --gtest_brief=1 \
        --gtest_filter="${1:-*}" > "$out/racecheck.log" 2>&1
      echo "exit $?"
      grep -E "hazard|RACECHECK SUMMARY|PASSED|FAILED" "$out/racecheck.log" | tail -n 12
      ;;
    bench)
      timeout "$limit" "$tool" bench --space cuda --json "$out/bench.json" "$@" > "$out/bench.log" 2>&1
      echo "exit $?"
      cat "$out/bench.log" | tail -n 200
      ;;
    cpubench)
      OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} timeout "$limit" "$tool" bench --space openmp \
        --json "$out/cpu_bench.json" "$@" > "$out/cpu_bench.log" 2>&1
      echo "exit $?"
      tail -n 200 "$out/cpu_bench.log"
      ;;
    spmv)
      timeout "$limit" "$tool" spmv --space cuda --json "$out/spmv.json" "$@" > "$out/spmv.log" 2>&1
      echo "exit $?"
      tail -n 60 "$out/spmv.log"
      ;;
    multiply)
      timeout "$limit" "$tool" multiply --space cuda "$@" 2>&1 | tee -a "$out/multiply.log" | tail -n 60
      ;;
    *) echo "unknown step $step (steps: $steps)"; return 2 ;;
  esac
}

while [ $# -gt 0 ]; do
  step=$1; shift
  args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ] && ! [[ " $steps " == *" $1 "* ]]; do args+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  run_step "$step" "${args[@]+"${args[@]}"}"
done
