#!/usr/bin/env bash
# compare.sh — make bench-compare: this tree against BASE, case by case.
#
#   bench/compare.sh BASE [--quick] [--fail-on all|cost] [--cost-threshold F]
#
# Builds BASE in a temporary git worktree, then for each case of bench/cases.tsv
# (--quick: the *_small ones) runs both builds in one hyperfine call (warm-up 1,
# 10 runs each; 5 with --quick) and prints base and head medians and their ratio,
# and for each case of bench/cost.tsv the instructions of both (callgrind, one
# thread) and their ratio.
#
# Thresholds:
#  - time: a case fails when the ratio of medians head/base exceeds
#    1 + max(0.10, 3 s), s being the combined relative standard deviation of
#    the two as measured in that very call.  Two builds of one commit on this
#    2-core machine (A/A, --quick) gave ratios from 0.72 to 1.18 on the small
#    cases (tens of ms, start-up dominated) with 3 s from 0.21 to 0.6 there,
#    and within 0.03 of 1 with 3 s near 0.2 on the 0.2-1 s cases: the 3 s term
#    carries the noise, the 0.10 floor keeps quiet cases from failing on a few
#    percent.
#  - lockstep time (the bench step cases, when BASE has the lockstep mode): the
#    two builds take turns step by step (bench/lockstep.sh, 3 rounds), and a case
#    fails when the median of the rounds' ratios head/base exceeds 1 + max(0.03,
#    2 r), r the range of the three ratios.  Two runs of one binary in lockstep
#    gave round ratios within 0.991-1.012 (2 threads, 60k particles, at rest
#    and in the flow).
#  - cost: a case fails when head/base exceeds 1 + F (default 0.01): callgrind's
#    count moves by under 1e-6 between two runs of one binary.
# --fail-on cost (CI) fails on cost regressions only and prints the times.
# The times in lockstep are printed after hyperfine's.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/compare.sh BASE [--quick] [--fail-on all|cost] [--cost-threshold F]" >&2; exit 1; }
base="$1"; shift
quick=0 failon=all costthr=0.01
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --fail-on) failon="$2"; shift ;;
    --cost-threshold) costthr="$2"; shift ;;
    *) echo "bench/compare.sh: unknown option '$1'; valid: --quick, --fail-on all|cost, --cost-threshold F" >&2; exit 1 ;;
  esac
  shift
done
case "$failon" in all|cost) ;; *) echo "bench/compare.sh: --fail-on $failon is invalid; valid: all, cost" >&2; exit 1 ;; esac
rev=$(git rev-parse --verify --quiet "$base^{commit}") || { echo "bench/compare.sh: BASE '$base' is not a commit here" >&2; exit 1; }
for tool in hyperfine valgrind; do
  command -v $tool >/dev/null || { echo "bench/compare.sh: $tool is missing; run scripts/deps.sh bench" >&2; exit 1; }
done
wt=$(mktemp -d "${TMPDIR:-/tmp}/pfbench-base.XXXXXX")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfbench-cmp.XXXXXX")
cleanup() { git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"; rm -rf "$tmp"; }
trap cleanup EXIT
git worktree add --detach "$wt" "$rev" >/dev/null 2>&1
echo "::: building BASE $(git rev-parse --short "$rev") in $wt"
make -C "$wt" -j"$(nproc)" Q=@ >/dev/null
make -j"$(nproc)" >/dev/null
bb="$wt/bin/pfbench" hb="bin/pfbench"
if ! "$bb" bench --help >/dev/null 2>&1; then
  echo "bench/compare.sh: BASE $(git rev-parse --short "$rev") has no 'pfbench bench'; nothing to compare"
  exit 0
fi
runs=10
[ $quick = 1 ] && runs=5
fail=0
echo "::: time (hyperfine, $runs runs each after a warm-up)"
printf '%-24s %10s %10s %7s %7s  %s\n' case base_s head_s ratio limit verdict
grep -v '^#' bench/cases.tsv | while IFS=$'\t' read -r name args; do
  [ -n "$name" ] || continue
  if [ $quick = 1 ] && [[ "$name" != *_small ]]; then continue; fi
  # shellcheck disable=SC2086
  hyperfine --style none --warmup 1 --runs $runs --export-csv "$tmp/$name.csv" \
    -n base "$bb $args" -n head "$hb $args" >/dev/null 2>&1 || { printf '%-24s failed to run\n' "$name"; echo 1 >> "$tmp/fail"; continue; }
  awk -F, -v name="$name" -v failon="$failon" -v fl="$tmp/fail" '
    $1 == "base" { bm = $4; bs = $3 * $4 / $2 } $1 == "head" { hm = $4; hs = $3 * $4 / $2 }
    END {
      r = hm / bm; s = sqrt((bs / bm) ^ 2 + (hs / hm) ^ 2); lim = 1 + (3 * s > 0.10 ? 3 * s : 0.10)
      v = r > lim ? "SLOWER" : (r < 1 / lim ? "faster" : "same")
      printf "%-24s %10.4f %10.4f %7.3f %7.3f  %s\n", name, bm, hm, r, lim, v
      if (v == "SLOWER" && failon == "all") print 1 >> fl
    }' "$tmp/$name.csv"
done
# lockstep: the same step cases with both builds taking turns step by step
# (bench/lockstep.sh), where a few percent stand out of the machine's phases
if "$bb" bench --help 2>/dev/null | grep -q -- --lockstep-in; then
  echo "::: time in lockstep (bench/lockstep.sh, 3 rounds; ns per particle-step, medians of the rounds)"
  printf '%-24s %10s %10s %7s %7s  %s\n' case base_ns head_ns ratio limit verdict
  grep -v '^#' bench/cases.tsv | while IFS=$'\t' read -r name args; do
    [ -n "$name" ] && [[ "$args" == "bench step "* ]] || continue
    if [ $quick = 1 ] && [[ "$name" != *_small ]]; then continue; fi
    # shellcheck disable=SC2086
    if ! bash bench/lockstep.sh --rounds 3 "$bb" "$hb" ${args#bench step } > "$tmp/$name.lock" 2>&1; then
      printf '%-24s failed to run: %s\n' "$name" "$(tail -1 "$tmp/$name.lock")"; echo 1 >> "$tmp/fail"; continue
    fi
    awk -v name="$name" -v failon="$failon" -v fl="$tmp/fail" '
      function med(v, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
                                      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
      $1 ~ /^[0-9]+$/ { n++; a[n] = $3; b[n] = $5; r[n] = $7; lo = (n == 1 || $7 < lo) ? $7 : lo; hi = (n == 1 || $7 > hi) ? $7 : hi }
      END {
        if (n == 0) { printf "%-24s no rounds\n", name; print 1 >> fl; exit }
        rm = med(r, n); lim = 1 + (2 * (hi - lo) > 0.03 ? 2 * (hi - lo) : 0.03)
        v = rm > lim ? "SLOWER" : (rm < 1 / lim ? "faster" : "same")
        printf "%-24s %10.1f %10.1f %7.3f %7.3f  %s\n", name, med(a, n), med(b, n), rm, lim, v
        if (v == "SLOWER" && failon == "all") print 1 >> fl
      }' "$tmp/$name.lock"
  done
else
  echo "::: time in lockstep skipped: BASE's pfbench has no bench step --lockstep-in"
fi
echo "::: deterministic cost (instructions, callgrind, one thread)"
bash bench/cost.sh "$bb" > "$tmp/cost_base.tsv" &
bash bench/cost.sh "$hb" > "$tmp/cost_head.tsv"
wait
printf '%-24s %14s %14s %9s  %s\n' case base head ratio verdict
awk -F'\t' -v thr="$costthr" -v fl="$tmp/fail" '
  NR == FNR { if (FNR > 1) b[$1] = $2; next }
  FNR > 1 {
    if (!($1 in b) || b[$1] == "nan" || $2 == "nan") { printf "%-24s %14s %14s %9s  %s\n", $1, b[$1], $2, "-", "not comparable"; next }
    r = $2 / b[$1]; v = r > 1 + thr ? "MORE" : (r < 1 - thr ? "less" : "same")
    printf "%-24s %14d %14d %9.4f  %s\n", $1, b[$1], $2, r, v
    if (v == "MORE") print 1 >> fl
  }' "$tmp/cost_base.tsv" "$tmp/cost_head.tsv"
if [ -s "$tmp/fail" ]; then
  echo "bench/compare.sh: regression against $(git rev-parse --short "$rev") (see SLOWER / MORE above)"
  exit 1
fi
echo "bench/compare.sh: no regression against $(git rev-parse --short "$rev")"
