#!/bin/sh
# The debug backend's run-time figures (BENCHMARKS.md "Debug backend"): this crate in four
# builds, each binary printing W1-W4, W6 and their hand-written twins (ms of CPU time per
# call), pinned to core 1 (`taskset -c 1`), the builds alternated round by round.
#   debug        the dev profile (tensorgraph-core at opt-level 0): block programs
#   debug-o3     the dev profile with tensorgraph-core at opt-level 3 (README's line)
#   debug-off    the dev profile with TENSORGRAPH_DEBUG_BACKEND=off: fused kernels
#   release      the fused kernels, optimised
# Usage: benches/debug_run/run.sh TARGET_DIR [ROUNDS [WORKLOAD…]] (workloads: w1 hand_w1 …;
# all by default)
set -e
cd "$(dirname "$0")"
T=${1:?target dir}
ROUNDS=${2:-2}
shift; [ $# -gt 0 ] && shift
cargo build -q --offline --target-dir "$T/debug"
cargo build -q --offline --target-dir "$T/debug-o3" --config 'profile.dev.package.tensorgraph-core.opt-level=3'
TENSORGRAPH_DEBUG_BACKEND=off cargo build -q --offline --target-dir "$T/debug-off"
cargo build -q --offline --release --target-dir "$T/release"
for r in $(seq "$ROUNDS"); do
    for b in debug/debug debug-o3/debug debug-off/debug release/release; do
        echo "$b: $(taskset -c 1 "$T/$b/debug_run" "$@")  (load $(cut -d' ' -f1 /proc/loadavg))"
    done
done
