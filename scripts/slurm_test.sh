#!/usr/bin/env bash
# slurm_test.sh — the SLURM submission end to end (CI): a single-node cluster
# (scripts/slurm_cluster.sh) in a temporary directory, the quick volume
# experiment submitted to it as a job array plus collect (scripts/slurm.sh),
# and the same experiment run locally while the cluster runs it (the two
# share the cores: their results do not depend on it); every file of the two must agree byte
# for byte, but the wall_seconds column of the summary (each run's own wall
# time).  Then a sweep with a task that fails: its collect must name it and
# fail.  The cluster is stopped on exit, whatever happened.
#
#   scripts/slurm_test.sh [BIN]        (default bin/pfbench)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/pfbench}
[ -x "$bin" ] || { echo "slurm_test.sh: $bin is not built; run make" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pfb_slurm.XXXXXX)
local_pid=
cleanup() {
  [ -z "$local_pid" ] || kill "$local_pid" 2>/dev/null || true
  bash scripts/slurm_cluster.sh stop "$tmp/cluster" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
t0=$(date +%s.%N)
bash scripts/slurm_cluster.sh start "$tmp/cluster"
export SLURM_CONF=$tmp/cluster/slurm.conf
t1=$(date +%s.%N)
job=$(bash scripts/slurm.sh submit volume --quick --out "$tmp/slurm" --cpus 1 --bin "$bin")
"$bin" exp volume --quick --out "$tmp/local" 2> "$tmp/local.log" &
local_pid=$!
bash scripts/slurm.sh wait "$job" || { cat "$tmp"/slurm/slurm/logs/collect_*.log >&2; exit 1; }
t2=$(date +%s.%N)
wait "$local_pid" || { local_pid=; cat "$tmp/local.log" >&2; exit 1; }
local_pid=
t3=$(date +%s.%N)
# every file of the local experiment (its CSVs, the manifest, each run's series)
# against the cluster's; run.meta differs by nature (wall time, command, date)
strip_wall() { # the file without its wall_seconds column
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_seconds") w = i }
           { s = ""; for (i = 1; i <= NF; i++) if (i != w) s = s (s == "" && i == 1 ? "" : ",") $i; print s }' "$1"
}
n=0 bad=0
while IFS= read -r f; do
  n=$((n + 1))
  if [ "$(basename "$f")" = volume_summary.csv ]; then
    cmp -s <(strip_wall "$tmp/local/$f") <(strip_wall "$tmp/slurm/$f") || { echo "differs: $f" >&2; bad=$((bad + 1)); }
  else
    cmp -s "$tmp/local/$f" "$tmp/slurm/$f" || { echo "differs: $f" >&2; bad=$((bad + 1)); }
  fi
done < <(cd "$tmp/local" && find . -type f \( -name '*.csv' \) | sort)
# a task that fails (its run directory is a file): the collect lists it and
# fails instead of waiting, and writes none of the experiment's files
mkdir -p "$tmp/fail/runs"
echo "not a directory" > "$tmp/fail/runs/muller_pool_3d"
job=$(bash scripts/slurm.sh submit volume --quick --solvers muller --out "$tmp/fail" --cpus 1 --bin "$bin" 2>/dev/null)
if bash scripts/slurm.sh wait "$job" 2>/dev/null; then
  echo "slurm_test.sh: a failed task went unnoticed" >&2
  bad=$((bad + 1))
fi
grep -q "failed (status 1):.*--only muller_pool_3d" "$tmp"/fail/slurm/logs/collect_*.log ||
  { echo "slurm_test.sh: the collect does not name the failed task" >&2; bad=$((bad + 1)); }
[ ! -e "$tmp/fail/volume_summary.csv" ] || { echo "slurm_test.sh: a failed sweep wrote its summary" >&2; bad=$((bad + 1)); }
runs=$(grep -c . "$tmp/slurm/slurm/plan.txt")
awk -v r="$runs" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$n" -v bad="$bad" 'BEGIN {
  printf "slurm_test.sh: %d runs as a job array + collect: cluster up in %.1f s, sweep %.1f s (the local run beside it, done %.1f s after it); %d files compared; %d failures\n", r, b - a, c - b, d - c, n, bad }'
[ "$bad" -eq 0 ] && [ "$n" -gt 0 ]
