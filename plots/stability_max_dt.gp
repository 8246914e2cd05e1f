# stability_max_dt.gp — the largest stable time step of each solver (filled markers; s,
# log scale) for the four cases of the stability sweep on the x axis, beside the
# solver's own suggested step (open markers, joined by a thin line).  An arrow up marks
# a lower bound: every run of that sweep was stable.
# Data: DATA/stability/stability_summary.csv
#   (solver,scene,dim,dt_suggested,dt_max_stable,dt_max_stable_nd,dt_max_stable_rel,first_unstable_reason).
load 'plots/style.gp'

f = csvfile("stability", "stability_summary")
scenes = "dam_break dam_break drop drop"
dims = "2 3 2 3"
# the category (1-4) of a row, or NaN when it is none of the four
cat(sc, d) = (sc eq "dam_break") ? ((d == 2) ? 1 : (d == 3) ? 2 : NaN) : \
             (sc eq "drop") ? ((d == 2) ? 3 : (d == 3) ? 4 : NaN) : NaN
sel(s) = strcol("solver") eq s
xpos(s) = cat(strcol("scene"), column("dim")) + spread(Lsol, s, 0.13)
anycase = "(" . cq_eq("scene", "dam_break") . " || " . cq_eq("scene", "drop") . ") && (" \
        . cq_is("dim", 2) . " || " . cq_is("dim", 3) . ")"
maxcond = anycase . " && " . cq_pos("dt_max_stable")
sugcond = anycase . " && " . cq_pos("dt_suggested")
bothcond = maxcond . " && " . cq_pos("dt_suggested")
lbcond = maxcond . " && " . col("first_unstable_reason") . ' == ""'
lower_bound = 1.8       # length of the lower-bound arrows, as a factor in dt
flb = csvrows(f, lbcond)

Lmax = present(f, maxcond)
Lsug = present(f, sugcond)
Lboth = present(f, bothcond)
Llb = present(f, lbcond)
Lsol = present(f, "(" . maxcond . ") || (" . sugcond . ")")
r1 = minmax(f, maxcond, col("dt_max_stable") . " * " . sprintf("%g", lower_bound))
r2 = minmax(f, maxcond, col("dt_max_stable"))
r3 = minmax(f, sugcond, col("dt_suggested"))
n = mm_n(r1) + mm_n(r3)
lo = (mm_n(r2) == 0) ? mm_lo(r3) : (mm_n(r3) == 0) ? mm_lo(r2) : (mm_lo(r2) < mm_lo(r3) ? mm_lo(r2) : mm_lo(r3))
hi = (mm_n(r1) == 0) ? mm_hi(r3) : (mm_n(r3) == 0) ? mm_hi(r1) : (mm_hi(r1) > mm_hi(r3) ? mm_hi(r1) : mm_hi(r3))

K = keys(Lsol, "points")
# what the marks mean, in the panel's own key
K2 = one(words(Lmax) > 0, 'keyentry with points lt 9 pt 7 title "largest stable Δt"') \
   . one(words(Lsug) > 0, 'keyentry with points lt 9 pt 6 title "suggested Δt"') \
   . one(words(Llb) > 0, 'keyentry with vectors lt 9 lw 1 head filled size screen 0.012, 25 title "lower bound (all runs stable)"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  eval panel(1, 1, 1)
  set title "Largest stable time step"
  set xrange [0.5:4.5]
  set xtics ("dam break, 2D" 1, "dam break, 3D" 2, "drop, 2D" 3, "drop, 3D" 4) scale 0
  set grid noxtics ytics
  set xlabel ""
  set ylabel "Δt (s)"
  set logscale y
  if (n > 0) {
    ylo = declo(lo, hi)
    yhi = dechi(lo, hi)
    set yrange [ylo / (yhi / ylo)**0.06 : yhi * (yhi / ylo)**0.06]
    eval logtics("y", ylo, yhi)
  }
  D = each(Lboth, 'f using (xpos(s)):(sel(s) ? column("dt_suggested") : NaN):(0):(column("dt_max_stable") - column("dt_suggested")) with vectors nohead lt sidx(s) lw 0.8') \
    . each(Llb, 'flb using (xpos(s)):(sel(s) ? column("dt_max_stable") : NaN):(0):(column("dt_max_stable") * (lower_bound - 1)) with vectors head filled size screen 0.012, 25 lt sidx(s) lw 1') \
    . each(Lsug, 'f using (xpos(s)):(sel(s) ? column("dt_suggested") : NaN) with points lt sidx(s) pt sopen(s)') \
    . each(Lmax, 'f using (xpos(s)):(sel(s) ? column("dt_max_stable") : NaN) with points lt sidx(s)')
  set key inside top left
  if (strlen(D) == 0) {
    # no data: keep the four categories on an arbitrary range
    set yrange [1e-3:1e-1]
    set label 99 "no data" at graph 0.5, 0.5 center tc rgb c_grey
    D = "NaN notitle, "
  }
  eval draw(D, K2)
  unset label 99
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
