#!/usr/bin/env bash
# slurm.sh — an experiment's sweep on a SLURM cluster: its plan as one job
# array (one task per run) and a collect job after it.
#
#   scripts/slurm.sh submit NAME [EXP_OPTIONS...] --out DIR [--partition P]
#                    [--time T] [--cpus C] [--logs DIR] [--bin PFBENCH]
#   scripts/slurm.sh wait JOBID            poll squeue until the job has left it;
#                                          exit 1 when its collect reported a failure
#
# submit writes DIR/slurm/plan.txt (`pfbench exp NAME ... --plan`: one command
# per run that is not current), submits it as an array whose task k runs line
# k + 1 with OMP_NUM_THREADS = SLURM_CPUS_PER_TASK, then a collect job with
# --dependency=afterany on the array (afterok would stay pending forever once a
# task failed).  Each task leaves DIR/slurm/status/<k> with its exit status; the
# collect lists every task that failed or left none and exits 1 (its log says
# which), else runs the experiment once more, which finds every run current and
# writes the CSVs (and makes any run the plan could not name yet: a chain of
# runs that follows from earlier results, as the calibration's trials).  It
# prints the collect job's id, for `wait`.
#
# Options: --partition (default: the cluster's default), --time (per task,
# default 1:00:00), --cpus per task (default 1), --logs (default DIR/slurm/logs),
# --bin (default bin/pfbench of this checkout).  The other options are the
# experiment's, passed to every pfbench command.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "slurm.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: slurm.sh submit NAME [options] --out DIR | slurm.sh wait JOBID"
cmd=$1
shift

if [ "$cmd" = wait ]; then
  [ $# -eq 1 ] || die "usage: slurm.sh wait JOBID"
  job=$1
  case "$job" in (*[!0-9]*|'') die "job id '$job' is not a number; valid: the id submit printed";; esac
  while squeue -h -j "$job" -o %i 2>/dev/null | grep -q .; do sleep 0.5; done
  # the collect job's verdict, from its exit code as scontrol remembers it (MinJobAge)
  code=$(scontrol show job "$job" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p' | head -n 1)
  [ "${code:-0}" = 0 ] || die "job $job exited with status $code (see its log)"
  exit 0
fi
[ "$cmd" = submit ] || die "unknown command '$cmd'; valid: submit, wait"
[ $# -ge 1 ] || die "submit needs an experiment name"
name=$1
shift
out='' partition='' tlimit=1:00:00 cpus=1 logs='' bin=$here/bin/pfbench
opts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; opts+=(--out "$2"); shift 2 ;;
    --partition) partition=${2:?--partition needs a name}; shift 2 ;;
    --time) tlimit=${2:?--time needs a limit}; shift 2 ;;
    --cpus) cpus=${2:?--cpus needs a number}; shift 2 ;;
    --logs) logs=${2:?--logs needs a directory}; shift 2 ;;
    --bin) bin=${2:?--bin needs a path}; shift 2 ;;
    --plan|--only|--jobs) die "'$1' is submit's own business; valid: the experiment's other options" ;;
    *) opts+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || die "missing --out DIR"
case "$cpus" in (*[!0-9]*|''|0) die "--cpus '$cpus' is not a CPU count; valid: 1 or more";; esac
[ -x "$bin" ] || die "'$bin' is not an executable pfbench; build it with make, or give --bin"
command -v sbatch >/dev/null || die "sbatch is missing: no SLURM client here"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"
out=$(cd "$out" && pwd)
# the options with --out made absolute (the jobs may start elsewhere)
for i in "${!opts[@]}"; do [ "${opts[$i]}" = --out ] && opts[$((i + 1))]=$out; done
sd=$out/slurm
logs=${logs:-$sd/logs}
mkdir -p "$sd" "$logs"
rm -rf "$sd/status"
mkdir -p "$sd/status"
"$bin" exp "$name" "${opts[@]}" --plan > "$sd/plan.txt.tmp"
mv "$sd/plan.txt.tmp" "$sd/plan.txt"
n=$(grep -c . "$sd/plan.txt" || true)

# the task: line k + 1 of the plan, its status left behind
cat > "$sd/task.sh" <<'EOF'
#!/usr/bin/env bash
sd=$1
k=${SLURM_ARRAY_TASK_ID:?not a task of an array}
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
line=$(sed -n "$((k + 1))p" "$sd/plan.txt")
echo "task $k on $(hostname -s), $OMP_NUM_THREADS threads: $line"
rc=0
bash -c "$line" || rc=$?
echo "$rc" > "$sd/status/$k"
exit "$rc"
EOF
# the collect: every task's status, then the experiment once more
cat > "$sd/collect.sh" <<'EOF'
#!/usr/bin/env bash
sd=$1 n=$2
shift 2
bad=0
for ((k = 0; k < n; k++)); do
  s=$(cat "$sd/status/$k" 2>/dev/null || echo none)
  if [ "$s" != 0 ]; then
    echo "collect: task $k failed (status $s): $(sed -n "$((k + 1))p" "$sd/plan.txt")" >&2
    bad=$((bad + 1))
  fi
done
if [ $bad -gt 0 ]; then
  echo "collect: $bad of $n tasks failed; the experiment's files are not written" >&2
  exit 1
fi
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
exec "$@"
EOF
chmod +x "$sd/task.sh" "$sd/collect.sh"
part=()
[ -n "$partition" ] && part=(--partition "$partition")
dep=()
if [ "$n" -gt 0 ]; then
  array=$(sbatch --parsable "${part[@]}" --job-name "pfb-$name" --array "0-$((n - 1))" --cpus-per-task "$cpus" \
    --time "$tlimit" --output "$logs/task_%A_%a.log" "$sd/task.sh" "$sd")
  array=${array%%;*}
  dep=(--dependency "afterany:$array" --kill-on-invalid-dep=yes)
  echo "slurm.sh: $name: $n runs as array job $array" >&2
fi
collect=$(sbatch --parsable "${part[@]}" --job-name "pfb-$name-collect" "${dep[@]}" --cpus-per-task "$cpus" \
  --time "$tlimit" --output "$logs/collect_%j.log" "$sd/collect.sh" "$sd" "$n" "$bin" exp "$name" "${opts[@]}")
collect=${collect%%;*}
echo "slurm.sh: $name: collect job $collect (log $logs/collect_$collect.log)" >&2
echo "$collect"
