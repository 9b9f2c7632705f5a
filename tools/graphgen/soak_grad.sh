#!/usr/bin/env bash
# A soak of the differentiable random graphs (issue 32 item 6): COUNT graphs of
# graphgen::grad from SEED, compiled and checked CHUNK (default 100) at a time by
# tensorgraph-tests/tests/graphgen_grad.rs; soak.sh's loop with SOAK_KIND=grad.
#   tools/graphgen/soak_grad.sh SEED COUNT [CHUNK]      e.g. tools/graphgen/soak_grad.sh 1 400 100
# A failing graph is reproduced alone with
#   GRADGEN_SEED=SEED GRADGEN_START=INDEX GRADGEN_COUNT=1 cargo test -p tensorgraph-tests --test graphgen_grad
SOAK_KIND=grad exec "$(dirname "$0")/soak.sh" "$@"
