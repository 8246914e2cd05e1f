# drop_signal.gp — the mode-2 deformation D(t) of a free drop of radius R = 0.1 m
# (normalised difference of second moments; see experiments/drop.c), 2D and 3D side by
# side, one line per solver.  A cross marks where a run stopped because it went unstable.
# Data: DATA/drop/drop_signal.csv (solver,dim,radius,t,deformation) and, for the
# status of each run, DATA/drop/drop_fits.csv.
load 'plots/style.gp'

f = csvfile("drop", "drop_signal")
ffit = csvfile("drop", "drop_fits")
R0 = 0.1
sel(s, d) = strcol("solver") eq s && column("dim") == d && abs(column("radius") - R0) < 1e-9
rowcond(d) = cq_is("dim", d) . " && " . cq_is("radius", R0) . " && " . cq_num("t") . " && " . cq_num("deformation")
failcond(d) = cq_is("dim", d) . " && " . cq_is("radius", R0) . " && " . cq_ne("status", "ok")
# the last row of each solver's signal (where an unstable run stopped)
lastrows(d) = sprintf("< awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next } %s { last[%s] = $0 } END { for (s in last) print last[s] }' '%s'", rowcond(d), col("solver"), f)

Lall = present(f, cq_is("radius", R0) . " && " . cq_num("t") . " && " . cq_num("deformation"))
Lbad = present(ffit, cq_is("radius", R0) . " && " . cq_ne("status", "ok"))
K = keys(Lall, "linespoints") . one(words(Lbad) > 0, 'keyentry with points ls 103 title "run went unstable"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    d = p + 1
    L = present(f, rowcond(d))
    # the solvers whose run at R0 went unstable and that have a signal to end
    Lun = ""
    Lb = present(ffit, failcond(d))
    do for [s in Lb] { if (windex(L, s) > 0) { Lun = Lun . " " . s } }
    fl = lastrows(d)
    r = minmax(f, rowcond(d), col("deformation"))
    npi = (words(L) > 0) ? int(mm_n(r) / words(L) / 10) : 1
    npi = (npi < 1) ? 1 : npi
    if (mm_n(r) > 0) {
      am = (abs(mm_lo(r)) > abs(mm_hi(r))) ? abs(mm_lo(r)) : abs(mm_hi(r))
      eval lintics("y", -am, am, 5)
    }
    set title sprintf("%dD, R = %g m", d, R0)
    set xlabel "t (s)"
    set ylabel (p == 1) ? "deformation D" : ""
    D = each(L, 'f using "t":(sel(s, d) ? column("deformation") : NaN) with linespoints lt sidx(s) pi npi') \
      . one(words(L) > 0, '0 with lines ls 101') \
      . each(Lun, 'fl using "t":(strcol("solver") eq s ? column("deformation") : NaN) with points ls 103 lc rgb "black"')
    eval draw(D, "")
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
