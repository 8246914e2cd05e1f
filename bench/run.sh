#!/usr/bin/env bash
# run.sh — make bench: time every case of bench/cases.tsv with hyperfine and
# record the deterministic cost of bench/cost.tsv (instructions under callgrind).
#
#   bench/run.sh [--quick] [--bin PATH] [--out DIR]
#
# Writes into DIR (default data/bench): <case>.json (hyperfine --export-json),
# results.tsv (each case's own line: ns per particle, throughput, bytes per
# particle), cost.tsv (instructions per cost case) and meta.txt (commit, date,
# machine, threads, and each core's single-thread speed before and after).
# --quick: only the *_small cases, 2 runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0 bin=bin/pfbench out=data/bench
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --bin) bin="$2"; shift ;;
    --out) out="$2"; shift ;;
    *) echo "bench/run.sh: unknown option '$1'; valid: --quick, --bin PATH, --out DIR" >&2; exit 1 ;;
  esac
  shift
done
command -v hyperfine >/dev/null || { echo "bench/run.sh: hyperfine is missing; run scripts/deps.sh bench" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench/run.sh: $bin is not built; run make" >&2; exit 1; }
mkdir -p "$out"
: > "$out/hyperfine.log"
runs=3
[ $quick = 1 ] && runs=2
{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "cores $(nproc)"
  echo "threads ${OMP_NUM_THREADS:-default}"
  "$bin" version | sed 's/^/pfbench /'
} > "$out/meta.txt"
# Each core's speed now, on one fixed single-thread case: on a shared (virtual)
# machine the cores' speeds differ and change by up to 1.5x over minutes, and
# the cases' figures move with them; these lines tell a slow phase from a
# slow build.  Taken before and after the cases.
core_ref() {
  command -v taskset >/dev/null || return 0
  local cpus c
  cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' ' ')
  for c in $(for r in $cpus; do seq "${r%-*}" "${r#*-}"; done); do
    echo "core_ref_$1 cpu$c list_ns=$(OMP_NUM_THREADS=1 taskset -c "$c" "$bin" bench nsearch --n 200000 --reps 3 |
      sed -n 's/.* list_ns=\([0-9.]*\).*/\1/p')"
  done
}
core_ref before | tee -a "$out/meta.txt"
printf 'case\tresult\n' > "$out/results.tsv"
grep -v '^#' bench/cases.tsv | while IFS=$'\t' read -r name args; do
  [ -n "$name" ] || continue
  if [ $quick = 1 ] && [[ "$name" != *_small ]]; then continue; fi
  # shellcheck disable=SC2086
  line=$("$bin" $args)
  printf '%s\t%s\n' "$name" "$line" >> "$out/results.tsv"
  printf '%-24s %s\n' "$name" "$line"
  hyperfine --style basic --warmup 0 --runs $runs --export-json "$out/$name.json" "$bin $args" > /dev/null 2>> "$out/hyperfine.log"
done
core_ref after | tee -a "$out/meta.txt"
if command -v valgrind >/dev/null; then
  bash bench/cost.sh "$bin" > "$out/cost.tsv"
  column -t "$out/cost.tsv" 2>/dev/null || cat "$out/cost.tsv"
else
  echo "bench/run.sh: valgrind is missing: no deterministic cost (scripts/deps.sh bench)" >&2
fi
echo "bench/run.sh: results in $out/"
