#!/usr/bin/env bash
# Build-cost ratios of two checkouts in one sitting (issue 33 item 3; BENCHMARKS.md "Debug and
# check build cost after programs as data"). BASE and NEW are directories holding `ws/` (from
# `gen.py DIR/ws CHECKOUT`, with CHECKOUT's Cargo.lock copied in) and getting their own
# `target/`; build both workspaces' four crates once (build and check) before timing.
#
#   benches/compile_time/ab_ratios.sh BASE NEW [ROUNDS]
#
# Per config (check and debug build, set 1 and set 2): one warm-up, then ROUNDS rounds of
# BASE graphs, BASE twin, NEW graphs, NEW twin (`touch CRATE/src/lib.rs && cargo build|check
# -q --offline -p CRATE`, CARGO_INCREMENTAL=0), CPU = user + sys from /usr/bin/time. Prints
# each round's graphs/twin ratio of both; report the median per config and the load.
set -u
export CARGO_INCREMENTAL=0
BASE=$1; NEW=$2; N=${3:-5}
out=$(mktemp)
t() { cd "$1/ws"; touch "$3/src/lib.rs"; CARGO_TARGET_DIR="$1/target" /usr/bin/time -f "%U %S" -o "$out" cargo $2 -q --offline -p "$3" 2>/dev/null || echo "FAILED: $1 $2 $3" >&2; read -r u s < "$out"; echo "$u + $s" | bc; }
for cmd in check build; do for sfx in "" _v2; do
  for d in "$BASE" "$NEW"; do t "$d" $cmd with_graphs$sfx >/dev/null; t "$d" $cmd hand_written$sfx >/dev/null; done
  for i in $(seq "$N"); do
    a=$(t "$BASE" $cmd with_graphs$sfx); b=$(t "$BASE" $cmd hand_written$sfx)
    c=$(t "$NEW" $cmd with_graphs$sfx); d=$(t "$NEW" $cmd hand_written$sfx)
    echo "$cmd set${sfx:-_1} base $a/$b=$(echo "scale=3; $a / $b" | bc) new $c/$d=$(echo "scale=3; $c / $d" | bc) load $(cut -d' ' -f1 /proc/loadavg) $(date +%H:%M:%S)"
  done
done; done
rm -f "$out"
