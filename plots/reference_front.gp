# reference_front.gp — the continuum reference's own dam-break front: its convergence
# and its check against experiment.  Gerris (Navier-Stokes, VOF) solves the 2D dam
# break of the validation (a column a = 0.25 m wide and 2a high at the left wall of a
# tank 4a x 3a) for the reference fluid; Z = x_front / a against T = t sqrt(2 g / a),
# 0 <= T <= 3.  Left: free-slip walls (the reference the methods are measured
# against), one line per level (Δx = a / 2^level), in greys, the finest darkest; the
# same set-up with water (ν = 10^-6 m^2/s) at its finest level dashed; Martin & Moyce's
# experiment (both column sizes) as symbols.  Right: no-slip walls, the same levels in
# the same greys: the front (solid) and the wetted length of the floor W (dashed, the
# contact line), which moves less at every refinement: no converged answer, which is
# why the reference has free-slip walls.  A level or file that is missing has no curve.
# Data: REFDIR/reference_dam_break_slip_L<level>.csv, reference_dam_break_noslip_L<level>.csv,
#       reference_dam_break_water_L<level>.csv ('#' provenance lines, then t,T,Z,H,ke,volume),
#       REFDIR the gnuplot variable refdir, else data/reference; and
#       martin_moyce_1952.csv (series,a_inch,T,Z) from REFDIR, else from data/reference.
load 'plots/style.gp'

if (!exists("refdir")) refdir = "data/reference"
set datafile commentschars "#"
a_m = 0.25

# the levels of a case with a file in refdir, finest last ("" for none)
levels(case) = system(sprintf("ls '%s' 2>/dev/null | sed -n 's/^reference_dam_break_%s_L\\([0-9][0-9]*\\)\\.csv$/\\1/p' | sort -n | tr '\\n' ' '", refdir, case))
reffile(case, lv) = sprintf("%s/reference_dam_break_%s_L%s.csv", refdir, case, lv)
# the data rows of a reference file ('#' lines and the header left out; 0 when unreadable)
refrows(file) = (rr_v = system(sprintf("awk '!/^#/ && h++ { n++ } END { print n + 0 }' '%s' 2>/dev/null", file)), (strlen(rr_v) > 0) ? rr_v + 0 : 0)
# the file's "# dx:" provenance line (NaN when absent)
refdx(file) = (rd_v = system(sprintf("awk '/^# dx:/ { print $3; exit }' '%s' 2>/dev/null", file)), (strlen(rd_v) > 0) ? rd_v + 0 : NaN)
# the levels of a case whose file has rows
havelevels(case) = (hl_s = "", hl_l = levels(case), \
  sum [hl_i = 1:words(hl_l)] (hl_s = (refrows(reffile(case, word(hl_l, hl_i))) > 0) ? hl_s . " " . word(hl_l, hl_i) : hl_s, 0), hl_s)
Ls = havelevels("slip")
Ln = havelevels("noslip")
Lw = havelevels("water")
wlev = (words(Lw) > 0) ? word(Lw, words(Lw)) : ""

# one grey per level over the levels of both panels: the finest black, the coarsest light
Lall = system(sprintf("echo '%s %s' | tr ' ' '\\n' | grep . | sort -n | uniq | tr '\\n' ' '", Ls, Ln))
nlev = words(Lall)
grey(lv) = (gr_k = windex(Lall, lv), gr_v = (nlev > 1) ? int(0.72 * 255 * (nlev - gr_k) / (nlev - 1.0) + 0.5) : 0, \
  sprintf("#%02x%02x%02x", gr_v, gr_v, gr_v))
levlabel(case, lv) = (ll_dx = refdx(reffile(case, lv)), (ll_dx == ll_dx) ? \
  sprintf("Δx = a/%.0f", a_m / ll_dx) : sprintf("level %s", lv))
# the first file that has a level, for the key's labels
levcase(lv) = (windex(Ls, lv) > 0) ? "slip" : "noslip"

# Martin & Moyce: refdir's copy, else the committed one
fm = (refrows(refdir . "/martin_moyce_1952.csv") > 0) ? refdir . "/martin_moyce_1952.csv" : "data/reference/martin_moyce_1952.csv"
Lmm = (refrows(fm) > 0) ? values(fm, "1", "series") : ""
mmpt(i) = word("6 4 8 12", (i - 1) % 4 + 1) + 0
mmlabel(sr) = sprintf('Martin \\& Moyce, a = %s in', lookup(fm, cq_eq("series", sr), "a_inch"))

# plot elements
curve(case, lv, style) = sprintf("'%s' using \"T\":\"Z\" with lines lc rgb '%s' %s notitle, ", reffile(case, lv), grey(lv), style)
curves(case, L, style) = (cv_s = "", sum [cv_i = 1:words(L)] (cv_s = cv_s . curve(case, word(L, cv_i), style), 0), cv_s)
mmpoints = (mp_s = "", sum [mp_i = 1:words(Lmm)] (mp_s = mp_s . sprintf("csvrows(fm, cq_eq(\"series\", \"%s\")) using \"T\":\"Z\" with points lc rgb 'black' pt %d ps 0.8 notitle, ", word(Lmm, mp_i), mmpt(mp_i)), 0), mp_s)
style_line = "lw 1.5 dt solid"
style_water = "lw 1.5 dt (8,5)"
wcolour = "#000000"
D1 = curves("slip", Ls, style_line) \
   . ((strlen(wlev) > 0) ? sprintf("'%s' using \"T\":\"Z\" with lines lc rgb '%s' %s notitle, ", reffile("water", wlev), wcolour, style_water) : "") \
   . mmpoints
# the wetted length, where the file has its column W
hasW(file) = (hw_v = system(sprintf("awk '!/^#/ { print (\",\" $0 \",\" ~ /,W,/) ? 1 : 0; exit }' '%s' 2>/dev/null", file)), hw_v eq "1")
curveW(case, lv) = hasW(reffile(case, lv)) ? sprintf("'%s' using \"T\":\"W\" with lines lc rgb '%s' lw 1.5 dt (4,3) notitle, ", \
  reffile(case, lv), grey(lv)) : ""
D2 = curves("noslip", Ln, style_line) . (cw_s = "", sum [cw_i = 1:words(Ln)] (cw_s = cw_s . curveW("noslip", word(Ln, cw_i)), 0), cw_s)

K = (kl_s = "", sum [kl_i = 1:nlev] (kl_s = kl_s . sprintf("keyentry with lines lc rgb '%s' %s title \"Gerris, %s\", ", \
      grey(word(Lall, kl_i)), style_line, levlabel(levcase(word(Lall, kl_i)), word(Lall, kl_i))), 0), kl_s) \
  . ((strlen(wlev) > 0) ? sprintf("keyentry with lines lc rgb '%s' %s title \"Gerris with water, %s\", ", wcolour, style_water, levlabel("water", wlev)) : "") \
  . (kp_s = "", sum [kp_i = 1:words(Lmm)] (kp_s = kp_s . sprintf("keyentry with points lc rgb 'black' pt %d ps 0.8 title \"%s\", ", \
      mmpt(kp_i), mmlabel(word(Lmm, kp_i))), 0), kp_s)

# the key's rows (two entries a row) above the panels' titles
fig_hx = 0.10
nkeys = nlev + ((strlen(wlev) > 0) ? 1 : 0) + words(Lmm)
fig_t = 0.82 - 0.04 * int((nkeys + 1) / 2)

do for [fmt in formats] {
  eval setterm(fmt)
  set multiplot
  do for [p = 1:2] {
    eval panel(1, 2, p)
    set xrange [0:3]
    set yrange [1:4.2]
    set offsets 0, 0, 0, 0
    eval lintics("x", 0.0, 3.0, 6)
    eval lintics("y", 1.0, 4.0, 6)
    set xlabel "T = t √(2g/a)"
    set ylabel (p == 1) ? "Z = front / a" : "Z, W (/ a)"
    set title (p == 1) ? "free-slip walls (the reference)" : "no-slip walls (dashed: wetted length)"
    # the tank's far wall
    set arrow 1 from graph 0, first 4 to graph 1, first 4 nohead ls 102 back
    set label 1 "far wall" at graph 0.02, first 4 left offset 0, -0.6 tc rgb c_grey font ",8"
    eval draw((p == 1) ? D1 : D2, "")
    unset arrow 1; unset label 1
  }
  eval keystrip(K)
  unset multiplot
  eval closeterm(fmt)
}
