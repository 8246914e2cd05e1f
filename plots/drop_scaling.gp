# drop_scaling.gp — the fitted mode-2 frequency omega of a free drop against its radius R
# (log-log), 2D and 3D side by side: markers with the fit's standard error as error bars,
# for every radius whose damped-cosine fit succeeded; the dashed line of a solver's colour
# is Rayleigh's frequency for its surface tension (only solvers with an explicit sigma);
# the grey line is the capillary scaling omega ~ R^(-3/2) through the middle of the data.
# Each panel's key gives each solver's fitted exponent b of omega ~ R^b (with its error).
# Data: DATA/drop/drop_fits.csv (solver,dim,radius,...,omega,omega_err,...,omega_rayleigh,...,fit)
# and DATA/drop/drop_summary.csv (solver,dim,sigma,exponent,exponent_err,...).
load 'plots/style.gp'

f = csvfile("drop", "drop_fits")
fsum = csvfile("drop", "drop_summary")
sel(s, d) = strcol("solver") eq s && column("dim") == d
fitted(s, d) = sel(s, d) && strcol("fit") eq "damped_cosine"
fitcond(d) = cq_is("dim", d) . " && " . cq_eq("fit", "damped_cosine") . " && " . cq_pos("radius") . " && " . cq_pos("omega")
raycond(d) = cq_is("dim", d) . " && " . cq_pos("radius") . " && " . cq_pos("omega_rayleigh")
# omega_err when it is a number, else no error bar
err(v) = (v == v) ? v : 0
# the geometric means of R and omega over the fitted rows: "Rm omegam"
gmeans(d) = awkrun(f, "(" . fitcond(d) . ")", \
  sprintf('sx += log(%s); sy += log(%s); n++', col("radius"), col("omega")), \
  'if (n) printf "%.17g %.17g", exp(sx / n), exp(sy / n)')
guide(x) = (x >= Rlo && x <= Rhi) ? gm_w * (x / gm_R)**(-1.5) : NaN
min(a, b) = (a < b) ? a : b
max(a, b) = (a > b) ? a : b

Lfit_all = present(f, cq_eq("fit", "damped_cosine") . " && " . cq_pos("radius") . " && " . cq_pos("omega"))
Lray_all = present(f, cq_pos("radius") . " && " . cq_pos("omega_rayleigh"))
K = keys(Lfit_all, "points") \
  . one(words(Lray_all) > 0, 'keyentry with lines lt 9 dt (10,6) title "Rayleigh ω_R"') \
  . one(words(Lfit_all) > 0, 'keyentry with lines ls 101 title "∝ R^{−3/2}"')

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    d = p + 1
    Lfit = present(f, fitcond(d))
    Lray = present(f, raycond(d))
    rx = minmax(f, "(" . fitcond(d) . ") || (" . raycond(d) . ")", col("radius"))
    ry1 = minmax(f, fitcond(d), col("omega") . " - (" . col("omega_err") . " + 0)")
    ry2 = minmax(f, fitcond(d), col("omega") . " + (" . col("omega_err") . " + 0)")
    ry3 = minmax(f, raycond(d), col("omega_rayleigh"))
    set logscale xy
    set samples 400
    if (mm_n(rx) > 0) {
      set xrange [mm_lo(rx) / 1.12 : mm_hi(rx) * 1.12]
      # a tic at each radius of the panel
      radii = values(f, "(" . fitcond(d) . ") || (" . raycond(d) . ")", "radius")
      tl = ""
      do for [rv in radii] { tl = tl . ((strlen(tl) > 0) ? ", " : "") . rv }
      eval "set xtics (" . tl . ")"
      set format x "%g"
    }
    if (mm_n(ry2) + mm_n(ry3) > 0) {
      ylo = (mm_n(ry1) == 0) ? mm_lo(ry3) : (mm_n(ry3) == 0) ? mm_lo(ry1) : min(mm_lo(ry1), mm_lo(ry3))
      ylo = (ylo > 0) ? ylo : ((mm_n(ry3) > 0) ? mm_lo(ry3) : mm_lo(ry2) / 2)
      yhi = (mm_n(ry2) == 0) ? mm_hi(ry3) : (mm_n(ry3) == 0) ? mm_hi(ry2) : max(mm_hi(ry2), mm_hi(ry3))
      # room at the top for the key
      set yrange [ylo / 1.25 : yhi * 2]
      eval logtics("y", ylo / 1.25, yhi * 2)
    }
    gm = gmeans(d)
    if (words(gm) == 2) {
      gm_R = word(gm, 1) + 0
      gm_w = word(gm, 2) + 0
      Rlo = mm_lo(rx) / 1.05
      Rhi = mm_hi(rx) * 1.05
    }
    # the panel's key: each fitted solver's exponent b (from the summary)
    K2 = ""
    do for [s in Lfit] {
      sc = cq_eq("solver", s) . " && " . cq_is("dim", d) . " && " . cq_num("exponent")
      b = lookup(fsum, sc, "exponent")
      be = lookup(fsum, sc, "exponent_err")
      if (strlen(b) > 0) {
        K2 = K2 . sprintf('keyentry with points lt %d title "%s%s", ', sidx(s), minus(sprintf("%.2f", b + 0)), \
                          (strlen(be) > 0 && be ne "nan") ? sprintf(" ± %.2f", be + 0) : "")
      }
    }
    if (strlen(K2) > 0) { K2 = 'keyentry with lines lt nodraw title "b in ω ∝ R^b", ' . K2 }
    set key inside top right samplen 1
    set title sprintf("%dD", d)
    set xlabel "R (m)"
    set ylabel (p == 1) ? "ω (rad s^{−1})" : ""
    D = one(words(gm) == 2, 'guide(x) with lines ls 101') \
      . each(Lray, 'f using "radius":(sel(s, d) ? column("omega_rayleigh") : NaN) with lines lt sdash(s)') \
      . each(Lfit, 'f using "radius":(fitted(s, d) ? column("omega") : NaN):(err(column("omega_err"))) with yerrorbars lt sidx(s)')
    eval draw(D, K2)
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
