# validation_convergence.gp — the validation experiment's error against the particle
# spacing (log-log), one panel per case: the dam-break front against the Gerris
# reference (same fluid, free-slip walls: ref_err_mean, the mean relative error of Z over
# T = 0.5, 0.6, ..., 3; in 3D against Gerris's indicative 3D run), the hydrostatic
# pressure (mean relative error over the slabs), the viscous decay rate against the
# reference fluid's nu, and the drop's frequency against Gerris's drop (omega_ref_err;
# 2D only: there is no 3D reference drop).  2D solid, 3D dashed, in each solver's colour;
# the grey lines are slopes 1 (dotted) and 2 (dashed) through the geometric mean of the
# lowest and highest error at the panel's coarsest 2D spacing, for reading the observed
# order; in the dam-break panel a thick horizontal grey line (2D solid, 3D dashed), where the
# reference has one, is the reference's own error bar (ref_bar).  A run without an error
# (unstable, no fit, elastic, no surface tension) has no point.
# Data: DATA/validation/validation_dam_break.csv (solver,dim,dx,...,ref_err_mean,...,ref_bar),
# validation_hydrostatic_summary.csv (solver,dim,dx,err,...), validation_viscous.csv
# (solver,dim,dx,err,...) and validation_drop.csv (solver,dim,dx,...,omega_ref_err,...).
load 'plots/style.gp'

files = csvfile("validation", "validation_dam_break") . " " . csvfile("validation", "validation_hydrostatic_summary") . " " \
      . csvfile("validation", "validation_viscous") . " " . csvfile("validation", "validation_drop")
ecols = "ref_err_mean err err omega_ref_err"
titles = "'dam break front against Gerris' 'hydrostatic pressure' 'viscous decay' 'drop frequency against Gerris'"
sel(s, d) = strcol("solver") eq s && column("dim") == d
# the value of column c in the first row of file f matching cond, as a number (NaN: none)
firstnum(f, cond, c) = (fn_v = lookup(f, cond, c), (strlen(fn_v) > 0) ? fn_v + 0 : NaN)

page_h = 13
fig_t = 0.80; fig_b = 0.10; fig_hy = 0.14

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  Lall = ""
  anybar = 0
  do for [p = 1:4] {
    f = word(files, p)
    ec = word(ecols, p)
    cond(d) = cq_is("dim", d) . " && " . cq_pos("dx") . " && " . cq_pos(ec)
    L2 = present(f, cond(2))
    L3 = present(f, cond(3))
    do for [s in L2 . " " . L3] { if (strstrt(" " . Lall . " ", " " . s . " ") == 0) { Lall = Lall . " " . s } }
    eval panel(2, 2, p)
    # the dam break's reference error bars, 2D and 3D (NaN where the reference has none)
    bar2 = (p == 1) ? firstnum(f, cond(2) . " && " . cq_pos("ref_bar"), "ref_bar") : NaN
    bar3 = (p == 1) ? firstnum(f, cond(3) . " && " . cq_pos("ref_bar"), "ref_bar") : NaN
    bar2 = (words(L2) > 0) ? bar2 : NaN
    bar3 = (words(L3) > 0) ? bar3 : NaN
    anybar = anybar || bar2 == bar2 || bar3 == bar3
    rx = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col("dx"))
    ry = minmax(f, "(" . cond(2) . ") || (" . cond(3) . ")", col(ec))
    set logscale xy
    if (mm_n(rx) > 0) {
      xlo = mm_lo(rx) / 1.3
      xhi = mm_hi(rx) * 1.3
      set xrange [xlo : xhi]
      eval logtics("x", xlo, xhi)
      # the error bars inside the range
      y0 = mm_lo(ry); y1 = mm_hi(ry)
      if (bar2 == bar2) { y0 = (bar2 < y0) ? bar2 : y0; y1 = (bar2 > y1) ? bar2 : y1 }
      if (bar3 == bar3) { y0 = (bar3 < y0) ? bar3 : y0; y1 = (bar3 > y1) ? bar3 : y1 }
      ylo = declo(y0 / 2, y1 * 2)
      yhi = dechi(y0 / 2, y1 * 2)
      set yrange [ylo : yhi]
      eval logtics("y", ylo, yhi)
      # the slope guides through the median error at the coarsest 2D spacing
      r0 = minmax(f, cond(2) . " && (" . col("dx") . sprintf(" + 0 >= %.15g)", mm_hi(minmax(f, cond(2), col("dx"))) / 1.0001), col(ec))
      g_x = (mm_n(r0) > 0) ? mm_hi(minmax(f, cond(2), col("dx"))) : NaN
      g_y = (mm_n(r0) > 0) ? sqrt(mm_lo(r0) * mm_hi(r0)) : NaN
    } else {
      g_x = NaN
      g_y = NaN
    }
    slope1(x) = g_y * (x / g_x)
    slope2(x) = g_y * (x / g_x)**2
    set title word(titles, p)
    set xlabel (p > 2) ? "Δx (m)" : ""
    set ylabel (p % 2 == 1) ? "relative error" : ""
    D = one(g_x == g_x, 'slope1(x) with lines ls 101 dt 3 notitle') \
      . one(g_x == g_x, 'slope2(x) with lines ls 101 dt 2 notitle') \
      . one(bar2 == bar2, 'bar2 with lines lc rgb c_grey lw 2.5 notitle') \
      . one(bar3 == bar3, 'bar3 with lines lc rgb c_grey lw 2.5 dt 2 notitle') \
      . each(L2, sprintf('f using "dx":(sel(s, 2) ? column("%s") : NaN) with linespoints lt sidx(s) notitle', ec)) \
      . each(L3, sprintf('f using "dx":(sel(s, 3) ? column("%s") : NaN) with linespoints lt sdash(s) notitle', ec))
    eval draw(D, "")
    unset logscale
    set xrange [*:*]
    set yrange [*:*]
  }
  K = keys(Lall, "points") . 'keyentry with lines lt 9 title "2D", keyentry with lines lt 9 dt 2 title "3D", ' \
    . 'keyentry with lines ls 101 dt 3 title "∝ Δx", keyentry with lines ls 101 dt 2 title "∝ Δx^2", ' \
    . one(anybar, 'keyentry with lines lc rgb c_grey lw 2.5 title "Gerris error bar"')
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
