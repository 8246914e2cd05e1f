# style.gp — the one look of every pfbench figure; `load 'plots/style.gp'` first thing.
#
# Each figure script is run from the top of the tree as
#   gnuplot -e "datadir='data'; outdir='plots/out'; name='NAME'" plots/NAME.gp
# and writes outdir/NAME.pdf and outdir/NAME.png.  This file provides:
#
#   solvers                  every back end, in the order keys list them
#   sidx(s), sdash(s)        linetype of solver s: solid (1-4) and dashed (5-8), same colour
#   sopen(s), slabel(s)      open point type of s (for failed runs) and its name in keys
#   sclabel(sc), ptitle(sc, d)   "dam break", "dam break, 2D"
#   formats, setterm(f), closeterm(f)   `do for [fmt in formats] { eval setterm(fmt) ...
#                            eval closeterm(fmt) }` writes the PDF, then the PNG
#   csvfile(exp, base)       datadir/exp/base.csv
#   cq_*(...), present(file, cond), minmax(file, cond, expr), nrows, values, lookup
#                            questions about a CSV, asked of awk (columns by header name):
#                            which solvers have a row matching cond, the range of a
#                            column over those rows, ...; csvrows() filters rows for plot
#   each(L, elem), one(c, elem), keys(L, style), draw(D, K)
#                            plot commands built only from the solvers that have data
#   panel(nr, nc, p), keystrip(K), sharedylabel(text)
#                            multiplot panels on a fixed grid, one key across the top
#   lintics, logtics, declo/dechi, spread, minus    tics, ranges, side-by-side markers
#
# Why the plot commands are strings: `plot for [s in L]` with an empty L still reads
# the file once ("Skipping data file with no valid points"), and a filter that keeps
# no row of a file warns "all points y value undefined".  So every figure first asks
# which solvers have rows (present), then builds its plot command from those alone
# (each) and runs it with eval (draw); a panel with no data at all says so.
#
# Fonts: pdfcairo draws a font of size F at F * fontscale * 4/3 pt, so fontscale 0.75
# gives true 10 pt text on the 16 cm x 10 cm page (page_h cm high); pngcairo draws at 96
# dpi, and fontscale 2 makes the 1200 x 750 image (75 page_h) the same page at 190 dpi
# (10 pt = 26 px).
#
# Reproducible PDFs: cairo 1.16 writes the current time as /CreationDate and ignores
# SOURCE_DATE_EPOCH; when that variable is set, closeterm() rewrites the date in place
# (same length, so the xref offsets stay valid) and the PDF is byte-reproducible.

if (!exists("datadir")) datadir = "data"
if (!exists("outdir")) outdir = "plots/out"
if (!exists("name")) name = "figure"

set encoding utf8
set minussign
set datafile separator comma

# ---- solvers: one colour and one point type each, the same in every figure ----------
solvers = "muller clavet miller_pearce mao_yang"
sidx(s) = (s eq "muller") ? 1 : (s eq "clavet") ? 2 : (s eq "miller_pearce") ? 3 : (s eq "mao_yang") ? 4 : 9
sdash(s) = sidx(s) + 4
sopen(s) = (s eq "muller") ? 6 : (s eq "clavet") ? 4 : (s eq "miller_pearce") ? 8 : (s eq "mao_yang") ? 12 : 6
slabel(s) = (s eq "muller") ? "Müller" : (s eq "clavet") ? "Clavet" : \
            (s eq "miller_pearce") ? "Miller–Pearce" : (s eq "mao_yang") ? "Mao–Yang" : s

c_muller = "#1b9e77"; c_clavet = "#d95f02"; c_miller_pearce = "#7570b3"; c_mao_yang = "#e7298a"
c_grey = "#666666"; c_lightgrey = "#d9d9d9"

set linetype 1 lc rgb c_muller        lw 1.5 pt 7  ps 0.6 dt solid
set linetype 2 lc rgb c_clavet        lw 1.5 pt 5  ps 0.55 dt solid
set linetype 3 lc rgb c_miller_pearce lw 1.5 pt 9  ps 0.75 dt solid
set linetype 4 lc rgb c_mao_yang      lw 1.5 pt 13 ps 0.75 dt solid
set linetype 5 lc rgb c_muller        lw 1.5 pt 6  ps 0.6 dt (10,6)
set linetype 6 lc rgb c_clavet        lw 1.5 pt 4  ps 0.55 dt (10,6)
set linetype 7 lc rgb c_miller_pearce lw 1.5 pt 8  ps 0.75 dt (10,6)
set linetype 8 lc rgb c_mao_yang      lw 1.5 pt 12 ps 0.75 dt (10,6)
set linetype 9 lc rgb "black"         lw 1.5 pt 1  ps 0.6 dt solid
# styles for what is not a solver: grid, reference lines, guides, failed-run marks
set style line 100 lc rgb c_lightgrey lw 0.5 dt solid
set style line 101 lc rgb c_grey lw 1 dt solid
set style line 102 lc rgb c_grey lw 1.2 dt (10,6)
set style line 103 lc rgb "black" lw 1.2 pt 2 ps 1.1

# ---- axes, grid, key -----------------------------------------------------------------
# (a string, as keystrip() unsets parts of it and sets it again for the next output)
key_style = "set key default; set key noautotitle nobox noopaque Left reverse samplen 2.5 spacing 1.15 width 0"
axes_style = "set border 31 lw 1; set xtics; set ytics; set tics scale 0.7; set mxtics default; set mytics default; " . \
  "set grid xtics ytics back ls 100; set offsets 0, 0, graph 0.05, graph 0.05; " . key_style
eval axes_style

sclabel(sc) = (sc eq "dam_break") ? "dam break" : sc
dimlabel(d) = sprintf("%dD", d)
ptitle(sc, d) = sclabel(sc) . ", " . dimlabel(d)

# ---- the two outputs -----------------------------------------------------------------
formats = "pdf png"
# the page is 16 cm wide and page_h cm high (a figure may set page_h after loading this)
page_h = 10
setterm(fmt) = (fmt eq "pdf") ? \
  sprintf("set terminal pdfcairo enhanced color font 'DejaVu Sans,10' fontscale 0.75 size 16cm,%gcm linewidth 1 rounded; set output '%s/%s.pdf'", page_h, outdir, name) : \
  sprintf("set terminal pngcairo enhanced color font 'DejaVu Sans,10' fontscale 2 size 1200,%d linewidth 1.25 pointscale 2.6 dashlength 2 rounded; set output '%s/%s.png'", int(75 * page_h + 0.5), outdir, name)

sde = system('printf "%s" "${SOURCE_DATE_EPOCH:-}"')
pdfdate = (strlen(sde) > 0) ? strftime("%Y%m%d%H%M%S", sde + 0) : ""
# The offset cairo writes after the date ("Z", or "+01'00") becomes "Z" or "+00'00".
perl_fixdate = 's{(/CreationDate\s*\(D:)\d{14}((?:Z|[+-]\d\d\x27\d\d\x27?)?)\)}{do { my ($p, $z) = ($1, $2); $z =~ s/\d/0/g; $z =~ tr/-/+/; $p . $ENV{PFB_DATE} . $z . ")" }}e'
fixdate(f) = sprintf("PFB_DATE=%s perl -0777 -pi -e '%s' '%s'", pdfdate, perl_fixdate, f)
closeterm(fmt) = (fmt eq "pdf" && strlen(pdfdate) > 0) ? \
  "set output; fixdate_out = system(fixdate(outdir . '/' . name . '.pdf'))" : "set output"

# ---- questions about a CSV (awk over the file; columns by header name) ------------------
csvfile(exp, base) = sprintf("%s/%s/%s.csv", datadir, exp, base)
# awk conditions on a row: col(c) is the field of column c
col(c) = sprintf('$(h["%s"])', c)
cq_eq(c, v) = sprintf('%s == "%s"', col(c), v)
cq_ne(c, v) = sprintf('%s != "%s"', col(c), v)
cq_is(c, x) = sprintf('(%s - (%.15g))^2 < 1e-18', col(c), x)
cq_num(c) = sprintf('(%s != "" && tolower(%s) !~ /nan|inf/)', col(c), col(c))
cq_pos(c) = sprintf('(%s && %s + 0 > 0)', cq_num(c), col(c))
awkrun(file, cond, act, fin) = system(sprintf( \
  "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } %s { %s } END { %s }' '%s' 2>/dev/null", \
  cond, act, fin, file))
# the solvers (in the order of `solvers`) with at least one row matching cond
present(file, cond) = awkrun(file, "(" . cond . ")", sprintf('seen[%s] = 1', col("solver")), \
  sprintf('n = split("%s", o, " "); s = ""; for (i = 1; i <= n; i++) if (o[i] in seen) s = s " " o[i]; print s', solvers))
# "min max count" of the awk expression e over the rows matching cond ("" when none)
minmax(file, cond, e) = awkrun(file, "(" . cond . ")", \
  sprintf('v = (%s) + 0; if (!n || v < mn) mn = v; if (!n || v > mx) mx = v; n++', e), \
  'if (n) printf "%.17g %.17g %d", mn, mx, n')
nrows(file, cond) = (nr_r = awkrun(file, "(" . cond . ")", 'n++', 'print n + 0'), (strlen(nr_r) > 0) ? nr_r + 0 : 0)
# the distinct values of column c over the rows matching cond, in file order
values(file, cond, c) = awkrun(file, "(" . cond . ")", \
  sprintf('if (!(%s in seen)) { seen[%s] = 1; s = s " " %s }', col(c), col(c), col(c)), 'print s')
mm_lo(r) = (words(r) >= 3) ? word(r, 1) + 0 : NaN
mm_hi(r) = (words(r) >= 3) ? word(r, 2) + 0 : NaN
mm_n(r) = (words(r) >= 3) ? word(r, 3) + 0 : 0
# the value of column c in the first row matching cond ("" when none)
lookup(file, cond, c) = awkrun(file, "(" . cond . ") && !done", sprintf('v = %s; done = 1', col(c)), 'printf "%s", v')
# csvrows(file, cond): the header and the rows matching cond, as a file name for plot
# ("< awk ...").  Needed to test an empty last field: gnuplot 5.4 has no column after a
# line's final comma and strcol() of it returns the previous row's value.
csvrows(file, cond) = sprintf("< awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next } %s' '%s'", cond, file)

# ---- plot commands from the solvers that have data -----------------------------------
# each(L, elem): the plot element elem once per solver s of the list L ("" for none)
each(L, elem) = (words(L) > 0) ? sprintf('for [s in "%s"] %s, ', L, elem) : ""
# one() : the element once, when cond holds
one(cond, elem) = cond ? elem . ", " : ""
# key entries of the solvers of L (with the given style: "lines", "points", "linespoints")
keys(L, style) = each(L, sprintf('keyentry with %s lt sidx(s) title slabel(s)', style))
# draw(D, K): plot the data elements D (and key entries K); an empty panel says "no data"
draw(D, K) = (strlen(D) > 0) ? sprintf("plot %s%sNaN notitle", K, D) : \
  sprintf("unset logscale; unset arrow; set format x ''; set format y ''; set label 99 'no data' at graph 0.5, 0.5 center tc rgb '%s'; plot [0:1][0:1] %sNaN notitle; unset label 99; set format x '%% h'; set format y '%% h'", c_grey, K)
# the fraction f of the way from a to b on a log axis
logfrac(a, b, f) = exp(log(a) + f * (log(b) - log(a)))
# the position of word w in the list L (0 when absent)
windex(L, w) = sum [wi_i = 1:words(L)] ((word(L, wi_i) eq w) ? wi_i : 0)
# a shift, in units of u, that puts the markers of the solvers of L side by side
spread(L, s, u) = (windex(L, s) - (words(L) + 1) / 2.0) * u

# ---- panels of a multiplot -----------------------------------------------------------
# The panels of an nr x nc grid fill [fig_l, fig_r] x [fig_b, fig_t] (screen fractions,
# the axes' frames) with gaps fig_hx, fig_hy for tic labels, axis labels and titles;
# `eval panel(nr, nc, p)` puts the next plot in panel p (counted row by row).  A
# figure may change these before its first panel.
fig_l = 0.115; fig_r = 0.97; fig_b = 0.135; fig_t = 0.80; fig_hx = 0.09; fig_hy = 0.16
pw(nc) = (fig_r - fig_l - (nc - 1) * fig_hx) / nc
ph(nr) = (fig_t - fig_b - (nr - 1) * fig_hy) / nr
px0(nc, p) = fig_l + ((p - 1) % nc) * (pw(nc) + fig_hx)
py1(nr, nc, p) = fig_t - int((p - 1) / nc) * (ph(nr) + fig_hy)
panel(nr, nc, p) = sprintf("set lmargin at screen %.4f; set rmargin at screen %.4f; set tmargin at screen %.4f; set bmargin at screen %.4f", \
  px0(nc, p), px0(nc, p) + pw(nc), py1(nr, nc, p), py1(nr, nc, p) - ph(nr))
# keystrip(K): the figure's one key (the key entries K), in rows across the top of the
# page; the last plot of a multiplot, as it unsets what the panels had set.
keystrip(K) = sprintf("set lmargin at screen 0.02; set rmargin at screen 0.98; set tmargin at screen 0.99; set bmargin at screen 0.5; unset border; unset tics; unset grid; unset title; unset xlabel; unset ylabel; unset arrow; unset label; unset object; unset logscale; %s; set key at screen 0.5, 0.995 center top horizontal; plot [0:1][0:1] %sNaN notitle; %s", key_style, K, axes_style)
# sharedylabel(text): one y label for a whole column of panels, left of the first column
# (set before the first panel is drawn, unset after it: `unset label 90`)
sharedylabel(text) = sprintf("set label 90 \"%s\" at screen 0.022, %.4f center rotate by 90", text, (fig_b + fig_t) / 2)

# ---- tics ----------------------------------------------------------------------------
# A 1-2-5 step giving at most n intervals over a range r, the decimals it needs, and the
# command setting such tics on a linear axis ("x" or "y") spanning lo..hi.
nicestep(r, n) = (r <= 0) ? 1 : (ns_m = 10**floor(log10(r / n)), ns_q = r / n / ns_m, \
  ((ns_q <= 1) ? 1 : (ns_q <= 2) ? 2 : (ns_q <= 5) ? 5 : 10) * ns_m)
decimals(st) = (st >= 1) ? 0 : int(-floor(log10(st) + 1e-9))
lintics(ax, lo, hi, n) = sprintf("set %stics %.6g; set format %s '%%.%df'", ax, nicestep(hi - lo, n), ax, decimals(nicestep(hi - lo, n)))
# tics on a log axis over lo..hi: the decades, as 10^k, when at least two fall in the
# range; else 1, 2 and 5 times each decade (and 3 when the range is short)
ndecades(lo, hi) = floor(log10(hi) + 1e-9) - ceil(log10(lo) - 1e-9) + 1
logtics(ax, lo, hi) = (ndecades(lo, hi) >= 2) ? sprintf("set %stics autofreq; set format %s '10^{%%T}'", ax, ax) : \
  sprintf("set %stics (%s); set format %s '%%h'", ax, logticlist(lo, hi), ax)
logticlist(lo, hi) = (lt_s = "", lt_k0 = floor(log10(lo)), lt_k1 = ceil(log10(hi)), \
  lt_m = (log10(hi / lo) < 1.5) ? "1 2 3 5" : "1 2 5", \
  sum [lt_k = lt_k0:lt_k1] (sum [lt_j = 1:words(lt_m)] (lt_v = word(lt_m, lt_j) * 10.0**lt_k, \
    lt_s = (lt_v >= lo / 1.0001 && lt_v <= hi * 1.0001) ? lt_s . sprintf("%s%.6g", (strlen(lt_s) ? ", " : ""), lt_v) : lt_s, 0)), lt_s)
# a log range lo..hi widened, when needed, to the decades around it so that at least
# two decade tics fall in it
declo(lo, hi) = (ndecades(lo, hi) >= 2) ? lo : 10**floor(log10(lo) + 1e-9)
dechi(lo, hi) = (ndecades(lo, hi) >= 2) ? hi : \
  (10**ceil(log10(hi) - 1e-9) > declo(lo, hi) * 1.001) ? 10**ceil(log10(hi) - 1e-9) : declo(lo, hi) * 10
# a number as text with a true minus sign
minus(t) = (t[1:1] eq "-") ? "−" . t[2:] : t
