#!/usr/bin/env bash
# deps.sh — install the Debian packages pfbench needs, only those missing.
#
#   scripts/deps.sh [build] [figures] [paper] [bench] [clang] [slurm] [reference] [all]
#
# Idempotent: asks dpkg which packages are installed and installs only the rest,
# with apt-get (through sudo when not root).  `build` (the default) is what
# `make` and `make test` need.
set -euo pipefail

build=(build-essential pkg-config libgsl-dev check libqhull-dev libinih-dev)
figures=(gnuplot-nox fonts-dejavu-core)
paper=(texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern latexmk)
bench=(hyperfine valgrind)
# libclang-rt-14-dev: libFuzzer and the sanitizers' runtimes for clang (make fuzz)
clang=(clang libomp-dev libclang-rt-14-dev)
slurm=(slurm-wlm munge)
# the continuum reference (make reference, test_gerris): Gerris compiles each
# expression of its input with gcc against its headers (libgfs-dev), and its
# one process still needs Open MPI's orted (openmpi-bin)
reference=(gerris libgfs-dev openmpi-bin)

want=()
[ $# -eq 0 ] && set -- build
for group in "$@"; do
  case "$group" in
    build)   want+=("${build[@]}") ;;
    figures) want+=("${figures[@]}") ;;
    paper)   want+=("${paper[@]}") ;;
    bench)   want+=("${bench[@]}") ;;
    clang)   want+=("${clang[@]}") ;;
    slurm)   want+=("${slurm[@]}") ;;
    reference) want+=("${reference[@]}") ;;
    all)     want+=("${build[@]}" "${figures[@]}" "${paper[@]}" "${bench[@]}" "${clang[@]}" "${slurm[@]}" "${reference[@]}") ;;
    *) echo "deps.sh: unknown group '$group'; valid: build, figures, paper, bench, clang, slurm, reference, all" >&2; exit 1 ;;
  esac
done

missing=()
for pkg in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps.sh: missing packages ${missing[*]} and no apt-get to install them; install them by hand" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "deps.sh: missing packages ${missing[*]}; run as root or install sudo" >&2; exit 1
  fi
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
