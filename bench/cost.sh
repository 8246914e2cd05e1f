#!/usr/bin/env bash
# cost.sh — the deterministic cost of each case of bench/cost.tsv: instructions
# executed (callgrind's Ir) on one thread.  Machine noise does not move it.
#
#   bench/cost.sh BIN   prints "case<TAB>instructions" lines
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$1"
printf 'case\tinstructions\n'
grep -v '^#' bench/cost.tsv | while IFS=$'\t' read -r name args; do
  [ -n "$name" ] || continue
  # OMP_WAIT_POLICY set: pfbench leaves it as given instead of executing itself
  # again with it (cli/main.c), which valgrind would not follow
  # shellcheck disable=SC2086
  ir=$(OMP_NUM_THREADS=1 OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" $args 2>&1 >/dev/null |
       sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  printf '%s\t%s\n' "$name" "${ir:-nan}"
done
