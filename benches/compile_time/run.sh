#!/usr/bin/env bash
# Compile-time benchmark of issue 6: what 50 `graph!` items cost a user's build.
#
#   benches/compile_time/run.sh            # REPS=3 by default
#   REPS=5 benches/compile_time/run.sh
#
# Generates (gen.py) a cargo workspace under $CARGO_TARGET_DIR/compile-bench/ws (default
# target/compile-bench/ws) whose crates depend on this checkout by path, then measures:
#
# Two template sets: set 1 (`with_graphs` / `hand_written`, literal dims, the MAX set) and
# set 2 (`with_graphs_v2` / `hand_written_v2`: run-time dims fed from `Vec`s, the wider op
# table, products with epilogues, einsum). Section 1 also reports the CPU time (user + sys
# of cargo and rustc, from /usr/bin/time), which a loaded machine distorts far less than
# wall time, and section 1b the debug build and `cargo check` (CARGO_INCREMENTAL=0, so
# `touch` recompiles the crate).
#
# 1. `cargo build --release` of `with_graphs` (50 graph! items, ~10 ops each, each kernel
#    instantiated once, each in its own `run_i()`) and of `hand_written` (the same kernels as scalar
#    loops over slices), stable toolchain. Dependencies are built once first; each timed
#    build is `touch src/lib.rs && cargo build --release -p CRATE`, so only the crate
#    itself is compiled. The two crates alternate, REPS times; the median is reported.
# 2. Expansion time, from rustc's own pass timer on nightly (`-Z time-passes`, the
#    `expand_crate` pass: name resolution of macros, running the proc macro, and parsing
#    its output back into the AST). Crates: `graphs_only` (the 50 graphs, nothing else),
#    `graphs_one` (the first graph) and `graphs_none` (no graph). Reported per graph:
#    (graphs_only - graphs_none) / 50, which charges the one-off loading of the proc macro
#    to the graphs, and the marginal (graphs_only - graphs_one) / 49. Median of REPS.
#    Also `-Z macro-stats`: lines and bytes of the expansion per graph.
# 3. Code size vs tensor size: the same four graphs at small shapes ([8], [4, 8],
#    [2, 1, 8] with [3, 1]) and large ones ([1 << 20], [4096, 1024], [64, 1, 1024] with
#    [256, 1]): lines, bytes and tokens of `-Z unpretty=expanded`, and the machine code
#    (.text bytes of the crate's object files in its rlib).
#
# Needs: cargo (stable) and `cargo +nightly`, python3, binutils (`size`, `ar`).
# The machine is noted in the summary; on a shared machine repeat and compare.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
REPS="${REPS:-3}"
BASE="${CARGO_TARGET_DIR:-$ROOT/target}/compile-bench"
WS="$BASE/ws"
OUT="$BASE/results"
export CARGO_TARGET_DIR="$BASE/target"
export CARGO_TERM_COLOR=never
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS

rm -rf "$WS" "$OUT"
mkdir -p "$WS" "$OUT"
python3 "$HERE/gen.py" "$WS" "$ROOT" | tee "$OUT/gen.txt"
# The library's lock file pins the same dependency versions as the repo's own builds.
cp "$ROOT/Cargo.lock" "$WS/Cargo.lock"
cd "$WS"

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'; }
now() { date +%s.%N; }

echo "== machine"
{
  lscpu | head -20
  echo "nproc: $(nproc)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "stable:  $(rustc --version)"
  echo "nightly: $(rustc +nightly --version)"
  echo "tensorgraph: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')"
} | tee "$OUT/machine.txt"

# ---------------------------------------------------------------------------------------
# timed MODE CRATE: touch the crate, run `cargo MODE` on it alone; appends the wall seconds
# to $OUT/MODE-CRATE.txt and the CPU seconds (user + sys) to $OUT/MODE-CRATE.cpu.
timed() {
  local mode=$1 c=$2 t0 t1 flags
  case $mode in
    release) flags="build --release" ;;
    debug) flags="build" ;;
    check) flags="check" ;;
  esac
  touch "$c/src/lib.rs"
  t0=$(now)
  /usr/bin/time -f "%U %S" -o "$OUT/time.tmp" cargo $flags -q -p "$c" 2>>"$OUT/$mode-$c.log"
  t1=$(now)
  echo "$t1 - $t0" | bc -l >>"$OUT/$mode-$c.txt"
  awk '{print $1 + $2}' "$OUT/time.tmp" >>"$OUT/$mode-$c.cpu"
  echo "  $mode $c: $(tail -1 "$OUT/$mode-$c.txt") s wall, $(tail -1 "$OUT/$mode-$c.cpu") s cpu (load $(cut -d' ' -f1 /proc/loadavg))"
}
PAIRS="with_graphs:hand_written with_graphs_v2:hand_written_v2"

echo "== 1. cargo build --release (stable), crate only, $REPS reps"
cargo build --release -q -p with_graphs -p hand_written -p with_graphs_v2 -p hand_written_v2 2>"$OUT/warm-stable.log" || { cat "$OUT/warm-stable.log"; exit 1; }
for rep in $(seq "$REPS"); do
  for pair in $PAIRS; do
    timed release "${pair%%:*}"
    timed release "${pair##*:}"
  done
done
# The summary's first table keeps its old file names.
cp "$OUT/release-with_graphs.txt" "$OUT/build-with_graphs.txt"
cp "$OUT/release-hand_written.txt" "$OUT/build-hand_written.txt"
BW=$(median <"$OUT/build-with_graphs.txt")
BH=$(median <"$OUT/build-hand_written.txt")

echo "== 1b. debug build and cargo check (stable, CARGO_INCREMENTAL=0), $REPS reps"
export CARGO_INCREMENTAL=0
cargo build -q -p with_graphs -p hand_written -p with_graphs_v2 -p hand_written_v2 2>>"$OUT/warm-stable.log"
cargo check -q -p with_graphs -p hand_written -p with_graphs_v2 -p hand_written_v2 2>>"$OUT/warm-stable.log"
for rep in $(seq "$REPS"); do
  for mode in debug check; do
    for pair in $PAIRS; do
      timed $mode "${pair%%:*}"
      timed $mode "${pair##*:}"
    done
  done
done
unset CARGO_INCREMENTAL

# Where the build time goes: one -Z time-passes run of each (nightly).
cargo +nightly build --release -q -p with_graphs -p hand_written -p graphs_only -p graphs_one -p graphs_none -p size_small -p size_large -p graphs_only_v2 2>"$OUT/warm-nightly.log" || { cat "$OUT/warm-nightly.log"; exit 1; }
for c in with_graphs hand_written; do
  touch "$c/src/lib.rs"
  cargo +nightly rustc --release -q -p "$c" --lib -- -Z time-passes >"$OUT/passes-$c.txt" 2>&1
done

# ---------------------------------------------------------------------------------------
echo "== 2. expansion time (nightly -Z time-passes, expand_crate), $REPS reps"
expand_time() { # crate -> seconds of expand_crate
  touch "$1/src/lib.rs"
  cargo +nightly rustc --release -q -p "$1" --lib -- -Z time-passes 2>&1 | awk '$NF == "expand_crate" {gsub(";", "", $2); print $2}'
}
for rep in $(seq "$REPS"); do
  for c in graphs_none graphs_one graphs_only; do
    expand_time "$c" >>"$OUT/expand-$c.txt"
  done
  echo "  rep $rep: none $(tail -1 "$OUT/expand-graphs_none.txt") s, one $(tail -1 "$OUT/expand-graphs_one.txt") s, fifty $(tail -1 "$OUT/expand-graphs_only.txt") s"
done
for rep in $(seq "$REPS"); do
  expand_time graphs_only_v2 >>"$OUT/expand-graphs_only_v2.txt"
done
E0=$(median <"$OUT/expand-graphs_none.txt")
E1=$(median <"$OUT/expand-graphs_one.txt")
E50=$(median <"$OUT/expand-graphs_only.txt")
touch graphs_only/src/lib.rs
cargo +nightly rustc --release -q -p graphs_only --lib -- -Z macro-stats >"$OUT/macro-stats.txt" 2>&1

# ---------------------------------------------------------------------------------------
echo "== 3. code size vs tensor size"
text_bytes() { # crate -> .text bytes of the object files in its release rlib
  local dir rlib
  dir=$(mktemp -d)
  rlib=$(ls -t "$CARGO_TARGET_DIR"/release/deps/lib"$1"-*.rlib | head -1)
  (cd "$dir" && ar x "$rlib" && size -A -d ./*.o | awk '$1 ~ /^\.text/ {s += $2} END {print s + 0}')
  rm -rf "$dir"
}
for c in size_small size_large with_graphs hand_written; do
  touch "$c/src/lib.rs"
  cargo +nightly rustc --release -q -p "$c" --lib -- -Z unpretty=expanded >"$OUT/expanded-$c.rs" 2>"$OUT/expanded-$c.log"
  touch "$c/src/lib.rs"
  cargo build --release -q -p "$c" 2>>"$OUT/build-$c.log"
  text_bytes "$c" >"$OUT/text-$c.txt"
done

python3 - "$OUT" "$BW" "$BH" "$E0" "$E1" "$E50" "$REPS" <<'EOF' | tee "$OUT/summary.md"
import re, sys
out, bw, bh, e0, e1, e50, reps = sys.argv[1], *map(float, sys.argv[2:7]), int(sys.argv[7])

def read(name):
    with open(f"{out}/{name}") as f:
        return f.read()

def tokens(src):
    # Rust tokens, roughly: identifiers/keywords, numbers, string literals, punctuation
    # characters (a `::` counts as 2, as proc_macro counts it).
    src = re.sub(r'"(\\.|[^"\\])*"', '"s"', src)
    return len(re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\"s\"|'[a-z_]+|\S", src))

def collapse(src):
    # Every typenum unsigned integer (`UTerm`, `UInt<…, B0|B1>` nested) becomes `TN`.
    p = r"::tensorgraph::__private::"
    src = src.replace(p + "UTerm", "TN")
    while True:
        new = re.sub(r"(?:" + p + r")?UInt<\s*TN,\s*(?:" + p + r")?B[01]>", "TN", src)
        if new == src:
            return src
        src = new

def passes(name):
    got = {}
    for line in read(name).splitlines():
        m = re.match(r"time:\s+([\d.]+);.*\s(\S+)$", line)
        if m:
            got[m.group(2)] = float(m.group(1))
    return got

runs = lambda n: " ".join(f"{float(x):.2f}" for x in read(n).split())
print(f"### Build time (stable, `cargo build --release` of the crate alone, median of {reps})\n")
print("| crate | median s | runs s |\n|---|---:|---|")
print(f"| with_graphs (50 graph!) | {bw:.2f} | {runs('build-with_graphs.txt')} |")
print(f"| hand_written (same kernels, scalar loops) | {bh:.2f} | {runs('build-hand_written.txt')} |")
print(f"| ratio | {bw / bh:.1f}x | |\n")

import statistics
def med(name):
    return statistics.median(float(x) for x in read(name).split())
print(f"### Both template sets, three kinds of build (median of {reps}; CPU = user + sys of cargo and rustc)\n")
print("| set | build | graphs wall s | hand wall s | wall ratio | graphs CPU s | hand CPU s | CPU ratio |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for label, g, h in [("1 (literal dims, MAX set)", "with_graphs", "hand_written"),
                    ("2 (run-time dims, wider ops, products)", "with_graphs_v2", "hand_written_v2")]:
    for mode in ["release", "debug", "check"]:
        gw, hw = med(f"{mode}-{g}.txt"), med(f"{mode}-{h}.txt")
        gc, hc = med(f"{mode}-{g}.cpu"), med(f"{mode}-{h}.cpu")
        print(f"| {label} | {mode} | {gw:.2f} | {hw:.2f} | {gw / hw:.1f}x | {gc:.2f} | {hc:.2f} | {gc / hc:.1f}x |")
e50v2 = med("expand-graphs_only_v2.txt")
print(f"\nSet 2 expansion: 50 graphs {e50v2 * 1000:.1f} ms, (50 - none) / 50 = **{(e50v2 - e0) * 1000 / 50:.2f} ms** per graph.\n")

pw, ph = passes("passes-with_graphs.txt"), passes("passes-hand_written.txt")
keys = ["expand_crate", "type_check_crate", "MIR_borrow_checking", "generate_crate_metadata",
        "codegen_crate", "LLVM_passes", "LLVM_thinlto", "finish_ongoing_codegen", "total"]
print("### Where the build time goes (nightly `-Z time-passes`, one run each, seconds)\n")
print("| pass | with_graphs | hand_written |\n|---|---:|---:|")
for k in keys:
    print(f"| {k} | {pw.get(k, float('nan')):.3f} | {ph.get(k, float('nan')):.3f} |")
print("\n(LLVM_passes and LLVM_thinlto run on parallel codegen units inside finish_ongoing_codegen.)\n")

print(f"### Expansion time (nightly `-Z time-passes`, `expand_crate`, median of {reps})\n")
print("| crate | expand_crate ms |\n|---|---:|")
print(f"| graphs_none (no graph) | {e0 * 1000:.1f} |")
print(f"| graphs_one (1 graph) | {e1 * 1000:.1f} |")
print(f"| graphs_only (50 graphs) | {e50 * 1000:.1f} |")
print(f"\nPer graph: (50 - none) / 50 = **{(e50 - e0) * 1000 / 50:.2f} ms**; marginal (50 - one) / 49 = **{(e50 - e1) * 1000 / 49:.2f} ms**.\n")
ms = read("macro-stats.txt")
m = re.search(r"graph_impl!\s*\n\S*\s+(\d+)\s+([\d_]+)\s+([\d_.]+)\s+([\d_]+)\s+([\d_.]+)", ms)
if m:
    print(f"Expansion size (`-Z macro-stats`): {m.group(1)} graphs, {m.group(2)} lines, {m.group(4)} bytes in all; "
          f"{m.group(3)} lines and {m.group(5)} bytes per graph.\n")

print("### Code size vs tensor size (same four graphs)\n")
print("Expanded = `-Z unpretty=expanded` of the four graphs (the crate up to its `run_*` callers); "
      ".text = machine code of the whole crate (the graphs instantiated by `run_all`).\n")
print("Tokens with typenum dims collapsed: the same count with each dim's binary typenum "
      "spelling (`UInt<UInt<UTerm, B1>, B0>` …) counted as one token, i.e. the code besides the dims' log2-long type names.\n")
print("| crate | expanded lines | expanded bytes | expanded tokens | tokens, typenum dims collapsed | .text bytes |\n|---|---:|---:|---:|---:|---:|")
for c in ["size_small", "size_large", "with_graphs", "hand_written"]:
    src = read(f"expanded-{c}.rs")
    if c.startswith("size_"):
        src = src.split("use std::hint::black_box;")[0]
    print(f"| {c} | {src.count(chr(10))} | {len(src)} | {tokens(src)} | {tokens(collapse(src))} | {int(read(f'text-{c}.txt'))} |")
print("\n(with_graphs and hand_written rows: the whole crate, for comparison.)")
EOF
echo "raw logs: $OUT"
