#!/usr/bin/env bash
# Instructions rustc executes to `cargo check` one crate of gen.py's workspace: a figure that,
# unlike CPU time on a shared machine, repeats to 0.01% (NOTES.md, "Measuring check cost by
# instructions"). The proc macro runs inside rustc and is counted.
#
#   instructions.sh DIR CRATE      # DIR holds ws/ (gen.py DIR/ws CHECKOUT) and gets target/
#
# Builds the dependencies as `cargo check -p CRATE` does (another set of -p flags builds
# them under other hashes), takes the crate's rustc command from `cargo check -v`, and runs
# it under cachegrind without cache simulation. Needs valgrind; about 30x a plain check.
set -euo pipefail
dir=$(cd "$1" && pwd); crate=$2
export CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$dir/target"
cd "$dir/ws"
cargo check -q -p "$crate"
touch "$crate/src/lib.rs"
cmd=$(cargo check -v -p "$crate" 2>&1 | sed -n 's/^ *Running `\(.*\)`$/\1/p' | tail -1)
touch "$crate/src/lib.rs"
eval "valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null $cmd" 2>&1 |
  sed -n 's/.*I *refs: *//p' | tr -d ,
