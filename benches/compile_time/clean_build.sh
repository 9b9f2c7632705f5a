#!/usr/bin/env bash
# Clean build of one package of this workspace (issue 17, item 3): a fresh CARGO_TARGET_DIR,
# `cargo build -p PKG [--release] --timings`, CPU time (user + sys of cargo and its children)
# and wall time, the load before and after; keeps cargo's per-unit timing page.
#
#   benches/compile_time/clean_build.sh CHECKOUT LABEL PKG [--release]
#   e.g. for p in tensorgraph-macros tensorgraph-core tensorgraph; do for m in "" --release; do
#          clean_build.sh /work/wt-x branch $p $m; done; done
#
# Run it under `flock /work/bench.lock tools/bench-priority` on a shared machine, and
# alternate two checkouts (BENCHMARKS.md "Compile time", sixth session).
set -u
wt=$1; label=$2; pkg=$3; shift 3
base=${OUT:-/tmp/clean-build}
mkdir -p "$base"
td=$base/t-$label-$pkg-${1:-debug}; rm -rf "$td"
cd "$wt" || exit 1
out=$(mktemp)
l0=$(cut -d' ' -f1 /proc/loadavg)
CARGO_TARGET_DIR=$td /usr/bin/time -f "%U %S %e" -o "$out" cargo build -q -p "$pkg" "$@" --timings 2>/dev/null
read -r u s e < "$out"
echo "$label $pkg ${1:-debug} cpu $(echo "$u + $s" | bc) wall $e load $l0 -> $(cut -d' ' -f1 /proc/loadavg)"
cp "$td"/cargo-timings/cargo-timing.html "$base/timing-$label-$pkg-${1:-debug}.html" 2>/dev/null
rm -rf "$td" "$out"
