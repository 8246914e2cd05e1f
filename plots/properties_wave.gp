# properties_wave.gp — the shear wave's amplitude |A(t)| / A0 (the velocity's
# projection on sin(k y), A0 = 0.05 m/s) in the periodic box, 2D and 3D side by
# side, one line per solver, on a log scale: a straight line is a viscous decay of
# rate nu_eff k^2, a signal that dips to zero and returns an elastic oscillation.
# Data: DATA/properties/properties_signal.csv (solver,dim,t,amp_sin,amp_cos).
load 'plots/style.gp'

f = csvfile("properties", "properties_signal")
A0 = 0.05
sel(s, d) = strcol("solver") eq s && column("dim") == d
rowcond(d) = cq_is("dim", d) . " && " . cq_num("t") . " && " . cq_num("amp_sin")
amp(s, d) = (sel(s, d) && abs(column("amp_sin")) > 1e-6 * A0) ? abs(column("amp_sin")) / A0 : NaN
K = keys(present(f, cq_num("t") . " && " . cq_num("amp_sin")), "lines")

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    d = p + 1
    L = present(f, rowcond(d))
    set logscale y
    set yrange [1e-4:2]
    set format y "10^{%T}"
    set title sprintf("shear wave, %dD", d)
    set xlabel "t (s)"
    set ylabel (p == 1) ? "|A| / A_0" : ""
    D = each(L, 'f using "t":(amp(s, d)) with lines lt sidx(s)')
    eval draw(D, "")
    unset logscale y
    set format y
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
