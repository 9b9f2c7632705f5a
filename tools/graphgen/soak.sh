#!/usr/bin/env bash
# A long random-graph soak (issue 18): COUNT graphs from SEED, compiled and run CHUNK at a
# time by tensorgraph-tests/tests/graphgen.rs (each chunk is one build of the test crate).
#   tools/graphgen/soak.sh SEED COUNT [CHUNK]      e.g. tools/graphgen/soak.sh 1 10000 500
# Logs go to target/soak/logs/; the last line says how many chunks failed. A failing
# graph is reproduced alone with
#   GRAPHGEN_SEED=SEED GRAPHGEN_START=INDEX GRAPHGEN_COUNT=1 cargo test -p tensorgraph-tests --test graphgen
# and printed with `cargo run -p graphgen -- SEED INDEX`.
set -uo pipefail
cd "$(dirname "$0")/../.."
# Compiling the graphs is the cost: the soak builds without debug info and unoptimised by
# default (the same semantics; CI's batch runs at the test profile's opt-level 1).
export CARGO_PROFILE_TEST_DEBUG=${CARGO_PROFILE_TEST_DEBUG:-0}
export CARGO_PROFILE_TEST_OPT_LEVEL=${CARGO_PROFILE_TEST_OPT_LEVEL:-0}
seed=${1:?seed}
count=${2:?count}
chunk=${3:-500}
logs=target/soak/logs
mkdir -p "$logs"
failed=0
start=0
while [ "$start" -lt "$count" ]; do
  n=$(( count - start < chunk ? count - start : chunk ))
  log="$logs/seed-$seed-from-$start.log"
  if GRAPHGEN_SEED=$seed GRAPHGEN_START=$start GRAPHGEN_COUNT=$n \
      cargo test -p tensorgraph-tests --test graphgen --target-dir target/soak -- --nocapture >"$log" 2>&1; then
    echo "graphs $start..$((start + n)): ok ($(grep -o '[0-9]* elements compared.*' "$log"))"
  else
    failed=$((failed + 1))
    echo "graphs $start..$((start + n)): FAILED, see $log"
  fi
  start=$((start + n))
done
echo "soak seed $seed, $count graphs: $failed failing chunk(s)"
