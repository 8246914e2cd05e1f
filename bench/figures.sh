#!/usr/bin/env bash
# figures.sh — the runs behind bench/README.md's "Current figures": each
# solver's 3D dam break (60,000 particles, 2 threads) in the flow, alternating
# solvers over two rounds, then one thread for muller and clavet's sequential
# relaxation, and mao_yang and muller at rest; then the periodic shear wave
# (3D, 29,791 particles, 2 threads) for the three solvers on the pair engine.
# Every run simulates the calibrated fluid (--preset calibrated: the reference
# fluid, scenes/calibrated.ini), so the figures compare methods, not materials.
# Prints one line per run.
#
#   bench/figures.sh [BIN]     (default bin/pfbench)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-bin/pfbench}
[ -x "$B" ] || { echo "bench/figures.sh: $B is not built; run make" >&2; exit 1; }
export OMP_WAIT_POLICY=passive
m() { echo "$* :: $("$B" bench step --preset calibrated "$@" 2>&1 | tail -1 | grep -o 'ns_per_particle_step=[0-9.]*\|mean_ns_per_particle_step=[0-9.]*\|bytes_per_particle=[0-9]*\|dt=[0-9.e-]*' | tr '\n' ' ')"; }
for r in 1 2; do
  m --solver muller --dim 3 --n 60000 --warmup 2500 --steps 100
  m --solver miller_pearce --dim 3 --n 60000 --warmup 9000 --steps 200
  m --solver clavet --dim 3 --n 60000 --warmup 1000 --steps 100 --set solver.relaxation=jacobi
done
OMP_NUM_THREADS=1 m --solver muller --dim 3 --n 60000 --warmup 2500 --steps 100
OMP_NUM_THREADS=1 m --solver clavet --dim 3 --n 60000 --warmup 1000 --steps 50
m --solver mao_yang --dim 3 --n 60000 --steps 3 --warmup 1
m --solver muller --dim 3 --n 60000 --steps 20 --warmup 2
for S in muller miller_pearce clavet; do
  m --solver $S --scene shear_wave --dim 3 --n 29791 --steps 20 --warmup 2
done
