#!/usr/bin/env bash
# figures.sh — the runs behind bench/README.md's "Current figures": each
# solver's 3D dam break (60,000 particles, 2 threads) in the flow, alternating
# solvers over two rounds, then one thread for muller and clavet's sequential
# relaxation, and mao_yang and muller at rest, and mao_yang beside muller at
# its own support and at mao_yang's, alternating; then the periodic shear wave
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
# mao_yang against muller on the same pairs: mao_yang's support is 2.5
# spacings, muller's 2 (each solver's header says why), so mao_yang's rows
# hold about twice as many pairs; muller at h_factor = 2.5 does its work over
# mao_yang's list (at rest and at t = 0.1 s in the flow, as mao_yang)
for r in 1 2; do
  m --solver mao_yang --dim 3 --n 60000 --warmup 2 --steps 6
  m --solver muller --dim 3 --n 60000 --warmup 2 --steps 20
  m --solver muller --dim 3 --n 60000 --warmup 2 --steps 20 --set h_factor=2.5
  m --solver mao_yang --dim 3 --n 60000 --warmup 159 --steps 10
  m --solver muller --dim 3 --n 60000 --warmup 1353 --steps 100
  m --solver muller --dim 3 --n 60000 --warmup 1083 --steps 100 --set h_factor=2.5
done
for S in muller miller_pearce clavet; do
  m --solver $S --scene shear_wave --dim 3 --n 29791 --steps 20 --warmup 2
done
