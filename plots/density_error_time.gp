# density_error_time.gp — density error max(rho/rho_0 - 1, 0) against time, for pool and
# dam break in 2D and 3D: the mean over the particles (solid, with markers) and the
# maximum (dashed, same colour), one colour per solver.
# The y axis is logarithmic when the panel has positive values; it spans at most three
# decades below the largest value, and smaller values (the initial lattice's ~1e-16,
# exact zeros) are drawn on the bottom axis.
# Data: DATA/volume/volume_series.csv (solver,scene,dim,t,...,density_err_mean,density_err_max).
load 'plots/style.gp'

f = csvfile("volume", "volume_series")
scenes = "pool pool dam_break dam_break"
dims = "2 3 2 3"
sel(s, sc, d) = strcol("solver") eq s && strcol("scene") eq sc && column("dim") == d
rowcond(sc, d, c) = cq_eq("scene", sc) . " && " . cq_is("dim", d) . " && " . cq_num("t") . " && " . cq_num(c)
decades = 3
clamp(v) = (v < ylo) ? ylo : v

Lall = present(f, cq_num("t") . " && (" . cq_num("density_err_mean") . " || " . cq_num("density_err_max") . ")")
K = keys(Lall, "linespoints") . one(words(Lall) > 0, \
    'keyentry with lines lt 9 title "mean", keyentry with lines lt 9 dt (10,6) title "max"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:4] {
    eval panel(2, 2, p)
    sc = word(scenes, p)
    d = word(dims, p) + 0
    Lmean = present(f, rowcond(sc, d, "density_err_mean"))
    Lmax = present(f, rowcond(sc, d, "density_err_max"))
    r1 = minmax(f, rowcond(sc, d, "density_err_mean"), col("density_err_mean"))
    r2 = minmax(f, rowcond(sc, d, "density_err_max"), col("density_err_max"))
    n = mm_n(r1) + mm_n(r2)
    hi = (mm_n(r1) == 0) ? mm_hi(r2) : (mm_n(r2) == 0) ? mm_hi(r1) : (mm_hi(r1) > mm_hi(r2) ? mm_hi(r1) : mm_hi(r2))
    lo = (mm_n(r1) == 0) ? mm_lo(r2) : (mm_n(r2) == 0) ? mm_lo(r1) : (mm_lo(r1) < mm_lo(r2) ? mm_lo(r1) : mm_lo(r2))
    unset logscale y
    set yrange [*:*]
    set format y "% h"
    set ytics autofreq
    if (n > 0 && hi > 0) {
      set logscale y
      ylo = 10**floor(log10((lo > hi * 10**(-decades)) ? lo : hi * 10**(-decades)))
      set yrange [ylo:10**ceil(log10(hi))]
      set format y "10^{%T}"
    } else {
      ylo = -1e300
      if (n > 0) { eval lintics("y", lo, hi, 4) }
    }
    npi = (words(Lmean) > 0) ? int(mm_n(r1) / words(Lmean) / 8) : 1
    npi = (npi < 1) ? 1 : npi
    set title ptitle(sc, d)
    set xlabel (p > 2) ? "t (s)" : ""
    set ylabel ""
    if (p == 1) { eval sharedylabel("ρ/ρ_0 − 1") }
    D = each(Lmax, 'f using "t":(sel(s, sc, d) ? clamp(column("density_err_max")) : NaN) with lines lt sdash(s)') \
      . each(Lmean, 'f using "t":(sel(s, sc, d) ? clamp(column("density_err_mean")) : NaN) with linespoints lt sidx(s) pi npi')
    eval draw(D, "")
    unset label 90
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
