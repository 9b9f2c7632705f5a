#!/usr/bin/env bash
# CPU time (user + sys, /usr/bin/time) of `cargo MODE -p CRATE` for the prototype crates,
# alternating, REPS times; CARGO_INCREMENTAL=0 so that `touch` recompiles the crate.
#   MODES="release debug check" REPS=3 ./time.sh proto_fused_graph proto_blocked ...
set -u
cd "$(dirname "$0")"
export CARGO_INCREMENTAL=0
for mode in ${MODES:-release debug check}; do
  case $mode in release) flags="build --release";; debug) flags="build";; check) flags="check";; esac
  for c in "$@"; do nice -n 10 cargo $flags -q -p $c ${FEATURES:+--features $FEATURES} 2>/dev/null; done
  for rep in $(seq ${REPS:-3}); do for c in "$@"; do
    touch $c/src/lib.rs
    /usr/bin/time -f "%U %S" -o /tmp/proto-time.$$ nice -n 10 cargo $flags -q -p $c ${FEATURES:+--features $FEATURES} 2>/dev/null
    read u s < /tmp/proto-time.$$
    echo "$mode $c $(echo "$u + $s" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
  done; done
done
rm -f /tmp/proto-time.$$
