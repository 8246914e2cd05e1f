#!/usr/bin/env bash
# history.sh — make bench-history: the quick cases' figures commit by commit.
#
#   bench/history.sh [--revs A..B | --head] [--csv FILE] [--plot DIR]
#
# For each commit of A..B (git's range: B and its ancestors not in A, oldest
# first; default HEAD~20..HEAD), or with --head for this tree's HEAD alone
# (built here, the tree clean), builds the commit in a temporary worktree and
# measures each case of bench/cost.tsv (the small 2D and 3D cases of every
# solver and the neighbour search) two ways:
#  - instructions: callgrind's count on one thread (bench/cost.sh), which the
#    machine's speed does not move: the figure that shows where the code changed;
#  - time: ns per particle-step (ns per particle for the search), the median of
#    three runs on one thread: this machine's speed moves by up to 3x within
#    minutes (bench/README.md), so a time is a rough guide and the count the
#    measure.
# Commits that did not change the code (core solvers experiments cli Makefile:
# the Makefile's provenance rule) share the binary of the last one that did,
# and its figures: they are measured once (code_commit says which).  Rows are
# appended to FILE (default bench/history.csv: commit, date, code_commit, case,
# ns_per_particle_step, instructions) for the commits it does not hold yet,
# then the table of the range is printed and gnuplot draws bench/history.gp
# into DIR (default data/bench): history.png and history.pdf, each case's
# instructions and time relative to its first commit in the file.
set -euo pipefail
cd "$(dirname "$0")/.."
revs=HEAD~20..HEAD head=0 csv=bench/history.csv plot=data/bench
while [ $# -gt 0 ]; do
  case "$1" in
    --revs) revs=${2:?--revs needs a range A..B}; shift 2 ;;
    --head) head=1; shift ;;
    --csv) csv=${2:?--csv needs a file}; shift 2 ;;
    --plot) plot=${2:?--plot needs a directory}; shift 2 ;;
    *) echo "bench/history.sh: unknown option '$1'; valid: --revs A..B, --head, --csv FILE, --plot DIR" >&2; exit 1 ;;
  esac
done
command -v valgrind >/dev/null || { echo "bench/history.sh: valgrind is missing; run scripts/deps.sh bench" >&2; exit 1; }
if [ $head = 1 ]; then
  [ -z "$(git status --porcelain -- core solvers experiments cli Makefile)" ] ||
    { echo "bench/history.sh: --head measures HEAD, but the code has uncommitted changes; commit them first" >&2; exit 1; }
  commits=$(git rev-parse HEAD)
else
  case "$revs" in *..*) ;; *) echo "bench/history.sh: --revs '$revs' is not a range; valid: A..B, e.g. HEAD~20..HEAD" >&2; exit 1 ;; esac
  commits=$(git rev-list --reverse "$revs" 2>/dev/null) ||
    { echo "bench/history.sh: --revs '$revs' names no commits here" >&2; exit 1; }
fi
[ -n "$commits" ] || { echo "bench/history.sh: the range '$revs' is empty" >&2; exit 1; }
mkdir -p "$(dirname "$csv")" "$plot"
[ -s "$csv" ] || printf 'commit,date,code_commit,case,ns_per_particle_step,instructions\n' > "$csv"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pfbench-history.XXXXXX")
wt=$tmp/wt
cleanup() { git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT

# measure BIN: "case,ns,instructions" lines into $tmp/rows
measure() {
  local bin=$1
  bash bench/cost.sh "$bin" | tail -n +2 > "$tmp/cost.tsv"
  : > "$tmp/rows"
  while IFS=$'\t' read -r name args; do
    [ -n "$name" ] || continue
    local t=() k v
    for k in 1 2 3; do
      # shellcheck disable=SC2086
      v=$(OMP_NUM_THREADS=1 "$bin" $args 2>&1 | tail -n 1 | grep -o ' ns_per_particle\(_step\)\?=[0-9.e+-]*' | head -n 1 | cut -d= -f2)
      t+=("${v:-nan}")
    done
    v=$(printf '%s\n' "${t[@]}" | sort -g | sed -n 2p)
    printf '%s,%s,%s\n' "$name" "$v" "$(awk -F'\t' -v c="$name" '$1 == c { print $2 }' "$tmp/cost.tsv")" >> "$tmp/rows"
  done < <(grep -v '^#' bench/cost.tsv)
}

last_code='' n_new=0
for c in $commits; do
  short=$(git rev-parse --short=12 "$c")
  if grep -q "^$short," "$csv"; then continue; fi
  code=$(git log -1 --format=%h --abbrev=12 "$c" -- core solvers experiments cli Makefile)
  date=$(git log -1 --format=%cI "$c")
  if [ "$code" != "$last_code" ]; then
    # figures of this code commit already in the file (another commit with the same code)?
    if awk -F, -v k="$code" '$3 == k { f = 1 } END { exit !f }' "$csv"; then
      awk -F, -v OFS=, -v k="$code" '$3 == k && !seen[$4]++ { print $4, $5, $6 }' "$csv" > "$tmp/rows"
    else
      if [ $head = 1 ]; then
        make -j"$(nproc)" Q=@ >/dev/null
        bin=bin/pfbench
      else
        git worktree remove --force "$wt" >/dev/null 2>&1 || true
        git worktree add --detach "$wt" "$c" >/dev/null 2>&1
        echo "::: $short: building" >&2
        if ! make -C "$wt" -j"$(nproc)" Q=@ >/dev/null 2>"$tmp/build.log"; then
          echo "::: $short: does not build; skipped ($(tail -n 1 "$tmp/build.log"))" >&2
          continue
        fi
        bin=$wt/bin/pfbench
      fi
      echo "::: $short: measuring" >&2
      measure "$bin"
    fi
    last_code=$code
  fi
  awk -F, -v OFS=, -v c="$short" -v d="$date" -v k="$code" '{ print c, d, k, $0 }' "$tmp/rows" >> "$csv"
  n_new=$((n_new + 1))
done
echo "bench/history.sh: $n_new commits added to $csv" >&2

# the table of the range (with --head: of the file's last 20 commits):
# instructions (millions) per case, one row per commit
if [ $head = 1 ]; then
  shown=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$csv" | tail -n 20 | tr '\n' ' ')
else
  shown=$(for c in $commits; do git rev-parse --short=12 "$c"; done | tr '\n' ' ')
fi
awk -F, -v list="$shown" '
  BEGIN { n = split(list, order, " "); for (i = 1; i <= n; i++) want[order[i]] = i }
  NR > 1 && ($1 in want) { v[$1, $4] = $6; t[$1, $4] = $5; if (!($4 in seen)) { seen[$4] = 1; cases[++nc] = $4 } }
  END {
    printf "%-12s", "commit"; for (j = 1; j <= nc; j++) printf " %14s", cases[j]; printf "\n"
    for (i = 1; i <= n; i++) {
      c = order[i]; printf "%-12s", c
      for (j = 1; j <= nc; j++) printf " %7.1fM %5.0f", v[c, cases[j]] / 1e6, t[c, cases[j]]
      printf "\n"
    }
    printf "(each case: instructions in millions, callgrind, one thread; then ns per particle-step, one thread)\n"
  }' "$csv"

# the figure's data: one row per commit of the file (in its order), one column
# per case, each relative to the case's first commit
for m in 6 5; do
  awk -F, -v m=$m '
    NR > 1 { if (!($1 in ci)) { ci[$1] = ++n; cm[n] = $1 } if (!($4 in ki)) { ki[$4] = ++nk; kn[nk] = $4 }
             v[ci[$1], ki[$4]] = $m; if (!((ki[$4]) in b) && $m + 0 > 0) b[ki[$4]] = $m }
    END { printf "i commit"; for (k = 1; k <= nk; k++) printf " %s", kn[k]; printf "\n"
          for (i = 1; i <= n; i++) { printf "%d %s", i, substr(cm[i], 1, 7)
            for (k = 1; k <= nk; k++) printf " %s", (v[i, k] + 0 > 0 && b[k] > 0) ? v[i, k] / b[k] : "NaN"; printf "\n" } }' \
    "$csv" > "$plot/history_$([ $m = 6 ] && echo instructions || echo time).dat"
done
if command -v gnuplot >/dev/null; then
  gnuplot -e "datadir='$plot'" bench/history.gp && echo "bench/history.sh: drew $plot/history.png and $plot/history.pdf" >&2
else
  echo "bench/history.sh: gnuplot is missing (scripts/deps.sh figures): no figure" >&2
fi
