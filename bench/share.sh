#!/usr/bin/env bash
# share.sh — a run's speed beside other work (issue 48): bench step's ns per
# particle-step alone, two copies started at once, and beside one busy loop at
# nice 19 and at normal priority, with each ratio to alone.
#
#   bench/share.sh BIN LABEL [bench step options...]
#   bench/share.sh bin/pfbench muller --solver muller
#   bench/share.sh bin/pfbench clavet --solver clavet --set solver.relaxation=jacobi
#
# The environment is passed through (OMP_WAIT_POLICY, GOMP_SPINCOUNT,
# OMP_NUM_THREADS): set them to compare waiting policies.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/share.sh BIN LABEL [bench step options...]" >&2; exit 1; }
bin=$1 label=$2
shift 2
args=(bench step --dim 3 --n 60000 --steps 40 --warmup 2 "$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ns() { grep -o 'ns_per_particle_step=[0-9.]*' | head -1 | cut -d= -f2; }
busy() { # run bench step beside a busy loop at nice $1
  nice -n "$1" bash -c 'while :; do :; done' &
  local bp=$!
  sleep 0.3
  "$bin" "${args[@]}" | ns
  kill "$bp"
  wait "$bp" 2>/dev/null || true
}
alone=$("$bin" "${args[@]}" | ns)
"$bin" "${args[@]}" > "$tmp/a" & pa=$!
"$bin" "${args[@]}" > "$tmp/b" & pb=$!
wait "$pa" "$pb"
two_a=$(ns < "$tmp/a") two_b=$(ns < "$tmp/b")
n19=$(busy 19) n0=$(busy 0)
awk -v l="$label" -v a="$alone" -v x="$two_a" -v y="$two_b" -v p="$n19" -v q="$n0" 'BEGIN {
  printf "%s alone %s | two at once %s %s (x%.2f %.2f) | beside busy nice 19 %s (x%.2f) | nice 0 %s (x%.2f)\n",
         l, a, x, y, x / a, y / a, p, p / a, q, q / a }'
