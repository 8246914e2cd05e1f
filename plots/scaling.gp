# scaling.gp — cost per step against the particle count N (3D dam break), two panels:
# left, the time per step t_total (with Mao–Yang's once-per-frame re-sampling spread
# over the frame's steps) in log-log, with a grey line of slope 1 (linear scaling) and
# each solver's fitted exponent b of t ∝ N^b in the panel's key; right, the same as
# nanoseconds per particle-step, with Mao–Yang's Delaunay triangulation alone dashed.
# Data: DATA/scaling/scaling_runs.csv (solver,dim,n_target,n,...,status,...,t_total,
# ns_per_particle_step,...,substeps,...,t_delaunay) and DATA/scaling/scaling_summary.csv
# (solver,dim,...,slope_total,slope_total_err,...).
load 'plots/style.gp'

f = csvfile("scaling", "scaling_runs")
fsum = csvfile("scaling", "scaling_summary")
ok(s) = strcol("solver") eq s && strcol("status") eq "ok"
okcond = cq_eq("status", "ok") . " && " . cq_pos("n") . " && " . cq_pos("t_total")
delcond = okcond . " && " . cq_pos("t_delaunay")
L = present(f, okcond)
Ld = present(f, delcond)
rx = minmax(f, okcond, col("n"))
rt = minmax(f, okcond, col("t_total"))
rn = minmax(f, okcond, col("ns_per_particle_step"))
rd = minmax(f, delcond, "1e9 * " . col("t_delaunay") . " / " . col("substeps") . " / " . col("n"))
# the slope-1 guide through the geometric mean of all points
gm = awkrun(f, "(" . okcond . ")", sprintf('sx += log(%s); sy += log(%s); n++', col("n"), col("t_total")), \
  'if (n) printf "%.17g %.17g", exp(sx / n), exp(sy / n)')
guide(x) = (words(gm) == 2) ? word(gm, 2) * x / word(gm, 1) : NaN
min(a, b) = (a < b) ? a : b
max(a, b) = (a > b) ? a : b

K = keys(L, "linespoints") \
  . one(words(Ld) > 0, sprintf('keyentry with linespoints lt %d title "Mao–Yang: Delaunay alone"', sdash("mao_yang"))) \
  . one(words(L) > 0, 'keyentry with lines ls 101 title "∝ N"')

# room for a key of three rows above the panels, and for the right panel's y label
fig_t = 0.75; fig_hx = 0.12

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    set logscale xy
    if (mm_n(rx) > 0) {
      set xrange [mm_lo(rx) / 1.5 : mm_hi(rx) * 1.5]
      eval logtics("x", mm_lo(rx) / 1.5, mm_hi(rx) * 1.5)
    }
    set xlabel "particles N"
    if (p == 1) {
      set title "time per step"
      set ylabel "t (s)"
      if (mm_n(rt) > 0) {
        set yrange [mm_lo(rt) / 2 : mm_hi(rt) * 8]
        eval logtics("y", mm_lo(rt) / 2, mm_hi(rt) * 8)
      }
      # the panel's key: each solver's exponent b (from the summary)
      K2 = ""
      do for [s in L] {
        sc = cq_eq("solver", s) . " && " . cq_num("slope_total")
        b = lookup(fsum, sc, "slope_total")
        be = lookup(fsum, sc, "slope_total_err")
        if (strlen(b) > 0) {
          K2 = K2 . sprintf('keyentry with points lt %d title "%.2f%s", ', sidx(s), b + 0, \
                            (strlen(be) > 0 && be ne "nan") ? sprintf(" ± %.2f", be + 0) : "")
        }
      }
      if (strlen(K2) > 0) { K2 = 'keyentry with lines lt nodraw title "b in t ∝ N^b", ' . K2 }
      set key inside top left samplen 1
      D = one(words(gm) == 2, 'guide(x) with lines ls 101') \
        . each(L, 'f using "n":(ok(s) ? column("t_total") : NaN) with linespoints lt sidx(s)')
      eval draw(D, K2)
    } else {
      set title "cost per particle"
      set ylabel "ns per particle-step"
      if (mm_n(rn) > 0) {
        ylo = (mm_n(rd) > 0) ? min(mm_lo(rn), mm_lo(rd)) : mm_lo(rn)
        yhi = (mm_n(rd) > 0) ? max(mm_hi(rn), mm_hi(rd)) : mm_hi(rn)
        set yrange [ylo / 2 : yhi * 2]
        eval logtics("y", ylo / 2, yhi * 2)
      }
      set key default
      set key noautotitle
      D = each(L, 'f using "n":(ok(s) ? column("ns_per_particle_step") : NaN) with linespoints lt sidx(s)') \
        . each(Ld, 'f using "n":(ok(s) && column("t_delaunay") > 0 ? 1e9 * column("t_delaunay") / column("substeps") / column("n") : NaN) with linespoints lt sdash(s)')
      eval draw(D, "")
    }
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
