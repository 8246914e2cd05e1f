#!/usr/bin/env bash
# paper.sh — run LaTeX on paper/paper.tex and check the result (make paper calls it
# after scripts/tables.sh).
#
#   scripts/paper.sh JOB GEN FIGDIR
#
# JOB: the output's name (paper or paper-quick); GEN: the generated tables' directory
# relative to paper/ (generated or generated/quick); FIGDIR: the figures' directory
# relative to the top (plots/out or plots/out/quick).  pdflatex runs in paper/ with
# its auxiliary files in build/paper/JOB/ until the cross-references settle (at most
# four passes); the build fails, naming them, on an undefined reference or citation
# or a reference that never settled ("??" in the PDF).  The PDF is byte-reproducible:
# its dates come from SOURCE_DATE_EPOCH (the last commit's, set by make), its trailer
# ID is fixed (\pdftrailerid) and pdfTeX's file-name entries are suppressed.  It is
# copied to paper/JOB.pdf only when the checks pass.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: scripts/paper.sh JOB GEN FIGDIR  (e.g. paper generated plots/out)" >&2
  exit 2
fi
job=$1 gen=$2 fig=$3
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/paper"
[ -r "$gen/numbers.tex" ] || { echo "paper.sh: '$top/paper/$gen/numbers.tex' is missing; run scripts/tables.sh first" >&2; exit 1; }
[ -d "$top/$fig" ] || { echo "paper.sh: figure directory '$top/$fig' is missing; run make figures first" >&2; exit 1; }
out="$top/build/paper/$job"
mkdir -p "$out"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}
export FORCE_SOURCE_DATE=1
log="$out/$job.log"
for pass in 1 2 3 4; do
  echo "  PDFLATEX $job (pass $pass)"
  if ! pdflatex -interaction=nonstopmode -halt-on-error -file-line-error -output-directory="$out" \
       -jobname="$job" "\\def\\PfbGen{$gen}\\def\\PfbFig{../$fig}\\input{paper.tex}" > "$out/pdflatex.out" 2>&1; then
    grep -E -A3 '^[^ ]+:[0-9]+:|^! ' "$log" | head -30 >&2 || tail -30 "$out/pdflatex.out" >&2
    echo "paper.sh: pdflatex failed; the whole log is $log" >&2
    exit 1
  fi
  grep -q -E 'Rerun to get|Label\(s\) may have changed' "$log" || break
done
bad=$(grep -E "LaTeX Warning: (Reference|Citation) .* undefined|There were undefined references|Rerun to get|Label\(s\) may have changed|Missing character" "$log" || true)
if [ -n "$bad" ]; then
  printf '%s\n' "$bad" >&2
  echo "paper.sh: unresolved references or citations in $job (log: $log)" >&2
  exit 1
fi
cp "$out/$job.pdf" "$job.pdf.tmp" && mv "$job.pdf.tmp" "$job.pdf"
pages=$(tr -d '\n' < "$log" | grep -o '([0-9]* pages' | tr -dc '0-9')
echo "  paper/$job.pdf: $pages pages, $(stat -c %s "$job.pdf") bytes"
