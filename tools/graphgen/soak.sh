#!/usr/bin/env bash
# A long random-graph soak (issue 18): COUNT graphs from SEED, compiled and run CHUNK at a
# time by tensorgraph-tests/tests/graphgen.rs (each chunk is one build of the test crate).
#   tools/graphgen/soak.sh SEED COUNT [CHUNK]      e.g. tools/graphgen/soak.sh 1 10000 500
# Logs go to target/soak/logs/; the last line says how many chunks failed. A failing
# graph is reproduced alone with
#   GRAPHGEN_SEED=SEED GRAPHGEN_START=INDEX GRAPHGEN_COUNT=1 cargo test -p tensorgraph-tests --test graphgen
# and printed with `cargo run -p graphgen -- SEED INDEX`. With SOAK_KIND=grad (what
# tools/graphgen/soak_grad.sh sets) it soaks the differentiable graphs of graphgen::grad
# through tensorgraph-tests/tests/graphgen_grad.rs instead (GRADGEN_* variables). With
# SOAK_KIND=backends it runs the graphs through tensorgraph-tests/tests/debug_backend.rs
# instead: each chunk built twice at opt-level 0, the debug backend's block programs
# against the fused kernels, every output bit for bit and every error message
# (DEBUG_BACKEND_* variables; issue 33 item 1), e.g.
#   SOAK_KIND=backends tools/graphgen/soak.sh 1 3000 300
set -uo pipefail
cd "$(dirname "$0")/../.."
# Compiling the graphs is the cost: the soak builds without debug info and unoptimised by
# default (the same semantics; CI's batch runs at the test profile's opt-level 1).
export CARGO_PROFILE_TEST_DEBUG=${CARGO_PROFILE_TEST_DEBUG:-0}
export CARGO_PROFILE_TEST_OPT_LEVEL=${CARGO_PROFILE_TEST_OPT_LEVEL:-0}
seed=${1:?seed}
count=${2:?count}
kind=${SOAK_KIND:-plain}
extra=()
if [ "$kind" = grad ]; then
  test=graphgen_grad; vars=GRADGEN; prefix=grad-; summary='[0-9]* directional derivatives.*'; chunk=${3:-100}
elif [ "$kind" = backends ]; then
  test=debug_backend; vars=DEBUG_BACKEND; prefix=backends-; summary='graphs [0-9]* covered.*'; chunk=${3:-300}
  extra=(--ignored)
else
  test=graphgen; vars=GRAPHGEN; prefix=; summary='[0-9]* elements compared.*'; chunk=${3:-500}
fi
logs=target/soak/logs
mkdir -p "$logs"
failed=0
start=0
while [ "$start" -lt "$count" ]; do
  n=$(( count - start < chunk ? count - start : chunk ))
  log="$logs/${prefix}seed-$seed-from-$start.log"
  if env "${vars}_SEED=$seed" "${vars}_START=$start" "${vars}_COUNT=$n" \
      cargo test -p tensorgraph-tests --test "$test" --target-dir target/soak -- "${extra[@]}" --nocapture >"$log" 2>&1; then
    echo "graphs $start..$((start + n)): ok ($(grep -o "$summary" "$log"))"
  else
    failed=$((failed + 1))
    echo "graphs $start..$((start + n)): FAILED, see $log"
  fi
  start=$((start + n))
done
echo "${prefix}soak seed $seed, $count graphs: $failed failing chunk(s)"
