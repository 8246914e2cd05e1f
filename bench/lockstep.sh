#!/usr/bin/env bash
# lockstep.sh — two `pfbench bench step` runs taking turns step by step.
#
#   bench/lockstep.sh [--rounds R] [--set-b KEY=VALUE]... [--b-args "ARGS"] BIN_A BIN_B [BENCH_STEP_ARGS...]
#
# Runs `BIN_A bench step ARGS` and `BIN_B bench step ARGS` (plus --set KEY=VALUE
# for each --set-b) at once, joined by two FIFOs so that they take turns: one
# step of A, then one of B, warm-up steps included (bench step --lockstep-in/-out;
# core/timing.h).  Each step thus runs alone on the machine, and the two runs meet
# the same phases of its speed, which on the shared 2-core machine here moves by
# up to 3x within minutes: process-level alternation (hyperfine, bench/compare.sh)
# cannot tell a few percent from that, the ratio of two runs in lockstep can.
# Both may be one binary (BIN_A = BIN_B) with different settings (--set-b).
# --b-args "ARGS" gives B its own bench step arguments instead of A's (split at
# spaces): two solvers side by side, B's turns K steps each (--lockstep-every K
# in ARGS) when its steps are about K times shorter, its warm-up and timed
# steps K times A's so that both take as many turns and reach about the same
# simulated time (mao_yang against muller in the 3D dam break: K = 8,
# dt 6.3e-4 s against 7.4e-5 s).
#
# OMP_WAIT_POLICY defaults to passive here: with GNU OpenMP's spinning, the
# threads of the run that waits kept the cores busy during the other's turn
# (two runs of one binary then differed by 1-3%, and both were 20-40% slower);
# with passive ones the same pair agrees within about 1% (round ratios
# 0.991-1.012, muller 3D at rest and in the flow, 2 threads).  Passive threads
# sleep between parallel regions, so a phase made of many short regions (a
# sort's column-by-column permutation, the list's build) costs more than in a
# plain run (muller's list build in the flow: 138 against 91 ns per particle).
# OMP_WAIT_POLICY set empty keeps GNU OpenMP's default (spin, then sleep); with
# GOMP_SPINCOUNT=20000 the pair agreed within 1% too (0.991-1.011, 6 rounds).
#
# R rounds (default 3), A taking the first turn in odd rounds and B in even ones;
# each round prints both runs' median and mean ns per particle-step and their
# ratios B/A, and the last line the median of the rounds' ratios.  Exit status 1
# when a run fails or blows up (its message is printed).
set -euo pipefail
rounds=3 setb=() bargs=() own_b=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --set-b) setb+=(--set "$2"); shift 2 ;;
    --b-args) read -r -a bargs <<< "$2"; own_b=1; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: bench/lockstep.sh [--rounds R] [--set-b KEY=VALUE]... [--b-args \"ARGS\"] BIN_A BIN_B [BENCH_STEP_ARGS...]" >&2
  exit 1
fi
case "$rounds" in ''|*[!0-9]*|0) echo "bench/lockstep.sh: --rounds $rounds is invalid; valid: a whole number >= 1" >&2; exit 1 ;; esac
a="$1" b="$2"; shift 2
if [ -z "${OMP_WAIT_POLICY+set}" ]; then
  export OMP_WAIT_POLICY=passive
elif [ -z "$OMP_WAIT_POLICY" ]; then
  unset OMP_WAIT_POLICY
fi
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "bench/lockstep.sh: '$bin' is not an executable; valid: a pfbench binary" >&2; exit 1; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfbench-lockstep.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/a" "$dir/b"
val() { grep -o " $1=[0-9.eE+-]*" "$2" | head -1 | cut -d= -f2; }
rm_ratio=() rn_ratio=() fail=0
printf '%-5s %-5s %12s %12s %12s %12s %9s %9s\n' round first a_median a_mean b_median b_mean r_median r_mean
for r in $(seq 1 "$rounds"); do
  "$a" bench step "$@" --lockstep-in "$dir/a" --lockstep-out "$dir/b" >"$dir/a.out" 2>"$dir/a.err" &
  pa=$!
  if [ $own_b = 1 ]; then
    "$b" bench step ${bargs[@]+"${bargs[@]}"} ${setb[@]+"${setb[@]}"} --lockstep-in "$dir/b" --lockstep-out "$dir/a" >"$dir/b.out" 2>"$dir/b.err" &
  else
    "$b" bench step "$@" ${setb[@]+"${setb[@]}"} --lockstep-in "$dir/b" --lockstep-out "$dir/a" >"$dir/b.out" 2>"$dir/b.err" &
  fi
  pb=$!
  first=a
  [ $((r % 2)) = 0 ] && first=b
  exec 3<>"$dir/$first"   # read-write: never waits for the other end
  printf g >&3
  # the first to end, failed, takes the other down (it would wait for its turn)
  ra=0 rb=0 done=
  wait -n -p done $pa $pb || { [ "$done" = $pa ] && ra=$? || rb=$?; }
  if [ $ra != 0 ] || [ $rb != 0 ]; then
    kill "$([ "$done" = $pa ] && echo $pb || echo $pa)" 2>/dev/null || true
  fi
  st=0; wait $pa 2>/dev/null || st=$?; [ $ra != 0 ] || ra=$st
  st=0; wait $pb 2>/dev/null || st=$?; [ $rb != 0 ] || rb=$st
  exec 3>&-
  if [ $ra != 0 ] || [ $rb != 0 ]; then
    echo "bench/lockstep.sh: round $r failed (A exit $ra, B exit $rb):" >&2
    cat "$dir/a.err" "$dir/b.err" >&2
    fail=1
    break
  fi
  am=$(val ns_per_particle_step "$dir/a.out") an=$(val mean_ns_per_particle_step "$dir/a.out")
  bm=$(val ns_per_particle_step "$dir/b.out") bn=$(val mean_ns_per_particle_step "$dir/b.out")
  q=$(awk -v am="$am" -v an="$an" -v bm="$bm" -v bn="$bn" 'BEGIN { printf "%.4f %.4f", bm / am, bn / an }')
  rm_ratio+=("${q% *}") rn_ratio+=("${q#* }")
  printf '%-5s %-5s %12s %12s %12s %12s %9s %9s\n' "$r" "$first" "$am" "$an" "$bm" "$bn" "${q% *}" "${q#* }"
done
[ $fail = 0 ] || exit 1
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "lockstep rounds=$rounds ratio_median_b_over_a=$(med "${rm_ratio[@]}") ratio_mean_b_over_a=$(med "${rn_ratio[@]}")"
