# history.gp — bench/history.sh's figure: each quick case's instructions
# (callgrind, one thread) and time (one thread, median of three runs) per
# particle-step across commits, relative to the case's first commit in
# bench/history.csv (history.sh writes the two tables it reads).
#
#   gnuplot -e "datadir='data/bench'" bench/history.gp
#     reads datadir/history_instructions.dat and history_time.dat (columns: i,
#     commit, one per case), writes datadir/history.pdf and history.png
outdir = datadir
name = 'history'
load 'plots/style.gp'
set datafile separator whitespace
page_h = 14
fi = datadir . '/history_instructions.dat'
ft = datadir . '/history_time.dat'
ncol = int(system(sprintf("awk 'NR == 1 { print NF; exit }' '%s'", fi)))
nrow = int(system(sprintf("awk 'END { print NR - 1 }' '%s'", fi)))
do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot layout 2, 1
  set key outside right top vertical font ',8' autotitle columnheader noenhanced
  set grid ytics
  set xrange [0.5:nrow + 0.5]
  set xtics rotate by 60 right font ',7'
  set ylabel 'instructions / first'
  plot for [c = 3:ncol] fi using 1:c:xtic(2) with linespoints lw 1.5 pt 7 ps 0.5
  set ylabel 'time / first'
  plot for [c = 3:ncol] ft using 1:c:xtic(2) with linespoints lw 1.5 pt 7 ps 0.5
  unset multiplot
  eval closeterm(fmt)
}
