# validation_cost.gp — accuracy against cost: the dam-break front's mean relative error
# against the Gerris reference (same fluid, free-slip walls; validation experiment:
# ref_err_mean, |Z_run - Z_ref| / Z_ref averaged over T = 0.5, 0.6, ..., 3) against the
# run's wall time (log-log, the threads run.meta records), each solver's resolutions
# joined, 2D solid and 3D dashed (the 3D reference is Gerris's indicative 3D run).  Read it
# as a user choosing a method: at a given time budget, the lowest curve is the most
# accurate method; a curve that flattens has reached the error refinement cannot remove
# (the method's, not the resolution's).  The thick grey line (2D solid, 3D dashed), where the
# reference has one, is the reference's own error bar (ref_bar, its largest relative
# error over the same T): an error below it is not resolved by the reference.
# Data: DATA/validation/validation_dam_break.csv (solver,dim,...,wall_seconds,...,
# ref_err_mean,...,ref_bar).
load 'plots/style.gp'

f = csvfile("validation", "validation_dam_break")
sel(s, d) = strcol("solver") eq s && column("dim") == d
cond(d) = cq_is("dim", d) . " && " . cq_pos("wall_seconds") . " && " . cq_pos("ref_err_mean")
L2 = present(f, cond(2))
L3 = present(f, cond(3))
rx = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col("wall_seconds"))
ry = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col("ref_err_mean"))
# the reference's error bar in 2D and 3D (NaN where it has none: one level only)
refbar(d) = (rb_v = lookup(f, cond(d) . " && " . cq_pos("ref_bar"), "ref_bar"), (strlen(rb_v) > 0) ? rb_v + 0 : NaN)
bar2 = refbar(2)
bar3 = refbar(3)
Lall = present(f, "(" . cond(2) . ") || (" . cond(3) . ")")
K = keys(Lall, "points") . one(words(L2) > 0, 'keyentry with lines lt 9 title "2D"') \
  . one(words(L3) > 0, 'keyentry with lines lt 9 dt 2 title "3D"')

# room for the title's two lines below the key
fig_t = 0.74

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
    # the error bars inside the range, when they are drawn
    y0 = mm_lo(ry); y1 = mm_hi(ry)
    if (bar2 == bar2) { y0 = (bar2 < y0) ? bar2 : y0; y1 = (bar2 > y1) ? bar2 : y1 }
    if (bar3 == bar3) { y0 = (bar3 < y0) ? bar3 : y0; y1 = (bar3 > y1) ? bar3 : y1 }
    ylo = declo(y0 / 1.5, y1 * 1.5)
    yhi = dechi(y0 / 1.5, y1 * 1.5)
    set yrange [ylo : yhi]
    eval logtics("y", ylo, yhi)
  }
  # the error bars' lines say what they are at their right end
  if (words(L2) > 0 && bar2 == bar2) {
    set label 81 "Gerris error bar, 2D" at graph 0.99, first bar2 right offset 0, 0.45 tc rgb c_grey font ",8"
  }
  if (words(L3) > 0 && bar3 == bar3) {
    set label 82 "Gerris error bar, 3D" at graph 0.99, first bar3 right offset 0, 0.45 tc rgb c_grey font ",8"
  }
  set title "Dam-break front against the Gerris reference (same fluid, free-slip walls):\nerror and cost"
  set xlabel "wall time of the run (s)"
  set ylabel "mean relative error of Z"
  D = one(words(L2) > 0 && bar2 == bar2, 'bar2 with lines lc rgb c_grey lw 2.5 notitle') \
    . one(words(L3) > 0 && bar3 == bar3, 'bar3 with lines lc rgb c_grey lw 2.5 dt 2 notitle') \
    . each(L2, 'f using "wall_seconds":(sel(s, 2) ? column("ref_err_mean") : NaN) with linespoints lt sidx(s) notitle') \
    . each(L3, 'f using "wall_seconds":(sel(s, 3) ? column("ref_err_mean") : NaN) with linespoints lt sdash(s) notitle')
  eval draw(D, "")
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
