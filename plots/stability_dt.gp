# stability_dt.gp — the error of each run of the time-step sweep against the sweep's
# smallest-dt run: the centre-of-mass error max_t |com - com_ref| / L against dt relative
# to the solver's suggested step (log-log), for dam break and drop in 2D and 3D.
# Stable runs are filled markers; unstable runs have no error and are crosses near the
# top of the panel; the reference run itself (error 0) cannot be drawn on a log axis.
# The dashed vertical line is the suggested step (dt_rel = 1).
# Data: DATA/stability/stability_runs.csv (solver,scene,dim,k,dt,dt_rel,...,status,...,com_err,...).
load 'plots/style.gp'

f = csvfile("stability", "stability_runs")
scenes = "dam_break dam_break drop drop"
dims = "2 3 2 3"
sel(s, sc, d) = strcol("solver") eq s && strcol("scene") eq sc && column("dim") == d
stable(s, sc, d) = sel(s, sc, d) && strcol("status") eq "ok" && column("com_err") > 0
failed(s, sc, d) = sel(s, sc, d) && strcol("status") ne "ok"
case(sc, d) = cq_eq("scene", sc) . " && " . cq_is("dim", d) . " && " . cq_pos("dt_rel")
okcond(sc, d) = case(sc, d) . " && " . cq_eq("status", "ok") . " && " . cq_pos("com_err")
badcond(sc, d) = case(sc, d) . " && " . cq_ne("status", "ok")
# runs of different solvers share dt_rel = 2^k: their crosses sit side by side
dodge(s) = 10**spread(Lun, s, 0.05)

Lall = present(f, cq_pos("dt_rel") . " && " . cq_eq("status", "ok") . " && " . cq_pos("com_err"))
Lbad = present(f, cq_pos("dt_rel") . " && " . cq_ne("status", "ok"))
Lany = present(f, cq_pos("dt_rel"))
K = keys(Lall, "linespoints") \
  . one(words(Lbad) > 0, 'keyentry with points ls 103 title "unstable (at top)"') \
  . one(words(Lany) > 0, 'keyentry with lines ls 102 title "suggested Δt"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:4] {
    eval panel(2, 2, p)
    sc = word(scenes, p)
    d = word(dims, p) + 0
    Lok = present(f, okcond(sc, d))
    Lun = present(f, badcond(sc, d))
    rx = minmax(f, case(sc, d), col("dt_rel"))
    ry = minmax(f, okcond(sc, d), col("com_err"))
    set logscale xy
    xlo = (mm_n(rx) > 0 && mm_lo(rx) < 1) ? mm_lo(rx) : 1
    xhi = (mm_n(rx) > 0 && mm_hi(rx) > 1) ? mm_hi(rx) : 1
    set xrange [xlo / 1.6 : xhi * 1.6]
    eval logtics("x", xlo / 1.6, xhi * 1.6)
    # a log y range with at least two decade tics; the top 15% for the unstable runs
    lo = (mm_n(ry) > 0) ? mm_lo(ry) : 1e-4
    hi = (mm_n(ry) > 0) ? mm_hi(ry) : 1e-2
    lo0 = lo
    lo = declo(lo0, hi)
    hi = dechi(lo0, hi)
    ylo = lo / (hi / lo)**0.1
    yhi = hi * (hi / lo)**0.25
    yu = logfrac(ylo, yhi, 0.92)
    set yrange [ylo:yhi]
    eval logtics("y", ylo, yhi)
    set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead ls 102 back
    set title ptitle(sc, d)
    set xlabel (p > 2) ? "Δt / Δt_{suggested}" : ""
    set ylabel ""
    if (p == 1) { eval sharedylabel("centre-of-mass error / L") }
    D = each(Lok, 'f using "dt_rel":(stable(s, sc, d) ? column("com_err") : NaN) with linespoints lt sidx(s)') \
      . each(Lun, 'f using (column("dt_rel") * dodge(s)):(failed(s, sc, d) ? yu : NaN) with points lt sidx(s) pt 2 ps 1.1')
    if (mm_n(rx) == 0) { D = "" }
    eval draw(D, "")
    unset label 90
    unset arrow 1
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
