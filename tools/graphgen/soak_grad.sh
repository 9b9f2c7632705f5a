#!/usr/bin/env bash
# A soak of the differentiable random graphs (issue 32 item 6): COUNT graphs of
# graphgen::grad from SEED, compiled and checked CHUNK at a time by
# tensorgraph-tests/tests/graphgen_grad.rs (each chunk is one build of that test crate).
#   tools/graphgen/soak_grad.sh SEED COUNT [CHUNK]      e.g. tools/graphgen/soak_grad.sh 1 400 100
# Logs go to target/soak/logs/; the last line says how many chunks failed. A failing graph
# is reproduced alone with
#   GRADGEN_SEED=SEED GRADGEN_START=INDEX GRADGEN_COUNT=1 cargo test -p tensorgraph-tests --test graphgen_grad
# and printed with `cargo run -p graphgen --example grad -- SEED INDEX`.
set -uo pipefail
cd "$(dirname "$0")/../.."
export CARGO_PROFILE_TEST_DEBUG=${CARGO_PROFILE_TEST_DEBUG:-0}
export CARGO_PROFILE_TEST_OPT_LEVEL=${CARGO_PROFILE_TEST_OPT_LEVEL:-0}
seed=${1:?seed}
count=${2:?count}
chunk=${3:-100}
logs=target/soak/logs
mkdir -p "$logs"
failed=0
start=0
while [ "$start" -lt "$count" ]; do
  n=$(( count - start < chunk ? count - start : chunk ))
  log="$logs/grad-seed-$seed-from-$start.log"
  if GRADGEN_SEED=$seed GRADGEN_START=$start GRADGEN_COUNT=$n \
      cargo test -p tensorgraph-tests --test graphgen_grad --target-dir target/soak -- --nocapture >"$log" 2>&1; then
    echo "graphs $start..$((start + n)): ok ($(grep -o '[0-9]* directional derivatives.*' "$log"))"
  else
    failed=$((failed + 1))
    echo "graphs $start..$((start + n)): FAILED, see $log"
  fi
  start=$((start + n))
done
echo "grad soak seed $seed, $count graphs: $failed failing chunk(s)"
