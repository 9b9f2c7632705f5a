#!/usr/bin/env bash
# CPU time of one crate of gen.py's workspace built from two checkouts, alternating: the
# before/after figures of BENCHMARKS.md "Compile time" (issue 17). Each DIR holds `ws/` (the
# workspace from `gen.py DIR/ws CHECKOUT`, with the checkout's Cargo.lock copied in) and gets
# its own `target/`.
#
#   CMD="build --release" CRATE=with_graphs REPS=2 compare.sh DIR_A DIR_B
#
# CMD: "build --release" (default), "build" or "check"; CARGO_INCREMENTAL=0, so that
# `touch src/lib.rs` recompiles the crate. Prints user + sys seconds of cargo and rustc
# (/usr/bin/time) and the load average after each build.
set -u
export CARGO_INCREMENTAL=0
CMD=${CMD:-build --release}; C=${CRATE:-with_graphs}
out=$(mktemp)
for t in "$@"; do (cd "$t/ws" && CARGO_TARGET_DIR="$t/target" nice -n 10 cargo $CMD -q -p "$C" 2>/dev/null); done
for rep in $(seq "${REPS:-2}"); do for t in "$@"; do
  cd "$t/ws"; touch "$C/src/lib.rs"
  CARGO_TARGET_DIR="$t/target" /usr/bin/time -f "%U %S %e" -o "$out" nice -n 10 cargo $CMD -q -p "$C" 2>/dev/null
  read -r u s e < "$out"
  echo "$t $C $CMD cpu $(echo "$u + $s" | bc) wall $e load $(cut -d' ' -f1 /proc/loadavg)"
done; done
rm -f "$out"
