#!/usr/bin/env bash
# slurm_cluster.sh — a real single-node SLURM cluster (Debian's slurm-wlm and
# munge), started by this script as root without systemd, everything in one
# directory: for CI and for trying the SLURM submission on one machine.
#
#   scripts/slurm_cluster.sh start DIR   write DIR/slurm.conf, start munged,
#                                        slurmctld and slurmd; wait for the node
#   scripts/slurm_cluster.sh stop DIR    stop them (by their pid files)
#
# Then, in the same shell: export SLURM_CONF=DIR/slurm.conf (the clients sbatch,
# squeue, scontrol read it, and through its AuthInfo the munge socket).
#
# Facts of slurm-wlm 22.05 this follows: the controller's host and the node
# are `hostname -s` at address 127.0.0.1; munged's socket directory is mode
# 755; proctrack/linuxproc and task/none need no cgroups; batch_sched_delay=0
# removes a wait of 3 s per job; `sbatch --wait` backs off up to 32 s between
# polls, so scripts/slurm.sh polls squeue itself.
set -euo pipefail
what=${1:-} dir=${2:-}
if [ -z "$what" ] || [ -z "$dir" ] || { [ "$what" != start ] && [ "$what" != stop ]; }; then
  echo "slurm_cluster.sh: usage: slurm_cluster.sh start|stop DIR" >&2
  exit 1
fi

stop_pid() { # stop the daemon whose pid file is $1 (TERM, then KILL after 5 s)
  [ -s "$1" ] || return 0
  local p
  p=$(cat "$1")
  kill "$p" 2>/dev/null || { rm -f "$1"; return 0; }
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  rm -f "$1"
}

if [ "$what" = stop ]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munged.pid"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "slurm_cluster.sh: the daemons run as root here; run as root" >&2; exit 1; }
for c in munged slurmctld slurmd sinfo; do
  command -v "$c" >/dev/null || { echo "slurm_cluster.sh: '$c' is missing; install it with scripts/deps.sh slurm" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/munge" "$dir/spool" "$dir/state"
chmod 755 "$dir" "$dir/munge" # munged refuses a socket directory others cannot read
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
# ports for the controller and the node, away from the defaults (6817, 6818)
# and from another cluster of this script (by the shell's pid)
port=$((40000 + 2 * ($$ % 10000)))
port2=$((port + 1))

# munge: its own key, socket, pid and log in DIR
if [ ! -s "$dir/munge.key" ]; then
  head -c 1024 /dev/urandom > "$dir/munge.key"
  chmod 400 "$dir/munge.key"
fi
munged --force --key-file="$dir/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"

cat > "$dir/slurm.conf" <<EOF
ClusterName=pfbench
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$port2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MinJobAge=600
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=pfbench Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
# the node idle (about 1 s)
for _ in $(seq 300); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  case "$state" in idle*) echo "slurm_cluster.sh: node $host idle ($cpus CPUs); export SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 0.1
done
echo "slurm_cluster.sh: node $host did not become idle in 30 s (state '${state:-none}'); logs in $dir" >&2
tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
