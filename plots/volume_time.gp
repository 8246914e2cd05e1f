# volume_time.gp — measured volume relative to the initial one, V/V_0, against time,
# for pool and dam break in 2D and 3D; one line per solver; a reference line at 1.
# Data: DATA/volume/volume_series.csv (solver,scene,dim,t,volume_rel,...).
load 'plots/style.gp'

f = csvfile("volume", "volume_series")
scenes = "pool pool dam_break dam_break"
dims = "2 3 2 3"
sel(s, sc, d) = strcol("solver") eq s && strcol("scene") eq sc && column("dim") == d
rowcond(sc, d) = cq_eq("scene", sc) . " && " . cq_is("dim", d) . " && " . cq_num("t") . " && " . cq_num("volume_rel")

Lall = present(f, cq_num("t") . " && " . cq_num("volume_rel"))
K = keys(Lall, "linespoints") . one(words(Lall) > 0, 'keyentry with lines ls 101 title "V/V_0 = 1"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:4] {
    eval panel(2, 2, p)
    sc = word(scenes, p)
    d = word(dims, p) + 0
    L = present(f, rowcond(sc, d))
    r = minmax(f, rowcond(sc, d), col("volume_rel"))
    if (mm_n(r) > 0) {
      lo = (mm_lo(r) < 1) ? mm_lo(r) : 1
      hi = (mm_hi(r) > 1) ? mm_hi(r) : 1
      eval lintics("y", lo, hi, 4)
    }
    # about eight markers per line, whatever the number of frames
    npi = (words(L) > 0) ? int(mm_n(r) / words(L) / 8) : 1
    npi = (npi < 1) ? 1 : npi
    set title ptitle(sc, d)
    set xlabel (p > 2) ? "t (s)" : ""
    set ylabel ""
    if (p == 1) { eval sharedylabel("V / V_0") }
    D = each(L, 'f using "t":(sel(s, sc, d) ? column("volume_rel") : NaN) with linespoints lt sidx(s) pi npi') \
        . one(words(L) > 0, '1 with lines ls 101')
    eval draw(D, "")
    unset label 90
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
