#!/usr/bin/env bash
# Instructions rustc executes to `cargo check` one crate of gen.py's workspace: a figure that,
# unlike CPU time on a shared machine, repeats to 0.01% (NOTES.md, "Measuring check cost by
# instructions"). The proc macro runs inside rustc and is counted.
#
#   instructions.sh DIR CRATE      # DIR holds ws/ (gen.py DIR/ws CHECKOUT) and gets target/
#   CMD=build instructions.sh DIR CRATE              # a debug build's rustc instead
#   CMD="build --release" instructions.sh DIR CRATE  # a release build's
#
# Builds the dependencies as `cargo $CMD -p CRATE` does (another set of -p flags builds
# them under other hashes), takes the crate's rustc command from `cargo $CMD -v`, and runs
# it under cachegrind without cache simulation. Needs valgrind; about 30x a plain check.
# With CMD=build the count includes LLVM's codegen threads (valgrind runs them one at a
# time; the count still repeats to ~0.1%: BENCHMARKS.md "Compile time", sixth session).
# CRATE may also be a dependency's package name (`tensorgraph-core`): its own rustc.
set -euo pipefail
dir=$(cd "$1" && pwd); crate=$2
export CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$dir/target"
cd "$dir/ws"
CMD=${CMD:-check}
cargo $CMD -q -p "$crate"
src=$(cargo pkgid -p "$crate" | sed -n 's|^path+file://\([^#]*\)#.*|\1|p')/src/lib.rs
touch "$src"
cmd=$(cargo $CMD -v -p "$crate" 2>&1 | sed -n 's/^ *Running `\(.*\)`$/\1/p' | tail -1)
touch "$src"
eval "valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null $cmd" 2>&1 |
  sed -n 's/.*I *refs: *//p' | tr -d ,
