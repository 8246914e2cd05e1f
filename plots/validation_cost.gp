# validation_cost.gp — accuracy against cost: the dam-break front's mean relative error
# against Martin & Moyce (validation experiment) against the run's wall time (log-log,
# the threads run.meta records), each solver's resolutions joined, 2D solid and 3D dashed.  Read it as a
# user choosing a method: at a given time budget, the lowest curve is the most
# accurate method; a curve that flattens has reached the error refinement cannot
# remove (the method's, not the resolution's).
# Data: DATA/validation/validation_dam_break.csv (solver,dim,...,err_mean,...,wall_seconds).
load 'plots/style.gp'

f = csvfile("validation", "validation_dam_break")
sel(s, d) = strcol("solver") eq s && column("dim") == d
cond(d) = cq_is("dim", d) . " && " . cq_pos("wall_seconds") . " && " . cq_pos("err_mean")
L2 = present(f, cond(2))
L3 = present(f, cond(3))
rx = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col("wall_seconds"))
ry = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col("err_mean"))
Lall = present(f, "(" . cond(2) . ") || (" . cond(3) . ")")
K = keys(Lall, "points") . one(words(L2) > 0, 'keyentry with lines lt 9 title "2D"') \
  . one(words(L3) > 0, 'keyentry with lines lt 9 dt 2 title "3D"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  eval panel(1, 1, 1)
  set logscale xy
  if (mm_n(rx) > 0) {
    xlo = declo(mm_lo(rx) / 1.5, mm_hi(rx) * 1.5)
    xhi = dechi(mm_lo(rx) / 1.5, mm_hi(rx) * 1.5)
    set xrange [xlo : xhi]
    eval logtics("x", xlo, xhi)
    ylo = declo(mm_lo(ry) / 1.5, mm_hi(ry) * 1.5)
    yhi = dechi(mm_lo(ry) / 1.5, mm_hi(ry) * 1.5)
    set yrange [ylo : yhi]
    eval logtics("y", ylo, yhi)
  }
  set title "Dam-break front against Martin and Moyce: error and cost"
  set xlabel "wall time of the run (s)"
  set ylabel "mean relative error of Z"
  D = each(L2, 'f using "wall_seconds":(sel(s, 2) ? column("err_mean") : NaN) with linespoints lt sidx(s) notitle') \
    . each(L3, 'f using "wall_seconds":(sel(s, 3) ? column("err_mean") : NaN) with linespoints lt sdash(s) notitle')
  eval draw(D, "")
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
