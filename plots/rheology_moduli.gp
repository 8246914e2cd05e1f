# rheology_moduli.gp — the viscoelastic methods' storage and loss moduli G'(w) and
# G''(w) against the angular frequency, 2D, side by side: the reference material
# (scenes/viscoelastic.ini) as a broad grey line, each method calibrated to it (its last
# calibration start-up's Maxwell fit; for Clavet its springs' part) as a solid line,
# Mao-Yang's stated material (mu_e / 2, lambda, viscosity of scenes/rheology.ini) as
# a dashed one, and the standing waves' measured moduli at their own frequencies as
# points (for Clavet the whole material, its fluid's included).
# Data: DATA/rheology/rheology_curves.csv (solver,dim,source,omega,Gp,Gpp) and
# rheology_moduli.csv (solver,dim,omega,Gp,Gpp,Gp_stated,Gpp_stated).
load 'plots/style.gp'

fc = csvfile("rheology", "rheology_curves")
fm = csvfile("rheology", "rheology_moduli")
curve(src) = cq_eq("source", src) . " && " . cq_is("dim", 2) . " && " . cq_pos("Gp") . " && " . cq_pos("Gpp")
wavecond = cq_is("dim", 2) . " && " . cq_pos("Gp") . " && " . cq_pos("Gpp")
Lc = present(fc, curve("calibrated"))
Ls = present(fc, curve("stated"))
Lw = present(fm, wavecond)
nref = nrows(fc, cq_eq("source", "reference") . " && " . cq_pos("Gp"))
K = keys(Lc, "lines")
sel(s, src) = strcol("solver") eq s && strcol("source") eq src && column("dim") == (src eq "reference" ? 0 : 2)
cols = "Gp Gpp"
names = "G' G''"

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    c = word(cols, p)
    set logscale xy
    set xrange [1:1000]
    set format x "10^{%T}"
    set format y "10^{%T}"
    set title sprintf("%s (Pa), 2D", word(names, p))
    set xlabel "{/Symbol w} (rad/s)"
    set ylabel (p == 1) ? "modulus (Pa)" : ""
    D = ((nref > 0) ? sprintf('fc using "omega":(sel("reference", "reference") ? column("%s") : NaN) with lines lc rgb "gray60" lw 6 notitle, ', c) : "") . \
        each(Lc, sprintf('fc using "omega":(sel(s, "calibrated") ? column("%s") : NaN) with lines lt sidx(s)', c)) . \
        each(Ls, sprintf('fc using "omega":(sel(s, "stated") ? column("%s") : NaN) with lines lt sdash(s)', c)) . \
        each(Lw, sprintf('fm using "omega":((strcol("solver") eq s && column("dim") == 2) ? column("%s") : NaN) with points lt sidx(s) pt 7', c))
    eval draw(D, "")
    unset logscale xy
    set format x
    set format y
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
