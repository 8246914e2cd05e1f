# volume_substeps.gp — the late-time volume error |V/V_0 - 1| (mean over t >= 3/4 t_end)
# against the number of substeps per frame (1, 2, 4, 8, 16; 16 is the solver's own
# suggested step), one panel per scene and dimension in the file; one line per solver.
# Unstable runs have no error: each is an open marker of the solver's colour near the top.
# Data: DATA/volume/volume_substeps.csv (solver,scene,dim,substeps,dt,status,...,vol_err_late,...).
load 'plots/style.gp'

f = csvfile("volume", "volume_substeps")
sel(s, sc, d) = strcol("solver") eq s && strcol("scene") eq sc && column("dim") == d
stable(s, sc, d) = sel(s, sc, d) && strcol("status") eq "ok"
failed(s, sc, d) = sel(s, sc, d) && strcol("status") ne "ok"
case(sc, d) = cq_eq("scene", sc) . " && " . cq_is("dim", d) . " && " . cq_pos("substeps")
okcond(sc, d) = case(sc, d) . " && " . cq_eq("status", "ok") . " && " . cq_pos("vol_err_late")
badcond(sc, d) = case(sc, d) . " && " . cq_ne("status", "ok")
# unstable markers of different solvers at one substep count sit side by side
dodge(s) = 2**spread(Lun, s, 0.12)

# the (scene, dim) cases the file has, in a fixed order
cases = ""
do for [sc in "pool dam_break"] {
  do for [d = 2:3] {
    if (nrows(f, case(sc, d)) > 0) { cases = cases . sprintf(" %s:%d", sc, d) }
  }
}
np = words(cases)
nr = (np > 2) ? 2 : 1
nc = (np > 2) ? 2 : (np < 1) ? 1 : np

Lall = present(f, cq_eq("status", "ok") . " && " . cq_pos("vol_err_late") . " && " . cq_pos("substeps"))
Lbad = present(f, cq_ne("status", "ok") . " && " . cq_pos("substeps"))
K = keys(Lall, "linespoints") \
  . one(words(Lbad) > 0, 'keyentry with points lt 9 pt 6 ps 1.1 title "unstable (at top)"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:((np > 0) ? np : 1)] {
    eval panel(nr, nc, p)
    set logscale x 2
    set logscale y
    set xtics 2
    set format x "%g"
    set xlabel "substeps per frame"
    set ylabel (p % nc == 1 || nc == 1) ? "late volume error |V/V_0 − 1|" : ""
    if (np == 0) {
      set title "volume error against substeps"
      eval draw("", "")
      continue
    }
    cs = word(cases, p)
    sc = cs[1:strstrt(cs, ":") - 1]
    d = cs[strstrt(cs, ":") + 1:] + 0
    Lok = present(f, okcond(sc, d))
    Lun = present(f, badcond(sc, d))
    rx = minmax(f, case(sc, d), col("substeps"))
    ry = minmax(f, okcond(sc, d), col("vol_err_late"))
    set xrange [mm_lo(rx) / 1.5 : mm_hi(rx) * 1.5]
    # a log y range with at least two decade tics around the errors; the top 15% for the failed runs
    lo = (mm_n(ry) > 0) ? mm_lo(ry) : 1e-3
    hi = (mm_n(ry) > 0) ? mm_hi(ry) : 1e-1
    lo0 = lo
    lo = declo(lo0, hi)
    hi = dechi(lo0, hi)
    ylo = lo / (hi / lo)**0.1
    yhi = hi * (hi / lo)**0.25
    yu = logfrac(ylo, yhi, 0.92)
    set yrange [ylo:yhi]
    eval logtics("y", ylo, yhi)
    set title ptitle(sc, d)
    D = each(Lok, 'f using "substeps":(stable(s, sc, d) ? column("vol_err_late") : NaN) with linespoints lt sidx(s)') \
      . each(Lun, 'f using (column("substeps") * dodge(s)):(failed(s, sc, d) ? yu : NaN) with points lt sidx(s) pt sopen(s) ps 1.1')
    eval draw(D, "")
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
