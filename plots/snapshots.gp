# snapshots.gp — what each method does: the 2D dam break at t = 0.2, 0.4, ..., 1.0 s,
# one column per instant; the first row is the continuum reference (Gerris, the same
# fluid with free-slip walls: its liquid cells, volume fraction >= 0.5, in black), then
# one row per solver (its particles, in its colour).  Dots have the same total area in
# every row (their area falls with the count of the frame-0 column, 0.12 at 312).  The
# tank is 1 m x 0.75 m, the column started 0.25 m wide and 0.5 m high at the left.
# A run that stopped early shows where and why in the panels it did not reach; without
# the reference file the figure has no reference row.
# Data: DATA/snapshots/snapshots_particles.csv (solver,dim,frame,t,x,y,speed),
#       DATA/snapshots/snapshots_summary.csv (status, reason, frames_done per solver) and
#       REFDIR/reference_snapshots.csv (frame,t,x,y; REFDIR: the gnuplot variable refdir,
#       else data/reference).
load 'plots/style.gp'

if (!exists("refdir")) refdir = "data/reference"
f = csvfile("snapshots", "snapshots_particles")
fs = csvfile("snapshots", "snapshots_summary")
fr = refdir . "/reference_snapshots.csv"
L = present(f, cq_num("x"))
# the reference row, when its file has rows (an unreadable file has none)
hasref = (nrows(fr, cq_num("x")) > 0) ? 1 : 0
nr = hasref + ((words(L) > 0) ? words(L) : 1)
nc = 5
page_h = 2.2 + 2.05 * nr
fig_l = 0.085; fig_r = 0.995; fig_hx = 0.012; fig_hy = 0.09 / nr
fig_t = 1 - 0.75 / page_h; fig_b = 0.15 / page_h
frame_t(k) = 0.2 * k
frame_cond(s, k) = cq_eq("solver", s) . " && " . cq_is("frame", k) . " && " . cq_num("x")
ref_cond(k) = cq_is("frame", k) . " && " . cq_num("x")
# dots whose area falls with the count n (0.12 at 312), so that every row's dots
# cover the liquid alike; the reference's n is its frame-0 column's cell count
dotsize(n) = 0.12 * sqrt(312.0 / n)
nref0 = hasref ? nrows(fr, ref_cond(0)) : 0

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  unset key; unset grid; unset xtics; unset ytics; unset mxtics; unset mytics
  set border 15 lw 0.8 lc rgb c_grey
  set offsets 0, 0, 0, 0
  set xrange [0:1]; set yrange [0:0.77]
  do for [r = 1:nr] {
    isref = (hasref && r == 1)
    s = (!isref && words(L) > 0) ? word(L, r - hasref) : ""
    frames_done = (strlen(s) > 0) ? lookup(fs, cq_eq("solver", s), "frames_done") : ""
    reason = (strlen(s) > 0) ? lookup(fs, cq_eq("solver", s), "reason") : ""
    do for [k = 1:nc] {
      eval panel(nr, nc, (r - 1) * nc + k)
      if (r == 1) { set title sprintf("t = %.1f s", frame_t(k)) } else { unset title }
      if (k == 1) {
        set label 91 (isref ? "Gerris" : strlen(s) > 0 ? slabel(s) : "") at graph -0.1, 0.5 center rotate by 90 \
          tc rgb (strlen(s) > 0 ? word("#1b9e77 #d95f02 #7570b3 #e7298a", sidx(s)) : "black")
      }
      n = isref ? nrows(fr, ref_cond(k)) : (strlen(s) > 0) ? nrows(f, frame_cond(s, k)) : 0
      if (n > 0) {
        if (isref) {
          plot csvrows(fr, ref_cond(k)) using "x":"y" with points lt 9 pt 7 ps dotsize(nref0 > 0 ? nref0 : n)
        } else {
          plot csvrows(f, frame_cond(s, k)) using "x":"y" with points lt sidx(s) pt 7 ps dotsize(n)
        }
      } else {
        msg = isref ? "no data" : (strlen(s) == 0) ? "no data" : sprintf("stopped after t = %.1f s", frame_t(frames_done + 0))
        set label 92 msg at graph 0.5, 0.55 center tc rgb c_grey font ",8"
        set label 93 (strlen(reason) > 0 ? reason[1:28] : "") at graph 0.5, 0.35 center tc rgb c_grey font ",6"
        plot NaN notitle
        unset label 92; unset label 93
      }
      unset label 91
    }
  }
  unset multiplot
  eval closeterm(fmt)
}
