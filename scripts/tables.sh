#!/usr/bin/env bash
# tables.sh — the paper's tables, numbers and reproducibility appendix, generated from
# the experiments' CSVs and run.meta files, so that no number in paper/paper.tex is
# typed by hand.
#
#   scripts/tables.sh DATADIR GENDIR [QUICK]
#
# DATADIR holds calibrate/, volume/, stability/, drop/, scaling/, snapshots/, properties/,
# validation/ and rheology/ as `pfbench exp` writes them (data or data/quick); GENDIR receives
#   volume.tex stability.tex drop.tex scaling.tex properties.tex calibration.tex
#   validation_dam_break.tex validation_hydrostatic.tex validation_hydrostatic_vertical.tex
#   validation_hydrostatic_weight.tex
#   validation_viscous.tex validation_drop.tex validation_drop_damping.tex validation_drop_own.tex
#   validation_dam_break_mm.tex validation_drop_rayleigh.tex validation_drop_weak.tex
#   reference_convergence.tex reference_checks.tex rheology.tex rheology_calibration.tex
#   rheology_known.tex
#                    tabular environments
#   rheology_numbers.tex  the viscoelastic section's numbers (the rheometer's)
#   reference_numbers.tex  the continuum reference's numbers (REFDIR: the committed
#                    data/reference unless REFDIR is set; `make reference` makes it)
#   numbers.tex      \newcommand macros the text quotes (the best and worst method by
#                    each measure and its value; see the definitions below)
#   appendix.tex     provenance of every run the CSVs used (each experiment's
#                    manifest.csv): commits, compiler, flags, machine, seeds, thread
#                    counts, dates and run times per experiment
#   sources.tex      the CSV files every table came from
# Each file is written to a temporary name and renamed, so a failed run leaves the
# previous ones whole.  A missing input CSV is an error that names it.  POSIX awk
# only (Debian's default awk is mawk).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/tables.sh DATADIR GENDIR [QUICK]  (QUICK: 0 or 1)" >&2
  exit 2
fi
data=$1 gen=$2 quick=${3:-0}
case "$quick" in 0|1) ;; *) echo "tables.sh: QUICK is '$quick'; valid: 0 or 1" >&2; exit 2 ;; esac
for f in volume/volume_summary stability/stability_summary drop/drop_summary \
         scaling/scaling_summary snapshots/snapshots_summary properties/properties_summary \
         calibrate/calibration_summary calibrate/calibration_steps validation/validation_dam_break \
         validation/validation_hydrostatic_summary validation/validation_viscous validation/validation_drop validation/validation_drop_signal \
         validation/validation_order validation/validation_viscosity rheology/rheology_startup_fit \
         rheology/rheology_flow rheology/rheology_calibration rheology/rheology_scaling rheology/rheology_summary \
         rheology/rheology_known rheology/rheology_climb rheology/rheology_rest rheology/rheology_yield; do
  if [ ! -r "$data/$f.csv" ]; then
    echo "tables.sh: '$data/$f.csv' is missing; run the experiments first (make experiments$( [ "$quick" = 1 ] && echo ' QUICK=1'))" >&2
    exit 1
  fi
done
refdir=${REFDIR:-data/reference}
for f in reference_convergence reference_checks reference_runs reference_dam_break_slip reference_drop \
         reference_dam_break_water martin_moyce_1952; do
  if [ ! -r "$refdir/$f.csv" ]; then
    echo "tables.sh: '$refdir/$f.csv' is missing; it is committed (git checkout data/reference) or made by make reference" >&2
    exit 1
  fi
done
mkdir -p "$gen"
tmp=$(mktemp -d "$gen/.tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The awk functions every table shares: v(c) is the field of column c in the current
# row, solvers in the order of plots/style.gp, their names in LaTeX, and number
# formats where NaN, empty and "nan" print as a dash ...
funcs='
function v(c) { return (c in h) ? $(h[c]) : "" }
function isnum(x) { return x != "" && tolower(x) !~ /nan|inf/ }
function name(s) {
  if (s == "muller") return "M\\\"uller"
  if (s == "clavet") return "Clavet"
  if (s == "miller_pearce") return "Miller--Pearce"
  if (s == "mao_yang") return "Mao--Yang"
  return s
}
function fmt(x, spec) { return isnum(x) ? sprintf(spec, x) : "--" }
function mathnum(x) { return isnum(x) ? "$" sig3(x) "$" : "--" }
function pct(x, spec) { return isnum(x) ? sprintf(spec, 100 * x) : "--" }
# a number with three significant figures, in plain notation (no exponent) from 1e-3
# to 1e5, else as m \times 10^{e}
function sig3(x,    e, m, d) {
  if (!isnum(x)) return "--"
  x += 0
  if (x == 0) return "0"
  e = int(log((x < 0) ? -x : x) / log(10) + 1e5) - 1e5
  if (e >= -3 && e <= 4) { d = 2 - e; if (d < 0) d = 0; return sprintf("%." d "f", x) }
  m = x / (10 ^ e)
  if (m >= 9.995 || m <= -9.995) { m /= 10; e++ }
  return sprintf("%.2f \\times 10^{%d}", m, e)
}
function tex(s) {
  gsub(/\\/, "\001", s); gsub(/[_%#&$]/, "\\\\&", s); gsub(/[{}]/, "\\\\&", s)
  gsub(/~/, "\\textasciitilde{}", s); gsub(/\^/, "\\textasciicircum{}", s)
  gsub(/\001/, "\\textbackslash{}", s); return s
}
'
# ... and, for the CSV tables, the header row of each file naming the columns
csvhead='
BEGIN { FS = ","; nsol = split("muller clavet miller_pearce mao_yang", order, " ") }
FNR == 1 { delete h; for (i = 1; i <= NF; i++) h[$i] = i; next }
'
prelude="$funcs$csvhead"

# ---- volume: late volume and density errors per setup -----------------------------
awk "$prelude"'
{ s = v("solver"); k = v("scene") "/" v("dim"); seen[s] = 1
  ve[s, k] = v("vol_err_late"); de[s, k] = v("density_err_mean_late"); st[s, k] = v("status") }
# a setup the solver did not run: a dash; one that blew up: "unst."
function cell(status, x) { return (status == "") ? "--" : (status == "ok") ? pct(x, "%.1f") : "\\textit{unst.}" }
END {
  nset = split("pool/2 pool/3 dam_break/2 dam_break/3", set, " ")
  print "\\begin{tabular}{l rrrr rrrr}"
  print "\\toprule"
  print " & \\multicolumn{4}{c}{volume error $|V/V_0 - 1|$ (\\%)} & \\multicolumn{4}{c}{mean density error (\\%)} \\\\"
  print "\\cmidrule(lr){2-5}\\cmidrule(lr){6-9}"
  print "method & pool 2D & pool 3D & dam 2D & dam 3D & pool 2D & pool 3D & dam 2D & dam 3D \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    line = name(s)
    for (j = 1; j <= nset; j++) line = line " & " cell(st[s, set[j]], ve[s, set[j]])
    for (j = 1; j <= nset; j++) line = line " & " cell(st[s, set[j]], de[s, set[j]])
    print line " \\\\"
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/volume/volume_summary.csv" > "$tmp/volume.tex"

# ---- stability: the largest stable step per setup ------------------------------------
awk "$prelude"'
{ s = v("solver"); k = v("scene") "/" v("dim"); seen[s] = 1
  dt[s, k] = v("dt_max_stable"); nd[s, k] = v("dt_max_stable_nd"); rel[s, k] = v("dt_max_stable_rel")
  open[s, k] = (v("first_unstable_reason") == "") }
function cell(s, k, x, spec) {
  # every run of the sweep stable: the largest step tried is a lower bound
  if (!isnum(x)) return "--"
  return (open[s, k] ? "$\\geq$" : "") sprintf(spec, x)
}
END {
  nset = split("dam_break/2 dam_break/3 drop/2 drop/3", set, " ")
  print "\\begin{tabular}{l rrrr rr rrrr}"
  print "\\toprule"
  print " & \\multicolumn{4}{c}{$\\Delta t_{\\max}$ (ms)} & \\multicolumn{2}{c}{$\\Delta t_{\\max}\\sqrt{g/L}$} & \\multicolumn{4}{c}{$\\Delta t_{\\max} / \\Delta t_s$} \\\\"
  print "\\cmidrule(lr){2-5}\\cmidrule(lr){6-7}\\cmidrule(lr){8-11}"
  print "method & dam 2D & dam 3D & drop 2D & drop 3D & dam 2D & dam 3D & dam 2D & dam 3D & drop 2D & drop 3D \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    line = name(s)
    for (j = 1; j <= nset; j++) line = line " & " cell(s, set[j], isnum(dt[s, set[j]]) ? 1000 * dt[s, set[j]] : "", "%.3g")
    for (j = 1; j <= 2; j++) line = line " & " cell(s, set[j], nd[s, set[j]], "%.3g")
    for (j = 1; j <= nset; j++) line = line " & " cell(s, set[j], rel[s, set[j]], "%g")
    print line " \\\\"
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/stability/stability_summary.csv" > "$tmp/stability.tex"

# ---- drop: frequency exponent, Rayleigh ratio, effective surface tension -------------
awk "$prelude"'
{ s = v("solver"); d = v("dim"); seen[s] = 1
  b[s, d] = v("exponent"); be[s, d] = v("exponent_err"); r[s, d] = v("omega_ratio_mean")
  se[s, d] = v("sigma_eff_mean"); nf[s, d] = v("n_fitted") }
function pm(x, e) { return isnum(x) ? sprintf("$%.2f \\pm %.2f$", x, e) : "--" }
END {
  print "\\begin{tabular}{l rr rr rr rr}"
  print "\\toprule"
  print " & \\multicolumn{2}{c}{exponent $b$ of $\\omega \\propto R^b$} & \\multicolumn{2}{c}{$\\omega / \\omega_R$} & \\multicolumn{2}{c}{$\\sigma_\\mathrm{eff}$ (N/m)} & \\multicolumn{2}{c}{radii fitted} \\\\"
  print "\\cmidrule(lr){2-3}\\cmidrule(lr){4-5}\\cmidrule(lr){6-7}\\cmidrule(lr){8-9}"
  print "method & 2D & 3D & 2D & 3D & 2D & 3D & 2D & 3D \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    print name(s) " & " pm(b[s, 2], be[s, 2]) " & " pm(b[s, 3], be[s, 3]) " & " fmt(r[s, 2], "%.2f") " & " fmt(r[s, 3], "%.2f") \
      " & " mathnum(se[s, 2]) " & " mathnum(se[s, 3]) " & " fmt(nf[s, 2], "%d") " & " fmt(nf[s, 3], "%d") " \\\\"
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/drop/drop_summary.csv" > "$tmp/drop.tex"

# ---- scaling: exponents, cost and memory per particle --------------------------------
awk "$prelude"'
{ s = v("solver"); seen[s] = 1
  bt[s] = v("slope_total"); bte[s] = v("slope_total_err"); bl[s] = v("slope_large"); ble[s] = v("slope_large_err")
  ns[s] = v("ns_per_particle_step_max"); by[s] = v("bytes_per_particle_max"); dl[s] = v("delaunay_share_max")
  n0[s] = v("n_min"); n1[s] = v("n_max")
  bf[s] = v("slope_fixed_large"); bfe[s] = v("slope_fixed_large_err"); fi[s] = v("fixed_iters") }
function pm(x, e) { return isnum(x) ? sprintf("$%.2f \\pm %.2f$", x, e) : "--" }
END {
  print "\\begin{tabular}{l r r rrr rr r}"
  print "\\toprule"
  print "method & $N_{\\min}$ & $N_{\\max}$ & $b$ (all $N$) & $b$ ($N \\geq 10^4$) & $b$, fixed iterations ($N \\geq 10^4$) & ns per particle-step & bytes per particle & Delaunay share \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    print name(s) " & " fmt(n0[s], "%d") " & " fmt(n1[s], "%d") " & " pm(bt[s], bte[s]) " & " pm(bl[s], ble[s]) \
      " & " (isnum(fi[s]) && fi[s] > 0 ? pm(bf[s], bfe[s]) : "--") \
      " & " mathnum(ns[s]) " & " fmt(by[s], "%.0f") " & " pct(dl[s], "%.1f\\,\\%%") " \\\\"
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/scaling/scaling_summary.csv" > "$tmp/scaling.tex"

# ---- properties: each method's effective material (the same fluid) --------------------
awk "$prelude"'
{ s = v("solver"); d = v("dim"); seen[s] = 1; dims[d] = 1
  resp[s, d] = v("response"); nu[s, d] = v("nu_eff"); nue[s, d] = v("nu_err"); nus[s, d] = v("nu_set")
  G[s, d] = v("shear_modulus"); c[s, d] = v("c_eff"); sg[s, d] = v("sigma_eff"); sge[s, d] = v("sigma_err")
  sgs[s, d] = v("sigma_set"); re[s, d] = v("Re"); ma[s, d] = v("Ma"); bo[s, d] = v("Bo") }
function pmx(x, e) { return isnum(x) ? (isnum(e) ? "$" sig3(x) " \\pm " sig3(e) "$" : mathnum(x)) : "--" }
function visc(s, d) {
  if (resp[s, d] == "elastic") return "elastic, $G = " sig3(G[s, d]) "$\\,Pa"
  return pmx(nu[s, d], nue[s, d])
}
END {
  print "\\begin{tabular}{l c r l r r l r r r}"
  print "\\toprule"
  print "method & dim & $\\nu_\\mathrm{set}$ & $\\nu_\\mathrm{eff}$ (m$^2$/s) & $c_\\mathrm{eff}$ (m/s) & $\\sigma_\\mathrm{set}$ & $\\sigma_\\mathrm{eff}$ (N/m) & Re & Ma & Bo \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    for (d = 2; d <= 3; d++) {
      if (!(d in dims) || resp[s, d] == "") continue
      print name(s) " & " d "D & " mathnum(nus[s, d]) " & " visc(s, d) " & " mathnum(c[s, d]) " & " mathnum(sgs[s, d]) \
        " & " pmx(sg[s, d], sge[s, d]) " & " mathnum(re[s, d]) " & " mathnum(ma[s, d]) " & " mathnum(bo[s, d]) " \\\\"
    }
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/properties/properties_summary.csv" > "$tmp/properties.tex"

# ---- calibration: the reference fluid's targets and what each method reached ---------
awk "$prelude"'
{ s = v("solver"); p = v("property"); seen[s] = 1
  tg[p] = v("target"); a[s, p] = v("achieved"); af[s, p] = v("achieved_fine"); st[s, p] = v("status") }
function cell(s, p,    x) {
  x = st[s, p]
  if (x == "") return "-- & --"
  # out of reach: the value reached (or a dash) marked with a dagger
  return (isnum(a[s, p]) ? mathnum(a[s, p]) : "--") (x == "out_of_reach" ? "$^\\dagger$" : "") \
    " & " (x == "set" ? "set" : mathnum(af[s, p]))
}
END {
  print "\\begin{tabular}{l rr rr rr}"
  print "\\toprule"
  print " & \\multicolumn{2}{c}{$\\nu$ (m$^2$/s)} & \\multicolumn{2}{c}{$c$ (m/s)} & \\multicolumn{2}{c}{$\\sigma$ (N/m)} \\\\"
  print "\\cmidrule(lr){2-3}\\cmidrule(lr){4-5}\\cmidrule(lr){6-7}"
  print "method & reached & at $\\Delta x/2$ & reached & at $\\Delta x/2$ & reached & \\\\"
  print "\\midrule"
  print "target & " mathnum(tg["nu"]) " & & " mathnum(tg["c"]) " & & " mathnum(tg["sigma"]) " & \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) {
    s = order[i]; if (!(s in seen)) continue
    print name(s) " & " cell(s, "nu") " & " cell(s, "c") " & " cell(s, "sigma") " \\\\"
  }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/calibrate/calibration_summary.csv" > "$tmp/calibration.tex"

# ... and why a target is out of reach, as the calibration wrote it (a description list)
awk "$prelude"'
BEGIN { FS = "," }
{ s = v("solver"); if (v("status") != "out_of_reach") next
  p = v("property"); sym = p == "nu" ? "$\\nu$" : p == "c" ? "$c$" : "$\\sigma$"
  r = v("reason"); gsub(/;/, ",", r)
  n++; item[n] = "\\item[" name(s) ", " sym ":] " tex(r) }
END {
  if (n == 0) { print "Every method reaches every target."; exit }
  print "\\begin{description}\\small"
  for (i = 1; i <= n; i++) print item[i]
  print "\\end{description}"
}' "$data/calibrate/calibration_summary.csv" > "$tmp/calibration_reasons.tex"

# ---- validation: each case's error per method and resolution, with the observed order --
# valtable CSV RESCOL ERRCOL CASE RESLABEL: one row per method; per dimension the error
# (in %) at each resolution the data hold (its RESCOL, e.g. a/dx), then the observed
# order of validation_order.csv (with its standard error when three resolutions fit it);
# a run without an error (unstable, no fit, no viscosity, no surface tension) is a dash.
valtable() {
  awk -v want="$4" -v reslabel="$5" -v rescol="$2" -v errcol="$3" -v sdcol="${6:-}" "$prelude"'
  FILENAME ~ /validation_order/ { if (v("case") == want) { o[v("solver"), v("dim")] = v("order"); oe[v("solver"), v("dim")] = v("order_err") }; next }
  { s = v("solver"); d = v("dim"); r = v(rescol); seen[s] = 1
    if (!((d, r) in rs)) { rs[d, r] = 1; nr[d]++; res[d, nr[d]] = r }
    e[s, d, r] = v(errcol); st[s, d, r] = v("status"); sd[s, d, r] = (sdcol != "") ? v(sdcol) : "" }
  # with a spread over seeds (sdcol, when measured): the mean and its standard deviation
  function cell(s, d, r) { if (st[s, d, r] == "unstable") return "unst."
    if (isnum(sd[s, d, r]) && isnum(e[s, d, r])) return sprintf("$%.1f \\pm %.1f$", 100 * e[s, d, r], 100 * sd[s, d, r])
    return pct(e[s, d, r], "%.1f") }
  function ord(s, d) { if (!isnum(o[s, d])) return "--"; return isnum(oe[s, d]) ? sprintf("$%.2f \\pm %.2f$", o[s, d], oe[s, d]) : sprintf("$%.2f$", o[s, d]) }
  END {
    # resolutions in increasing order per dimension (insertion sort)
    for (d = 2; d <= 3; d++) for (i = 2; i <= nr[d]; i++) for (j = i; j > 1 && res[d, j] + 0 < res[d, j - 1] + 0; j--) {
      t = res[d, j]; res[d, j] = res[d, j - 1]; res[d, j - 1] = t }
    spec = "l"; head = "method"; top = ""; c = 2; rule = ""
    for (d = 2; d <= 3; d++) { if (!nr[d]) continue
      spec = spec " "; for (i = 0; i <= nr[d]; i++) spec = spec "r"
      top = top sprintf(" & \\multicolumn{%d}{c}{%dD: error (\\%%) at %s}", nr[d] + 1, d, reslabel)
      rule = rule sprintf("\\cmidrule(lr){%d-%d}", c, c + nr[d]); c += nr[d] + 1
      for (i = 1; i <= nr[d]; i++) head = head " & " res[d, i]
      head = head " & order" }
    print "\\begin{tabular}{" spec "}"
    print "\\toprule"
    print top " \\\\"
    print rule
    print head " \\\\"
    print "\\midrule"
    for (k = 1; k <= nsol; k++) { s = order[k]; if (!(s in seen)) continue
      line = name(s)
      for (d = 2; d <= 3; d++) { if (!nr[d]) continue
        for (i = 1; i <= nr[d]; i++) line = line " & " cell(s, d, res[d, i])
        line = line " & " ord(s, d) }
      print line " \\\\" }
    print "\\bottomrule"
    print "\\end{tabular}"
  }' "$data/validation/validation_order.csv" "$1"
}
valtable "$data/validation/validation_dam_break.csv" a_dx ref_err_mean dam_break_ref '$a/\Delta x$' > "$tmp/validation_dam_break.tex"
valtable "$data/validation/validation_dam_break.csv" a_dx err_mean dam_break '$a/\Delta x$' > "$tmp/validation_dam_break_mm.tex"
valtable "$data/validation/validation_hydrostatic_summary.csv" D_dx err hydrostatic '$D/\Delta x$' err_sd > "$tmp/validation_hydrostatic.tex"
valtable "$data/validation/validation_hydrostatic_summary.csv" D_dx err_vert hydrostatic_vertical '$D/\Delta x$' err_vert_sd > "$tmp/validation_hydrostatic_vertical.tex"
valtable "$data/validation/validation_hydrostatic_summary.csv" D_dx err_weight hydrostatic_weight '$D/\Delta x$' err_weight_sd > "$tmp/validation_hydrostatic_weight.tex"
valtable "$data/validation/validation_viscous.csv" cells err viscous '$L/\Delta x$' > "$tmp/validation_viscous.tex"
# the drop against the reference: 2D only (the reference drop is 2D)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "dim") d = i; print; next } $d == 2' \
  "$data/validation/validation_drop.csv" > "$tmp/drop2d.csv"
valtable "$tmp/drop2d.csv" R_dx omega_ref_err drop_ref '$R/\Delta x$' > "$tmp/validation_drop.tex"
valtable "$tmp/drop2d.csv" R_dx beta_ref_err drop_damping_ref '$R/\Delta x$' > "$tmp/validation_drop_damping.tex"
valtable "$tmp/drop2d.csv" R_dx omega_own_err drop_own '$R/\Delta x$' > "$tmp/validation_drop_own.tex"
valtable "$data/validation/validation_drop.csv" R_dx omega_rel_err drop '$R/\Delta x$' > "$tmp/validation_drop_rayleigh.tex"
valtable "$data/validation/validation_drop.csv" R_dx beta_rel_err drop_damping '$R/\Delta x$' > "$tmp/validation_drop_weak.tex"

# ... and the validation numbers the text quotes: per case, the method with the lowest
# error at the finest 2D resolution it ran, that error (%), and for the dam break the
# run's wall time
awk "$prelude"'
function def(n, x) { printf "\\newcommand{\\%s}{%s}\n", n, x }
# a method whose 2D dam-break bias against the reference keeps its sign over the three
# finest resolutions and moves less at each refinement converges, to another front: its
# successive moves sc_d1, sc_d2, their order sc_p = log(d1 / d2) / log(refinement) and the Richardson
# limit sc_lim of its bias (returns 0 otherwise)
# (dres: the 2D resolutions of the dam break, sorted at END)
function selfconv(s,    b1, b2, b3) {
  if (ndres < 3) return 0
  b1 = bias["dam_break", dres[ndres - 2], s]; b2 = bias["dam_break", dres[ndres - 1], s]; b3 = bias["dam_break", dres[ndres], s]
  if (!isnum(b1) || !isnum(b2) || !isnum(b3) || !(refbar + 0 > 0)) return 0
  b1 += 0; b2 += 0; b3 += 0
  if (b1 * b3 <= 0 || b2 * b3 <= 0) return 0
  sc_d1 = b2 - b1; sc_d2 = b3 - b2
  if (sc_d1 * sc_d2 <= 0 || (sc_d2 < 0 ? -sc_d2 : sc_d2) >= (sc_d1 < 0 ? -sc_d1 : sc_d1)) return 0
  sc_p = log(sc_d1 / sc_d2) / log(dres[ndres] / dres[ndres - 1]); sc_lim = b3 + sc_d2 * sc_d2 / (sc_d1 - sc_d2)
  if (sc_d1 < 0) { sc_d1 = -sc_d1; sc_d2 = -sc_d2 }
  return 1 }
# what holds a method that does not converge to the reference: its 2D order, and its
# material as measured (properties: an elastic shear modulus, the sound speed) against
# the reference fluid (the calibration target of c)
FILENAME ~ /validation_order/ { if (v("case") == "dam_break_ref" && v("dim") == 2) ord[v("solver")] = v("order"); next }
FILENAME ~ /properties_summary/ { if (v("dim") == 2) { presp[v("solver")] = v("response"); pg[v("solver")] = v("shear_modulus")
    pce[v("solver")] = v("c_eff") }; next }
FILENAME ~ /calibration_summary/ { if (v("property") == "c") ctarget = v("target"); next }
# the front against its own viscosity (validation_viscosity.csv, 2D): how far halving the
# method viscosity advances its front, against the reference (response = their ratio)
FILENAME ~ /validation_viscosity/ { if (v("dim") == 2 && isnum(v("response"))) { vsr[v("solver")] = v("s_run")
    vsf[v("solver")] = v("s_ref"); vnu[v("solver")] = v("nu_equiv_rel"); vadx[v("solver")] = v("a_dx") }; next }
{ c = FILENAME; sub(/.*validation_/, "", c); sub(/\.csv$/, "", c); sub(/_summary$/, "", c)
  if (v("dim") != 2) next
  r = (c == "dam_break") ? v("a_dx") : (c == "hydrostatic") ? v("D_dx") : (c == "viscous") ? v("cells") : v("R_dx")
  e = (c == "dam_break") ? v("ref_err_mean") : (c == "drop") ? v("omega_ref_err") : v("err")
  if (c == "dam_break") { emm[c SUBSEP r SUBSEP v("solver")] = v("err_mean"); bias[c SUBSEP r SUBSEP v("solver")] = v("ref_bias")
    if (!(("res", r) in seenr)) { seenr["res", r] = 1; dres[++ndres] = r + 0 }
    if (isnum(v("ref_bar"))) refbar = v("ref_bar")
    dstat[r SUBSEP v("solver")] = v("status") }
  if (c == "drop") { eb[c SUBSEP r SUBSEP v("solver")] = v("beta_ref_err"); eray[c SUBSEP r SUBSEP v("solver")] = v("omega_rel_err")
    if (isnum(v("omega_own")) && isnum(v("omega_ref"))) { kk = r SUBSEP v("solver"); ow[kk] = v("omega_own"); ob[kk] = v("beta_own")
      owr[kk] = v("omega_ref"); obr[kk] = v("beta_ref"); oe[kk] = v("omega_own_err"); obe[kk] = v("beta_own_err") }
    if (v("sigma_source") == "calibrated") { cal_name = v("solver"); cal_t = v("sigma"); cal_set = v("sigma_set"); cal_e0 = v("sigma_eff_set"); cal_e1 = v("sigma_eff_cal") } }
  fin[c] = (fin[c] == "" || r + 0 > fin[c] + 0) ? r : fin[c]
  if (c == "dam_break" && isnum(v("Re"))) re = v("Re")
  key = c SUBSEP r SUBSEP v("solver"); err[key] = e; sec[key] = v("wall_seconds"); cases[c] = 1; sols[v("solver")] = 1
  if (c == "hydrostatic") { rise[key] = v("surface_rise"); rdx[key] = v("dx"); ew[key] = v("err_weight") } }
END {
  for (i = 1; i <= ndres; i++) for (j = i + 1; j <= ndres; j++) if (dres[j] < dres[i]) { t = dres[i]; dres[i] = dres[j]; dres[j] = t }
  n = split("dam_break hydrostatic viscous drop", cs, " "); split("Dam Hyd Visc Drop", mac, " ")
  for (i = 1; i <= n; i++) { c = cs[i]; best = ""
    for (k = 1; k <= nsol; k++) { s = order[k]; key = c SUBSEP fin[c] SUBSEP s
      if ((key in err) && isnum(err[key]) && (best == "" || err[key] + 0 < be + 0)) { best = s; be = err[key]; bs = sec[key] } }
    def("Val" mac[i] "Best", best == "" ? "--" : name(best))
    def("Val" mac[i] "BestErr", best == "" ? "--" : sprintf("%.1f", 100 * be))
    def("Val" mac[i] "Res", fin[c] == "" ? "--" : fin[c])
    if (c == "dam_break") def("ValDamBestSec", (best == "" || !isnum(bs)) ? "--" : sprintf("%.0f", bs)) }
  # each method: its dam-break error against the reference and its bias at the finest 2D
  # resolution ("M\"uller 2.1\,\% (behind)"), and the one closest to Martin & Moyce
  list = ""; m = 0; bm = ""
  for (k = 1; k <= nsol; k++) { s = order[k]; key = "dam_break" SUBSEP fin["dam_break"] SUBSEP s
    if (!(key in err)) continue
    item[++m] = name(s) " " (isnum(err[key]) ? sprintf("%.1f\\,\\%%", 100 * err[key]) " (" (bias[key] + 0 < 0 ? "behind" : "ahead") ")" : "--")
    if (isnum(emm[key]) && (bm == "" || emm[key] + 0 < bme + 0)) { bm = s; bme = emm[key] } }
  for (k = 1; k <= m; k++) list = list (k == 1 ? "" : (k == m ? " and " : ", ")) item[k]
  def("ValDamRefList", m ? list : "--")
  def("ValDamMMBest", bm == "" ? "--" : name(bm)); def("ValDamMMBestErr", bm == "" ? "--" : sprintf("%.1f", 100 * bme))
  # the methods whose 2D front does not converge to the reference (order at most 0.5,
  # or none: a resolution that did not finish), each with what its material shows:
  # an elastic response (G against the hydrostatic pressure rho g a at the foot of the column), a
  # sound speed below the target (with the compression of the column, g a / c^2), a blow-up
  m = 0
  for (k = 1; k <= nsol; k++) { s = order[k]; if (!(s in ord)) continue
    if (isnum(ord[s]) && ord[s] + 0 > 0.5) continue
    if (((fin["dam_break"], s) in dstat) && dstat[fin["dam_break"], s] != "ok")
      why = sprintf("its run at $a/\\Delta x = %s$ blew up", fin["dam_break"])
    else if (presp[s] == "elastic" && isnum(pg[s]) && rho + 0 > 0)
      why = sprintf("its shear wave oscillates instead of decaying, an elastic modulus $G = %s$\\,Pa, %.2f times the hydrostatic pressure at the foot of the column, $\\rho g a = %s$\\,Pa: a material that resists shear at the scale of its own weight", sig3(pg[s]), pg[s] / (rho * 9.81 * 0.25), sig3(rho * 9.81 * 0.25))
    else if (isnum(pce[s]) && isnum(ctarget) && pce[s] + 0 < ctarget + 0)
      why = sprintf("its sound speed is $%s$\\,m/s, %.2f of that of the reference fluid, $%s$\\,m/s, so that the column compresses by $g a / c^2 = %.1f$\\,\\%% under its weight, against %.1f\\,\\%% at the sound speed of the reference fluid", sig3(pce[s]), pce[s] / ctarget, sig3(ctarget), 100 * 9.81 * 0.25 / (pce[s] * pce[s]), 100 * 9.81 * 0.25 / (ctarget * ctarget))
    else if (selfconv(s))
      why = sprintf("its front converges among its own resolutions (the bias against the reference moves by $%.2f$ then $%.2f$ points, an order of $%.1f$) to one %.1f\\,\\%% %s the reference, %.0f times the reference%ss error bar", 100 * sc_d1, 100 * sc_d2, sc_p, 100 * (sc_lim < 0 ? -sc_lim : sc_lim), sc_lim < 0 ? "behind" : "ahead of", (sc_lim < 0 ? -sc_lim : sc_lim) / refbar, "\047")
    else
      why = "no measured property of its material differs from that of the reference fluid"
    if (s in vsr)
      why = why sprintf("; halving its viscosity advances its front by %.1f\\,\\%% at $a/\\Delta x = %s$, the reference%ss by %.1f\\,\\%% (a response of %.2f), so that its front is that of the reference fluid at about %.2f of its viscosity", 100 * vsr[s], vadx[s], "\047", 100 * vsf[s], vsr[s] / vsf[s], vnu[s])
    item[++m] = sprintf("%s (%s): %s", name(s), isnum(ord[s]) ? sprintf("order $%.2f$", ord[s]) : "no order", why) }
  list = ""
  for (k = 1; k <= m; k++) list = list (k == 1 ? "" : (k == m ? "; and " : "; ")) item[k]
  cnt = m == 1 ? "One method does" : m == 2 ? "Two methods do" : m == 3 ? "Three methods do" : m " methods do"
  def("ValDamHeld", m ? cnt " not converge to the reference in 2D (an observed order of at most 0.5, or a resolution that did not finish): " list "." \
      : "Every method converges to the reference in 2D (an observed order above 0.5).")
  # the drops against the reference at the finest 2D resolution: frequency and damping
  list = ""; m = 0
  for (k = 1; k <= nsol; k++) { s = order[k]; key = "drop" SUBSEP fin["drop"] SUBSEP s
    if (!(key in err) || !isnum(err[key])) continue
    item[++m] = sprintf("%s (frequency %.1f\\,\\%%, damping %.0f\\,\\%%)", name(s), 100 * err[key], 100 * eb[key]) }
  list = ""
  for (k = 1; k <= m; k++) list = list (k == 1 ? "" : (k == m ? " and " : ", ")) item[k]
  def("ValDropRefList", m ? list : "no method")
  def("ValDropRefCount", m)
  # the drops against their own continuum (the same drop with the free-surface traction
  # of the viscous stress of the method) at the finest 2D resolution, and that continuum
  # against the reference drop
  list = ""; m = 0
  for (k = 1; k <= nsol; k++) { s = order[k]; kk = fin["drop"] SUBSEP s
    if (!(kk in ow)) continue
    item[++m] = sprintf("for %s, $\\omega = %.2f$\\,1/s and $\\beta = %.2f$\\,1/s, %+.1f\\,\\%% and %+.0f\\,\\%% from the reference drop%ss, and its run at $R/\\Delta x = %s$ is %s from it in frequency and %s in damping", \
      name(s), ow[kk], ob[kk], 100 * (ow[kk] / owr[kk] - 1), 100 * (ob[kk] / obr[kk] - 1), "\047", fin["drop"], \
      isnum(oe[kk]) ? sprintf("%.1f\\,\\%%", 100 * oe[kk]) : "--", isnum(obe[kk]) ? sprintf("%.0f\\,\\%%", 100 * obe[kk]) : "--") }
  for (k = 1; k <= m; k++) list = list (k == 1 ? "" : (k == m ? "; and " : "; ")) item[k]
  def("ValDropOwnList", m ? list : "no method has one")
  # the explicit sigma calibrated to the drop target (validation.c): the method, the
  # target, the set value, the Laplace sigma_eff at the target and at the set value
  def("ValDropCalName", cal_name == "" ? "--" : name(cal_name))
  def("ValDropCalTarget", isnum(cal_t) ? sprintf("%.1f", cal_t) : "--")
  def("ValDropCalSet", isnum(cal_set) ? sprintf("%.1f", cal_set) : "--")
  def("ValDropCalEffSet", isnum(cal_e0) ? sprintf("%.1f", cal_e0) : "--")
  def("ValDropCalEffCal", isnum(cal_e1) ? sprintf("%.1f", cal_e1) : "--")
  # the surface rise of the settled pools at the finest 2D resolution, in spacings, per method
  list = ""; m = 0
  for (k = 1; k <= nsol; k++) { s = order[k]; key = "hydrostatic" SUBSEP fin["hydrostatic"] SUBSEP s
    if ((key in rise) && isnum(rise[key]) && isnum(rdx[key]) && rdx[key] > 0) {
      item[++m] = sprintf("%s %.1f", name(s), rise[key] / rdx[key]) } }
  for (k = 1; k <= m; k++) list = list (k == 1 ? "" : (k == m ? " and " : ", ")) item[k]
  def("ValHydRise", m ? list : "--")
  # the largest error of the vertical stress against the weight above over the methods, same
  # resolution ("--" when a method there has none: "every method" would not hold)
  wmax = ""
  for (k = 1; k <= nsol; k++) { s = order[k]; key = "hydrostatic" SUBSEP fin["hydrostatic"] SUBSEP s
    if (!(key in ew)) continue
    if (!isnum(ew[key])) { wmax = "--"; break }
    if (wmax == "" || ew[key] + 0 > wmax + 0) wmax = ew[key] }
  def("ValHydWeightMax", (wmax == "" || wmax == "--") ? "--" : sprintf("%.1f", 100 * wmax))
  # the Reynolds number of the reference fluid at the scale of the dam-break column
  def("ValDamRe", re == "" ? "--" : sprintf("%.0f", re))
}' rho="$(sed -n 's/^# fluid: rho \([^ ]*\) .*/\1/p' "$refdir/reference_dam_break_slip.csv" 2>/dev/null)" \
   "$data/validation/validation_order.csv" "$data/properties/properties_summary.csv" \
   "$data/calibrate/calibration_summary.csv" \
   "$data/validation/validation_dam_break.csv" "$data/validation/validation_hydrostatic_summary.csv" \
   "$data/validation/validation_viscous.csv" "$data/validation/validation_drop.csv" \
   "$data/validation/validation_viscosity.csv" > "$tmp/validation_numbers.tex"

# ... and where a drop's frequency error arises, per method at each 2D resolution: the time
# of the deformation's first change of sign (the first quarter swing) and the mean
# half-period of the next two swings, against the reference drop's (finest level)
grep -v '^#' "$refdir/reference_drop.csv" > "$tmp/refdrop.csv"
awk "$prelude"'
function def(n, x) { printf "\\newcommand{\\%s}{%s}\n", n, x }
# the first three sign changes of d[key, 1..n] at t[key, 1..n], linearly interpolated, into z[1..]
function zeros(key, n,    i, m, a, b) { m = 0
  for (i = 2; i <= n && m < 3; i++) { a = d[key, i - 1]; b = d[key, i]
    if (a * b < 0) z[++m] = t[key, i - 1] + (t[key, i] - t[key, i - 1]) * a / (a - b) }
  return m }
function join(arr, m,    k, out) { out = ""; for (k = 1; k <= m; k++) out = out (k == 1 ? "" : (k == m ? " and " : ", ")) arr[k]; return out }
FILENAME ~ /refdrop/ { nr = ++cnt["ref"]; t["ref", nr] = v("t") + 0; d["ref", nr] = v("deformation") + 0; next }
{ if (v("dim") != 2) next
  key = v("solver") SUBSEP v("R_dx"); nk = ++cnt[key]; t[key, nk] = v("t") + 0; d[key, nk] = v("deformation") + 0
  if (!((v("solver"), v("R_dx")) in seen)) { seen[v("solver"), v("R_dx")] = 1; nres[v("solver")]++; res[v("solver"), nres[v("solver")]] = v("R_dx") } }
END {
  if (zeros("ref", cnt["ref"]) < 3) { def("ValDropWhere", ""); exit }
  rz1 = z[1]; rhp = (z[3] - z[1]) / 2
  out = ""
  for (k = 1; k <= nsol; k++) { s = order[k]; if (!(s in nres)) continue
    m = 0
    for (j = 1; j <= nres[s]; j++) { key = s SUBSEP res[s, j]
      if (zeros(key, cnt[key]) < 3) continue
      m++; rr[m] = "$" res[s, j] "$"; z1[m] = sprintf("$%.3f$", z[1]); hp[m] = sprintf("$%.3f$", (z[3] - z[1]) / 2) }
    if (!m) continue
    out = out sprintf("%s%s deformation first changes sign at $t = $ %s\\,s ($R/\\Delta x = $ %s), the reference drop%ss at $%.3f$\\,s; the next two half-periods of its swing last %s\\,s on average, the reference%ss $%.3f$\\,s.", \
      out == "" ? "" : "  ", name(s) "\047s", join(z1, m), join(rr, m), "\047", rz1, join(hp, m), "\047", rhp) }
  def("ValDropWhere", out)
}' "$tmp/refdrop.csv" "$data/validation/validation_drop_signal.csv" >> "$tmp/validation_numbers.tex"

# ---- the continuum reference (data/reference: pfbench exp reference, Gerris) -----------
# reference_convergence.tex: per case and quantity, the levels' values, the observed
# order and the finest level's error bar (Richardson's where the levels converge
# monotonically, else their spread); reference_checks.tex: the reference against
# experiment and theory at its finest level; reference_numbers.tex: what the text quotes.
awk "$prelude"'
function casename(c) {
  if (c == "dam_break_slip") return "dam break, free slip"
  if (c == "dam_break_noslip") return "dam break, no slip"
  if (c == "dam_break_water") return "dam break, water"
  if (c == "dam_break_half") return "dam break, $\\nu / 2$"
  if (c == "dam_break_3d") return "dam break 3D, free slip"
  if (c == "drop") return "drop"
  if (c == "drop_inviscid") return "drop, $\\nu = 10^{-3}$"
  if (c == "pool") return "pool"
  if (c == "wave") return "shear wave"
  return tex(c) }
function qname(q, x) {
  if (q == "Z") return sprintf("$Z$ at $T = %g$", x)
  if (q == "H") return sprintf("$H$ at $T = %g$", x)
  if (q == "W") return sprintf("wetted $W$ at $T = %g$", x)
  if (q == "omega") return "$\\omega$ (1/s)"
  if (q == "beta") return "$\\beta$ (1/s)"
  if (q == "p") return sprintf("$p$ at $d = %g$\\,m (Pa)", x)
  if (q == "nu") return "$\\nu$ (m$^2$/s)"
  return q }
{ c = v("case"); q = v("quantity"); x = v("x")
  # the dam breaks: Z at T = 1, 2, 3; the pool: the middle depth
  if (q == "H") next
  if (q == "Z" && x != 1 && x != 2 && x != 3) next
  if (q == "p" && x != 0.25) next
  n++; rc[n] = c; rq[n] = qname(q, x); f0[n] = v("f_coarse"); f1[n] = v("f_mid"); f2[n] = v("f_fine")
  po[n] = v("order"); fi[n] = v("f_inf"); rb[n] = v("rel_bar"); lf[n] = v("level_fine") }
END {
  print "\\begin{tabular}{l l r r r r r r}"
  print "\\toprule"
  print "case & quantity & coarse & middle & finest & order & Richardson & error bar (\\%) \\\\"
  print "\\midrule"
  for (i = 1; i <= n; i++) {
    line = ((i == 1 || rc[i] != rc[i - 1]) ? casename(rc[i]) : "") " & " rq[i] " & " mathnum(f0[i]) " & " mathnum(f1[i]) \
      " & " mathnum(f2[i]) " & " (isnum(po[i]) ? sprintf("%.2f", po[i]) : "--") " & " mathnum(fi[i]) " & " pct(rb[i], "%.2f")
    print line " \\\\" }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$refdir/reference_convergence.csv" > "$tmp/reference_convergence.tex"

awk "$prelude"'
{ c = v("case"); l = v("level") + 0
  if (!(c in fin) || l > fin[c]) fin[c] = l
  k = c SUBSEP l SUBSEP v("quantity"); val[k] = v("value"); ex[k] = v("expected"); re[k] = v("rel_err"); ag[k] = v("against") }
function row(c, q, label,    k) {
  k = c SUBSEP fin[c] SUBSEP q
  if (!(k in val)) return
  print label " & " fin[c] " & " mathnum(val[k]) " & " mathnum(ex[k]) " & " pct(re[k], "%+.1f") " & " tex(ag[k]) " \\\\" }
END {
  print "\\begin{tabular}{l r r r r l}"
  print "\\toprule"
  print "check & level & value & expected & error (\\%) & against \\\\"
  print "\\midrule"
  row("dam_break_water", "front_err_mean", "water front, mean $|$error$|$")
  row("dam_break_water", "front_err_max", "water front, largest $|$error$|$")
  row("dam_break_water", "front_bias", "water front, mean error")
  row("dam_break_slip", "front_bias", "reference fluid front, mean error")
  row("dam_break_noslip", "front_bias", "reference fluid, no slip, mean error")
  row("dam_break_slip", "volume_change", "reference fluid, volume change")
  row("drop_inviscid", "omega", "drop $\\nu = 10^{-3}$: $\\omega$ (1/s)")
  row("drop_inviscid", "beta", "drop $\\nu = 10^{-3}$: $\\beta$ (1/s)")
  row("drop", "omega", "drop, reference fluid: $\\omega$ (1/s)")
  row("drop", "beta", "drop, reference fluid: $\\beta$ (1/s)")
  row("pool", "p_d0.25", "pool: $p$ at 0.25\\,m (Pa)")
  row("wave", "nu", "shear wave: $\\nu$ (m$^2$/s)")
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$refdir/reference_checks.csv" > "$tmp/reference_checks.tex"

# the water run against Martin & Moyce with the time origin shifted by the dT
# (0 to 0.6 in steps of 0.01) that fits best: their column was released by a
# diaphragm, and a delay at the start moves every later point by the same dT
awk -F, '
FILENAME ~ /martin_moyce/ { if (FNR > 1 && $3 + 0 <= 3) { n++; mt[n] = $3 + 0; mz[n] = $4 + 0 }; next }
/^#/ { next }
!hdr { for (i = 1; i <= NF; i++) h[$i] = i; hdr = 1; next }
{ m++; T[m] = $(h["T"]) + 0; Z[m] = $(h["Z"]) + 0 }
function at(x,    i) { if (x <= T[1]) return Z[1]
  for (i = 1; i < m; i++) if (T[i] <= x && x <= T[i + 1]) return Z[i] + (Z[i + 1] - Z[i]) * (x - T[i]) / (T[i + 1] - T[i])
  return "" }
END {
  best = ""
  for (k = 0; k <= 60; k++) { dt = 0.01 * k; s = 0; mx = 0
    for (i = 1; i <= n; i++) { z = at(mt[i] - dt); e = (z - mz[i]) / mz[i]; e = e < 0 ? -e : e; s += e; if (e > mx) mx = e }
    if (best == "" || s / n < best) { best = s / n; bdt = dt; bmx = mx } }
  printf "\\newcommand{\\RefWaterShift}{%.2f}\n\\newcommand{\\RefWaterShiftErrMean}{%.1f}\n\\newcommand{\\RefWaterShiftErrMax}{%.1f}\n", bdt, 100 * best, 100 * bmx
}' "$refdir/martin_moyce_1952.csv" "$refdir/reference_dam_break_water.csv" > "$tmp/refshift.tex"
# the numbers: the error bars (the finest CSVs' "# error bar" lines), the levels and
# spacings, the checks, the no-slip front per level and the CPU time of make reference
{
  bar() { sed -n 's/^# error bar: //p' "$refdir/$1.csv" | head -1; }
  lev() { sed -n 's/^# level: //p' "$refdir/$1.csv" | head -1; }
  gdx() { sed -n 's/^# dx: //p' "$refdir/$1.csv" | head -1; }
  ver() { sed -n 's/^# gerris: //p' "$refdir/$1.csv" | head -1; }
  echo "slipbar,dropbar,slipdx,droplev,dropdx,bar3,version"
  printf '%s,%s,%s,%s,%s,%s,%s\n' "$(bar reference_dam_break_slip)" "$(bar reference_drop)" "$(gdx reference_dam_break_slip)" \
    "$(lev reference_drop)" "$(gdx reference_drop)" "$(bar reference_dam_break_3d 2>/dev/null || true)" \
    "$(ver reference_dam_break_slip | tr -d ,)"
} > "$tmp/refhead.txt"
awk "$prelude"'
function def(n, x) { printf "\\newcommand{\\%s}{%s}\n", n, x }
FILENAME ~ /refhead/ { slipbar = v("slipbar"); dropbar = v("dropbar"); slipdx = v("slipdx"); dropdx = v("dropdx"); bar3 = v("bar3")
  ver = v("version"); next }
FILENAME ~ /reference_checks/ { c = v("case"); l = v("level") + 0; if (!(c in fin) || l > fin[c]) fin[c] = l
  k = c SUBSEP l SUBSEP v("quantity"); val[k] = v("value"); re[k] = v("rel_err"); ex[k] = v("expected"); next }
FILENAME ~ /reference_convergence/ { if (v("case") == "dam_break_noslip" && v("quantity") == "Z" && v("x") == 3) {
    nsz = sprintf("%.2f, %.2f and %.2f", v("f_coarse"), v("f_mid"), v("f_fine")); nso = v("order") }
  if (v("case") == "dam_break_noslip" && v("quantity") == "W" && v("x") == 3) {
    nsw = sprintf("%.2f, %.2f and %.2f", v("f_coarse"), v("f_mid"), v("f_fine")); nswo = v("order"); nswb = v("rel_bar") }
  if (v("case") == "dam_break_slip" && v("quantity") == "Z" && v("x") == 3) { sz3 = v("f_fine") }
  # the drop: the difference of the two finest levels in omega (relative)
  if (v("case") == "drop" && v("quantity") == "omega" && isnum(v("f_mid"))) dfd = (v("f_fine") - v("f_mid")) / v("f_fine")
  # the drop: each quantity with its bar and, when the levels converge monotonically, its order
  if (v("case") == "drop") { dbar[v("quantity")] = v("rel_bar"); dord[v("quantity")] = v("order") }
  next }
FILENAME ~ /reference_runs/ { cpu += v("cpu_seconds"); if (v("cpu_seconds") + 0 > cmax) { cmax = v("cpu_seconds") + 0; cmaxn = v("case") ", level " v("level") }
  lv[v("case")] = lv[v("case")] (lv[v("case")] == "" ? "" : ", ") v("level"); next }
function chk(c, q) { return re[c SUBSEP fin[c] SUBSEP q] }
function chv(c, q) { return val[c SUBSEP fin[c] SUBSEP q] }
function che(c, q) { return ex[c SUBSEP fin[c] SUBSEP q] }
END {
  def("RefVersion", tex(ver))
  def("RefSlipBar", pct(slipbar, "%.2f")); def("RefDropBar", pct(dropbar, "%.2f")); def("RefThreeBar", pct(bar3, "%.1f"))
  def("RefSlipAdx", isnum(slipdx) ? sprintf("%.0f", 0.25 / slipdx) : "--")
  def("RefDropRdx", isnum(dropdx) ? sprintf("%.0f", 0.1 / dropdx) : "--")
  def("RefSlipLevels", lv["dam_break_slip"]); def("RefDropLevels", lv["drop"]); def("RefThreeLevels", lv["dam_break_3d"])
  def("RefSlipZthree", isnum(sz3) ? sprintf("%.3f", sz3) : "--")
  def("RefDropFineDiff", isnum(dfd) ? sprintf("%.2f", 100 * (dfd < 0 ? -dfd : dfd)) : "--")
  def("RefDropOmegaBar", pct(dbar["omega"], "%.2f")); def("RefDropBetaBar", pct(dbar["beta"], "%.1f"))
  # how the frequency bar was made: the Richardson estimate (monotone levels) or their spread
  if (isnum(dord["omega"]))
    def("RefDropHow", sprintf("the Richardson estimate: the three levels converge monotonically in the frequency, at order %.1f", dord["omega"]))
  else
    def("RefDropHow", "the spread of the three levels: they do not converge monotonically in the frequency")
  def("RefWaterErrMean", pct(chk("dam_break_water", "front_err_mean"), "%.1f"))
  def("RefWaterErrMax", pct(chk("dam_break_water", "front_err_max"), "%.1f"))
  def("RefWaterBias", pct(chk("dam_break_water", "front_bias"), "%+.1f"))
  def("RefSlipBiasMM", pct(chk("dam_break_slip", "front_bias"), "%+.1f"))
  def("RefNoslipZ", nsz == "" ? "--" : nsz)
  def("RefNoslipOrder", isnum(nso) ? sprintf("%.2f", nso) : "--")
  def("RefNoslipW", nsw == "" ? "--" : nsw)
  def("RefNoslipWOrder", isnum(nswo) ? sprintf("%.2f", nswo) : "none (the levels do not converge monotonically)")
  def("RefNoslipWBar", pct(nswb, "%.0f"))
  def("RefInvOmegaErr", pct(chk("drop_inviscid", "omega"), "%+.1f"))
  def("RefInvBetaErr", pct(chk("drop_inviscid", "beta"), "%+.1f"))
  def("RefDropOmegaRatio", isnum(chv("drop", "omega")) ? sprintf("%.3f", chv("drop", "omega") / che("drop", "omega")) : "--")
  def("RefDropBetaRatio", isnum(chv("drop", "beta")) ? sprintf("%.2f", chv("drop", "beta") / che("drop", "beta")) : "--")
  def("RefDropOmega", isnum(chv("drop", "omega")) ? sprintf("%.3f", chv("drop", "omega")) : "--")
  def("RefDropBeta", isnum(chv("drop", "beta")) ? sprintf("%.2f", chv("drop", "beta")) : "--")
  def("RefPoolErr", pct(chk("pool", "p_d0.25"), "%+.2f")); def("RefWaveErr", pct(chk("wave", "nu"), "%+.2f"))
  def("RefCpuMin", sprintf("%.0f", cpu / 60)); def("RefCpuMaxMin", sprintf("%.0f", cmax / 60)); def("RefCpuMaxName", tex(cmaxn))
}' "$tmp/refhead.txt" "$refdir/reference_checks.csv" "$refdir/reference_convergence.csv" "$refdir/reference_runs.csv" \
  > "$tmp/reference_numbers.tex"
cat "$tmp/refshift.tex" >> "$tmp/reference_numbers.tex"

# ---- rheology: the viscoelastic methods' material (pfbench exp rheology) --------------
# The start-up fits (the whole stress, and clavet's springs' part) against what the
# parameters state; the calibration to the viscoelastic reference, every iteration.
# The reason fields come before no column read here but the calibration's reference
# columns, and the experiment writes that file's reasons without commas.
awk "$prelude"'
function pm(x) { return isnum(x) ? sprintf("%+.1f", 100 * x) : "--" }
{ if (v("status") != "ok" || (v("part") != "total" && v("part") != "springs")) next
  s = v("solver"); n[s]++; row[s, n[s]] = name(s) " & " v("dim") "D & " fmt(1000 * v("dx"), "%.1f") " & " v("part") \
    " & " mathnum(v("G")) " & " mathnum(v("lambda")) " & " mathnum(v("eta_s")) " & " mathnum(v("rms")) " & " \
    mathnum(v("G_stated")) " & " mathnum(v("lambda_stated")) " & " pm(v("G_rel")) " & " pm(v("lambda_rel")) " \\\\" }
END {
  print "\\begin{tabular}{l c r l r r r r r r r r}"
  print "\\toprule"
  print "method & dim & $\\Delta x$ (mm) & part & $G$ (Pa) & $\\lambda$ (s) & $\\eta_s$ (Pa\\,s) & rms (Pa) & $G_\\mathrm{stated}$ & $\\lambda_\\mathrm{stated}$ & $\\Delta G$ (\\%) & $\\Delta\\lambda$ (\\%) \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) { s = order[i]; for (k = 1; k <= n[s]; k++) print row[s, k] }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/rheology/rheology_startup_fit.csv" > "$tmp/rheology.tex"

awk "$prelude"'
function pm(x) { return isnum(x) ? sprintf("%+.1f", 100 * x) : "--" }
{ s = v("solver"); if (isnum(v("G_ref"))) { rg = v("G_ref"); rl = v("lambda_ref"); re = v("eta_s_ref") }
  if (v("status") == "newtonian") next
  pr = v("params"); gsub(/"/, "", pr)
  n[s]++; row[s, n[s]] = name(s) " & " v("dim") "D & " fmt(1000 * v("dx"), "%.1f") " & " v("iteration") " & \\texttt{" \
    tex(pr) "} & " mathnum(v("G")) " & " mathnum(v("lambda")) " & " mathnum(v("eta_s")) " & " pm(v("G_rel")) \
    " & " pm(v("lambda_rel")) " & " pm(v("eta_s_rel")) " \\\\" }
END {
  print "\\begin{tabular}{l c r c l r r r r r r}"
  print "\\toprule"
  print "method & dim & $\\Delta x$ (mm) & it. & parameters & $G$ (Pa) & $\\lambda$ (s) & $\\eta_s$ (Pa\\,s) & $\\Delta G$ (\\%) & $\\Delta\\lambda$ (\\%) & $\\Delta\\eta_s$ (\\%) \\\\"
  print "\\midrule"
  print "reference & & & & & " mathnum(rg) " & " mathnum(rl) " & " mathnum(re) " & & & \\\\"
  print "\\midrule"
  for (i = 1; i <= nsol; i++) { s = order[i]; for (k = 1; k <= n[s]; k++) print row[s, k] }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/rheology/rheology_calibration.csv" > "$tmp/rheology_calibration.tex"

# the flows with a known answer: each case's rows, method by method, with the error per
# resolution, the order, the kinetic energy's gain and (the blob) the recovery, the run's
# against the model's
awk "$prelude"'
function rec(x) { return isnum(x) ? sprintf("%.1f", 100 * x) : "--" }
{ s = v("solver"); c = v("case"); if (c == "balls") next  # (the yardstick'"'"'s row: rheology_numbers)
  if (!(c in cseen)) { cseen[c] = 1; cases[++nc] = c }
  n[c, s]++
  row[c, s, n[c, s]] = name(s) " & " v("cells") " & " fmt(1000 * v("dx"), "%.2f") " & " \
    (v("status") == "ok" ? pct(v("err_max"), "%.1f") " & " pct(v("err_rms"), "%.1f") : (v("status") == "refused" ? "refused & --" : "unst. & --")) " & " \
    fmt(v("order"), "%.2f") " & " mathnum(v("ke_gain")) " & " \
    (isnum(v("recovery_model")) ? rec(v("recovery")) " / " rec(v("recovery_model")) : "") " \\\\" }
END {
  title["standing_wave"] = "standing wave, reference material ($L/\\Delta x$)"
  title["blob"] = "blob, reference material ($R/\\Delta x$)"
  title["blob_stated"] = "blob, Mao--Yang'"'"'s stated material ($R/\\Delta x$)"
  title["blob_newtonian"] = "blob, reference fluid ($R/\\Delta x$)"
  title["blob_newtonian_nosigma"] = "blob, reference fluid without surface tension ($R/\\Delta x$)"
  print "\\begin{tabular}{l r r r r r r c}"
  print "\\toprule"
  print "method & cells & $\\Delta x$ (mm) & max error (\\%) & rms error (\\%) & order & KE gain & recovery (\\%) \\\\"
  nf = split("standing_wave blob blob_stated blob_newtonian blob_newtonian_nosigma", fixed, " "); m = 0
  for (j = 1; j <= nf; j++) if (fixed[j] in cseen) { ord[++m] = fixed[j]; done[fixed[j]] = 1 }
  for (j = 1; j <= nc; j++) if (!(cases[j] in done)) ord[++m] = cases[j]
  for (j = 1; j <= m; j++) { c = ord[j]
    print "\\midrule"
    print "\\multicolumn{8}{l}{\\textit{" ((c in title) ? title[c] : tex(c)) "}} \\\\"
    for (i = 1; i <= nsol; i++) { s = order[i]; for (k = 1; k <= n[c, s]; k++) print row[c, s, k] } }
  print "\\bottomrule"
  print "\\end{tabular}"
}' "$data/rheology/rheology_known.csv" > "$tmp/rheology_known.tex"

# the numbers the viscoelastic section quotes, at each method's finest 2D setup (the
# smallest 2D spacing with a start-up); "--" where the data cannot give one
awk "$prelude"'
function def(n, x) { printf "\\newcommand{\\%s}{%s}\n", n, x }
function pc(x) { return isnum(x) ? "$" sprintf("%+.1f", 100 * x) "$\\,\\%" : "--" }
FILENAME ~ /rheology_startup_fit/ {
  s = v("solver"); d = v("dim"); p = v("part")
  if (v("status") == "refused") { if (!(s in refd)) { refd[s] = 1; nref++; refn[nref] = name(s) } ; next }
  if (v("status") != "ok") next
  # a Newtonian method (G 0, no lambda): its finest 2D start-up, eta and what it states
  if (p == "total" && isnum(v("G")) && v("G") + 0 == 0 && !isnum(v("lambda"))) { nw[s] = 1
    if (d == 2 && (!(s in nwd) || v("dx") + 0 < nwd[s] + 0)) { nwd[s] = v("dx"); nwe[s] = v("eta_s"); nws[s] = v("eta_s_stated") } }
  if (d == 2 && (!(s in f2) || v("dx") + 0 < f2[s] + 0)) f2[s] = v("dx")
  k = s SUBSEP d SUBSEP v("dx") SUBSEP p
  G[k] = v("G"); L[k] = v("lambda"); Gs[k] = v("G_stated"); Ls[k] = v("lambda_stated"); Gr[k] = v("G_rel")
  Lr[k] = v("lambda_rel"); rms[k] = v("rms")
  if (s == "mao_yang" && p == "total") { ms = ms (ms == "" ? "" : "; ") pc(v("G_rel")) " and " pc(v("lambda_rel")) \
    " (" d "D, $\\Delta x = " sprintf("%g", 1000 * v("dx")) "$\\,mm)" }
  next }
FILENAME ~ /rheology_flow/ {
  s = v("solver"); if (v("status") != "ok") next
  # a Newtonian method'"'"'s 2D flow curve against its waves'"'"' viscosity (sigma_model / rate), per spacing
  if ((s in nw) && v("part") == "total" && v("dim") == 2 && v("yield") + 0 == 0 && isnum(v("rel"))) {
    k = s SUBSEP v("dx"); q = ++nn[k]; nr[k, q] = v("rel") + 0; nq[k, q] = v("shear_rate") + 0
    nwv[k] = v("sigma_model") / v("shear_rate") }
  if (s == "mao_yang" && v("part") == "total" && isnum(v("rel"))) { r = v("rel") + 0; if (r < 0) r = -r; if (r > fmax) fmax = r; fseen = 1 }
  if (v("part") == "fluid" && v("dim") == 2) { k = s SUBSEP v("dx"); fl[k, ++nf[k]] = v("sigma"); fr[k, nf[k]] = v("shear_rate") }
  next }
FILENAME ~ /rheology_calibration/ {
  s = v("solver"); if (isnum(v("G_ref"))) { rg = v("G_ref"); rl = v("lambda_ref"); re = v("eta_s_ref") }
  if (v("status") != "ok" || v("dim") != 2) next
  k = s SUBSEP v("dx"); it = v("iteration") + 0
  cg[k, it] = v("G_rel"); cl[k, it] = v("lambda_rel"); ce[k, it] = v("eta_s_rel"); if (!(k in cmax) || it > cmax[k]) cmax[k] = it
  next }
FILENAME ~ /rheology_scaling/ {
  s = v("solver"); p = v("param")
  sg[s, p] = v("dlnG_dlnp"); sl[s, p] = v("dlnlambda_dlnp")
  next }
FILENAME ~ /rheology_summary/ {
  s = v("solver"); if (v("dim") == 2) { wg[s, v("dx")] = v("G"); wr[s, v("dx")] = v("G_rel") }
  next }
FILENAME ~ /rheology_known/ {
  if (v("case") == "balls") { pr = v("params"); gsub(/"/, "", pr); split(pr, kv, " ")
    for (q in kv) { split(kv[q], pq, "="); bl[pq[1]] = pq[2] }
    next }
  s = v("solver") SUBSEP v("case"); if (v("status") != "ok") { kbad[s] = 1; next }
  nk[s]++; ke[s, nk[s]] = v("err_max"); kcl[s, nk[s]] = v("cells"); ko[s, nk[s]] = v("order")
  krec[s] = v("recovery"); krecm[s] = v("recovery_model")
  if (v("case") == "blob_stated") { pr = v("params"); gsub(/"/, "", pr); split(pr, kv, " ")
    for (q in kv) { split(kv[q], pq, "="); st[pq[1]] = pq[2] } }
  if (isnum(v("ke_gain"))) { g = v("ke_gain") + 0; if (!(s in kglo) || g < kglo[s]) kglo[s] = g; if (!(s in kghi) || g > kghi[s]) kghi[s] = g }
  next }
# "$6.0$, $2.2$ and $1.6$\,\% <what> at 10, 20 and 40 <unit> (observed orders $1.41$ and $0.51$)"
function klist(s, what, unit,   t, cs2, o, q, sep) { t = ""; cs2 = ""; o = ""
  if (nk[s] == 0 || (s in kbad)) return "--"
  for (q = 1; q <= nk[s]; q++) {
    sep = (q == 1) ? "" : (q == nk[s] ? " and " : ", ")
    t = t sep "$" sprintf("%.1f", 100 * ke[s, q]) "$"; cs2 = cs2 sep kcl[s, q]
    if (isnum(ko[s, q])) o = o (o == "" ? "" : " and ") "$" sprintf("%.2f", ko[s, q]) "$" }
  return t "\\,\\%" (what == "" ? "" : " " what) " at " cs2 " " unit (o == "" ? "" : " (observed orders " o ")") }
function kgain(s) { return (s in kglo) ? (kglo[s] == kghi[s] ? mathnum(kglo[s]) : mathnum(kglo[s]) " to " mathnum(kghi[s])) : "--" }
function kpc(x) { return isnum(x) ? "$" sprintf("%.1f", 100 * x) "$\\,\\%" : "--" }
FILENAME ~ /rheology_rest/ { if (v("status") == "ok") vr[v("solver")] = v("v_rms"); next }
# clavet'"'"'s springs with a yield ratio, with the fluid on and off, and without one (rheo_yield)
FILENAME ~ /rheology_yield/ { if (v("status") != "ok") next
  yk = (v("yield_ratio") + 0 > 0 ? "y" : "z") v("fluid"); ys[yk] = v("sigma"); yr[yk] = v("rel")
  if (yk == "yon") { yratio = v("yield_ratio"); ymod = v("sigma_model"); yel = v("sigma_elastic"); ymx = v("sigma_maxwell")
    yrate = v("shear_rate"); ystrain = v("strain") }
  next }
FILENAME ~ /rheology_climb/ {
  src = v("source"); s = v("solver")
  if (s == "reference") { cb[src] = v("beta"); ch[src] = v("h"); chs[src] = v("h_spacings"); com = v("omega")
    ca = v("rod_radius"); cdx = v("rod_dx"); next }
  if (src == "measured") { k = s SUBSEP v("shear_rate"); if (!(s in cn)) cn[s] = 0
    cn[s]++; cr[s, cn[s]] = v("shear_rate"); cp1[s, cn[s]] = v("psi1"); cp2[s, cn[s]] = v("psi2"); cbm[s, cn[s]] = v("beta") }
  if (src == "stated") csb[s] = v("beta")
  next }
function ex(x) { return isnum(x) ? "$" sprintf("%.3f", x) "$" : "--" }
# h in mm with a sign and in spacings: "$+1.02$\,mm, $0.26$ of a spacing"
function climb(src) { return isnum(ch[src]) ? "$" sprintf("%+.2f", 1000 * ch[src]) "$\\,mm ($" sprintf("%+.2f", chs[src]) "$ spacings)" : "--" }
END {
  def("RheoRefG", mathnum(rg)); def("RheoRefLambda", mathnum(rl)); def("RheoRefEta", mathnum(re))
  # the methods that refuse a sheared box, as a sentence ("" when none does)
  refl = ""; for (q = 1; q <= nref; q++) refl = refl (q == 1 ? "" : (q == nref ? " and " : ", ")) refn[q]
  def("RheoRefused", nref == 0 ? "" : refl (nref == 1 ? " refuses a sheared box; it is Newtonian." : \
    " refuse a sheared box; they are Newtonian."))
  def("RheoMaoStartup", ms == "" ? "--" : ms)
  # the Newtonian methods on the sheared box: their start-up, then each one'"'"'s flow curve against its waves
  nl = ""; el = ""; nwn = 0; dxl = ""; dxsame = 1
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in nwd)) continue; nwn++; nwo[nwn] = s }
  for (q = 1; q <= nwn; q++) { s = nwo[q]; sep = (q == 1) ? "" : (q == nwn ? " and " : ", ")
    nl = nl sep name(s); el = el sep mathnum(nwe[s]); dxl = dxl sep sprintf("%g", 1000 * nwd[s])
    if (q > 1 && nwd[s] != nwd[nwo[1]]) dxsame = 0 }
  if (nwn > 0 && dxsame) dxl = sprintf("%g", 1000 * nwd[nwo[1]])
  t = nwn == 0 ? "" : nl (nwn == 1 ? " is Newtonian (no elastic parameter): on the sheared box its stress is steady from the start, $\\sigma_{xy}/\\dot\\gamma = $ " : \
    " are Newtonian (no elastic parameter): on the sheared box their stress is steady from the start, $\\sigma_{xy}/\\dot\\gamma = $ ") \
    el "\\,Pa\\,s (2D, $\\Delta x = $ " dxl "\\,mm)."
  for (q = 1; q <= nwn; q++) { s = nwo[q]; k = s SUBSEP nwd[s]; if (!(k in nn)) continue
    mx = 0; mr = ""; lo = ""; hi = ""; r0 = ""
    for (j = 1; j <= nn[k]; j++) { a = nr[k, j] < 0 ? -nr[k, j] : nr[k, j]; if (a >= mx) { mx = a; mr = j }
      if (lo == "" || nq[k, j] < nq[k, lo]) lo = j; if (hi == "" || nq[k, j] > nq[k, hi]) hi = j }
    t = t " " name(s) "'"'"'s steady stress " (mx <= 0.05 ? "is within $" sprintf("%.1f", 100 * mx) "$\\,\\% of its waves'"'"' viscosity ($" sig3(nwv[k]) "$\\,Pa\\,s) at every rate from " nq[k, lo] " to " nq[k, hi] "\\,s$^{-1}$" : \
      "departs from its waves'"'"' viscosity ($" sig3(nwv[k]) "$\\,Pa\\,s) by " pc(nr[k, lo]) " at " nq[k, lo] "\\,s$^{-1}$ and by " pc(nr[k, mr]) " at " nq[k, mr] "\\,s$^{-1}$: it " (nr[k, mr] > 0 ? "thickens" : "thins")) \
      (isnum(nws[s]) ? "; it states $\\mu = " sig3(nws[s]) "$\\,Pa\\,s, of which the waves give " sprintf("%.2f", nwv[k] / nws[s]) : "") "." }
  def("RheoNewtonian", t)
  def("RheoFlowMax", fseen ? sprintf("%.2f", 100 * fmax) : "--")
  m = "mao_yang"; km = m SUBSEP f2[m]; c = "clavet"; kc = c SUBSEP f2[c]
  def("RheoMaoDx", (m in f2) ? sprintf("%g", 1000 * f2[m]) : "--")
  def("RheoClavetDx", (c in f2) ? sprintf("%g", 1000 * f2[c]) : "--")
  def("RheoMaoWaveGRel", pc(wr[m, f2[m]]))
  def("RheoCalMaoG", pc(cg[km, cmax[km]])); def("RheoCalMaoLambda", pc(cl[km, cmax[km]])); def("RheoCalMaoEta", pc(ce[km, cmax[km]]))
  def("RheoCalMaoFirstG", pc(cg[km, 0])); def("RheoCalMaoFirstLambda", pc(cl[km, 0]))
  def("RheoCalClavetG", pc(cg[kc, cmax[kc]])); def("RheoCalClavetLambda", pc(cl[kc, cmax[kc]]))
  def("RheoCalClavetFirstG", pc(cg[kc, 0])); def("RheoCalClavetFirstLambda", pc(cl[kc, 0]))
  ks = c SUBSEP 2 SUBSEP f2[c] SUBSEP "springs"; kt = c SUBSEP 2 SUBSEP f2[c] SUBSEP "total"
  def("RheoClavetSpringsG", mathnum(G[ks])); def("RheoClavetSpringsGStated", mathnum(Gs[ks]))
  def("RheoClavetSpringsLambda", mathnum(L[ks])); def("RheoClavetSpringsLambdaStated", mathnum(Ls[ks]))
  def("RheoClavetSpringsGRel", pc(Gr[ks])); def("RheoClavetSpringsLambdaRel", pc(Lr[ks]))
  def("RheoClavetTotalG", mathnum(G[kt])); def("RheoClavetTotalRms", mathnum(rms[kt]))
  def("RheoClavetWaveG", mathnum(wg[c, f2[c]]))
  lo = hi = ""; rlo = rhi = ""
  for (q = 1; q <= nf[kc]; q++) { x = fl[kc, q] + 0
    if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x
    if (rlo == "" || fr[kc, q] + 0 < rlo) rlo = fr[kc, q] + 0; if (rhi == "" || fr[kc, q] + 0 > rhi) rhi = fr[kc, q] + 0 }
  def("RheoClavetPlateauLo", lo == "" ? "--" : mathnum(lo)); def("RheoClavetPlateauHi", hi == "" ? "--" : mathnum(hi))
  def("RheoClavetRateLo", rlo == "" ? "--" : sprintf("%g", rlo)); def("RheoClavetRateHi", rhi == "" ? "--" : sprintf("%g", rhi))
  def("RheoScaleMaoMu", ex(sg["mao_yang", "mu_e"])); def("RheoScaleMaoLambda", ex(sl["mao_yang", "lambda"]))
  def("RheoScaleMaoCross", ex(sl["mao_yang", "mu_e"]) " and " ex(sg["mao_yang", "lambda"]))
  def("RheoScaleClavetK", ex(sg["clavet", "k_spring"])); def("RheoScaleClavetAlpha", ex(sl["clavet", "alpha"]))
  def("RheoScaleClavetCross", ex(sl["clavet", "k_spring"]) " and " ex(sg["clavet", "alpha"]))
  # the flows with a known answer (klist sentences), the recovery of the finest blob
  w = "standing_wave"; b = "blob"
  def("RheoKnownMao", klist("mao_yang" SUBSEP w, "of the initial amplitude", "spacings per wavelength"))
  def("RheoKnownClavet", klist("clavet" SUBSEP w, "of the initial amplitude", "spacings per wavelength"))
  def("RheoKnownMaoGain", kgain("mao_yang" SUBSEP w)); def("RheoKnownClavetGain", kgain("clavet" SUBSEP w))
  def("RheoBlobMao", klist("mao_yang" SUBSEP b, "of the model'"'"'s peak", "particles per radius"))
  def("RheoBlobClavet", klist("clavet" SUBSEP b, "of the model'"'"'s peak", "particles per radius"))
  def("RheoBlobClavetGain", kgain("clavet" SUBSEP b))
  def("RheoBlobStatedMao", klist("mao_yang" SUBSEP "blob_stated", "", "particles per radius"))
  split("muller clavet miller_pearce mao_yang", nm, " "); split("Muller Clavet MillerPearce Mao", nn, " ")
  for (j = 1; j <= 4; j++) def("RheoBlobNewt" nn[j], klist(nm[j] SUBSEP "blob_newtonian", "", "particles per radius"))
  def("RheoBlobNewtMullerNoSigma", klist("muller" SUBSEP "blob_newtonian_nosigma", "", "particles per radius"))
  def("RheoBlobRecModel", kpc(krecm["mao_yang" SUBSEP b]))
  # the blob at rest after a settle: its rms speed (m/s)
  for (j = 1; j <= 4; j++) def("RheoRest" nn[j], mathnum(vr[nm[j]]))
  # the yardstick of rod climbing (rheology_climb.csv)
  def("RheoClimbBetaUcm", mathnum(cb["reference_ucm"])); def("RheoClimbBetaCo", mathnum(cb["reference_corotational"]))
  def("RheoClimbUcm", climb("reference_ucm")); def("RheoClimbCo", climb("reference_corotational"))
  def("RheoClimbOmega", isnum(com) ? sprintf("%g", com) : "--")
  def("RheoClimbRodA", isnum(ca) ? sprintf("%g", 1000 * ca) : "--"); def("RheoClimbRodDx", isnum(cdx) ? sprintf("%g", 1000 * cdx) : "--")
  # Mao-Yang measured Psi2 / Psi1 at its 3D rates: "$-0.500$ and $-0.500$ at 8 and 32 s^-1"
  t = ""; cs2 = ""; m = "mao_yang"
  for (q = 1; q <= cn[m]; q++) { sep = (q == 1) ? "" : (q == cn[m] ? " and " : ", ")
    t = t sep (isnum(cp1[m, q]) && cp1[m, q] != 0 ? "$" sprintf("%.3f", cp2[m, q] / cp1[m, q]) "$" : "--"); cs2 = cs2 sep cr[m, q] }
  def("RheoClimbMaoRatio", cn[m] ? t " at " cs2 "\\,s$^{-1}$" : "--")
  def("RheoClimbMaoBeta", cn[m] ? mathnum(cbm[m, 1]) : "--")
  # the share of the solvent in the zero-shear viscosity eta_s / (eta_s + G lambda): the reference and the stated material
  def("RheoRefSolventShare", isnum(re) && isnum(rg) ? "$" sprintf("%.0f", 100 * re / (re + rg * rl)) "$\\,\\%" : "--")
  def("RheoStatedSolventShare", isnum(st["eta_s"]) && isnum(st["G"]) ? \
    "$" sprintf("%.0f", 100 * st["eta_s"] / (st["eta_s"] + st["G"] * st["lambda"])) "$\\,\\%" : "--")
  def("RheoBlobRecMao", kpc(krec["mao_yang" SUBSEP b])); def("RheoBlobRecClavet", kpc(krec["clavet" SUBSEP b]))
  # the balls'"'"' yardstick: their impact speed against the reference material'"'"'s shear waves (m/s)
  def("RheoBallsImpact", isnum(bl["impact"]) ? sprintf("%.2f", bl["impact"]) : "--")
  def("RheoBallsWave", isnum(bl["wave"]) ? sprintf("%.2f", bl["wave"]) : "--")
  # the springs'"'"' yield: the model'"'"'s stress with the yield, elastic and Maxwell; the runs'"'"' against it
  def("RheoYieldRatio", isnum(yratio) ? sprintf("%g", yratio) : "--"); def("RheoYieldRate", isnum(yrate) ? sprintf("%g", yrate) : "--")
  def("RheoYieldStrain", isnum(ystrain) ? sprintf("%g", ystrain) : "--")
  def("RheoYieldModel", mathnum(ymod)); def("RheoYieldElastic", mathnum(yel)); def("RheoYieldMaxwell", mathnum(ymx))
  def("RheoYieldOn", mathnum(ys["yon"])); def("RheoYieldOnRel", pc(yr["yon"]))
  def("RheoYieldOff", mathnum(ys["yoff"])); def("RheoYieldOffRel", pc(yr["yoff"]))
  def("RheoYieldZero", mathnum(ys["zon"])); def("RheoYieldZeroRel", pc(yr["zon"]))
}' "$data/rheology/rheology_startup_fit.csv" "$data/rheology/rheology_flow.csv" \
   "$data/rheology/rheology_calibration.csv" "$data/rheology/rheology_scaling.csv" \
   "$data/rheology/rheology_summary.csv" "$data/rheology/rheology_known.csv" \
   "$data/rheology/rheology_climb.csv" "$data/rheology/rheology_rest.csv" \
   "$data/rheology/rheology_yield.csv" > "$tmp/rheology_numbers.tex"

# ---- numbers the text quotes ----------------------------------------------------------
# Every macro is defined (as "--" when the data cannot give it), so the paper builds
# whatever subset of solvers ran.
awk "$prelude"'
function def(n, x) { printf "\\newcommand{\\%s}{%s}\n", n, x }
FILENAME ~ /volume_summary/ {
  s = v("solver"); if (v("status") != "ok" || !isnum(v("vol_err_late"))) { vbad[s] = 1; next }
  vsum[s] += v("vol_err_late"); vn[s]++; vseen[s] = 1
  next }
FILENAME ~ /stability_summary/ {
  s = v("solver"); if (v("scene") == "dam_break" && v("dim") == 2 && isnum(v("dt_max_stable"))) { sdt[s] = v("dt_max_stable"); snd[s] = v("dt_max_stable_nd"); sseen[s] = 1 }
  next }
FILENAME ~ /drop_summary/ {
  s = v("solver"); k = s "/" v("dim")
  if (isnum(v("exponent"))) { db[k] = v("exponent"); dseen[k] = 1 }
  if (isnum(v("omega_ratio_mean"))) { dr[k] = v("omega_ratio_mean"); rseen[k] = 1 }
  # the methods without an explicit sigma, and whether any radius oscillated
  if (!isnum(v("sigma"))) { nosig[s] = 1; if (v("n_fitted") + 0 > 0) osc[s] = 1 }
  next }
FILENAME ~ /calibration_steps/ {
  s = v("solver"); if (isnum(v("ratio")) && (dtn == "" || v("ratio") + 0 > dtr + 0)) {
    dtn = s; dtr = v("ratio"); dtp = v("dt_paper"); dtc = v("dt_calibrated") }
  next }
FILENAME ~ /calibration_summary/ {
  s = v("solver"); p = v("property"); cst[s, p] = v("status"); ctg[p] = v("target"); cseen[s] = 1
  next }
FILENAME ~ /properties_summary/ {
  s = v("solver"); d = v("dim")
  if (v("response") == "elastic") elastic[s] = 1
  if (d == 2 && v("response") == "viscous" && isnum(v("nu_eff"))) { pnu[s] = v("nu_eff"); pnuseen[s] = 1 }
  if (d == 2 && isnum(v("c_eff"))) { pc[s] = v("c_eff"); pcseen[s] = 1 }
  next }
FILENAME ~ /scaling_summary/ {
  s = v("solver"); if (isnum(v("ns_per_particle_step_max"))) { cns[s] = v("ns_per_particle_step_max"); costseen[s] = 1; cby[s] = v("bytes_per_particle_max") }
  if (isnum(v("slope_total"))) { sl[s] = v("slope_total"); sle[s] = v("slope_total_err"); slseen[s] = 1 }
  if (isnum(v("fixed_iters")) && v("fixed_iters") > 0) fixit = v("fixed_iters")
  if (isnum(v("n_min")) && (nmin == "" || v("n_min") + 0 < nmin + 0)) nmin = v("n_min")
  if (isnum(v("n_max")) && (nmax == "" || v("n_max") + 0 > nmax + 0)) nmax = v("n_max")
  next }
FILENAME ~ /snapshots_summary/ { s = v("solver"); snapn = v("n"); next }
function absv(x) { return x < 0 ? -x : x }
END {
  # volume: the mean over the four setups of the late volume error, among solvers
  # stable in all of them
  best = ""; worst = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in vseen) || (s in vbad)) continue
    m = vsum[s] / vn[s]
    if (best == "" || m < bm) { best = s; bm = m }
    if (worst == "" || m > wm) { worst = s; wm = m } }
  def("VolBest", best == "" ? "--" : name(best)); def("VolBestErr", best == "" ? "--" : sprintf("%.1f", 100 * bm))
  def("VolWorst", worst == "" ? "--" : name(worst)); def("VolWorstErr", worst == "" ? "--" : sprintf("%.1f", 100 * wm))
  # stability: the largest stable step on the 2D dam break, as dt sqrt(g/L)
  best = ""; worst = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in sseen)) continue
    if (best == "" || sdt[s] + 0 > bd + 0) { best = s; bd = sdt[s] }
    if (worst == "" || sdt[s] + 0 < wd + 0) { worst = s; wd = sdt[s] } }
  def("DtBest", best == "" ? "--" : name(best)); def("DtBestVal", best == "" ? "--" : sprintf("%.3g", 1000 * bd))
  def("DtBestNd", best == "" ? "--" : sprintf("%.3g", snd[best]))
  def("DtWorst", worst == "" ? "--" : name(worst)); def("DtWorstVal", worst == "" ? "--" : sprintf("%.3g", 1000 * wd))
  def("DtRatio", (best == "" || wd + 0 <= 0) ? "--" : sprintf("%.0f", bd / wd))
  # drop: the exponent closest to the capillary -3/2, and the Rayleigh ratio closest to 1
  best = ""
  for (k in dseen) if (best == "" || absv(db[k] + 1.5) < absv(db[best] + 1.5) || (absv(db[k] + 1.5) == absv(db[best] + 1.5) && k < best)) best = k
  split(best, pr, "/")
  def("DropExpBest", best == "" ? "--" : name(pr[1]) " (" pr[2] "D)"); def("DropExpBestVal", best == "" ? "--" : sprintf("%.2f", db[best]))
  best = ""
  for (k in rseen) if (best == "" || absv(dr[k] - 1) < absv(dr[best] - 1) || (absv(dr[k] - 1) == absv(dr[best] - 1) && k < best)) best = k
  split(best, pr, "/")
  def("DropRatioBest", best == "" ? "--" : name(pr[1]) " (" pr[2] "D)"); def("DropRatioBestVal", best == "" ? "--" : sprintf("%.2f", dr[best]))
  # cost at the largest N: the cheapest and the dearest per particle-step
  best = ""; worst = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in costseen)) continue
    if (best == "" || cns[s] + 0 < cns[best] + 0) best = s
    if (worst == "" || cns[s] + 0 > cns[worst] + 0) worst = s }
  def("CostCheapest", best == "" ? "--" : name(best)); def("CostCheapestNs", best == "" ? "--" : sprintf("%.0f", cns[best]))
  def("CostDearest", worst == "" ? "--" : name(worst)); def("CostDearestNs", worst == "" ? "--" : sprintf("%.0f", cns[worst]))
  def("CostRatio", (best == "" || cns[best] + 0 <= 0) ? "--" : sprintf("%.0f", cns[worst] / cns[best]))
  # scaling: the smallest and largest exponent
  lo = ""; hi = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in slseen)) continue
    if (lo == "" || sl[s] + 0 < sl[lo] + 0) lo = s
    if (hi == "" || sl[s] + 0 > sl[hi] + 0) hi = s }
  def("SlopeMin", lo == "" ? "--" : sprintf("%.2f", sl[lo])); def("SlopeMinName", lo == "" ? "--" : name(lo))
  def("SlopeMax", hi == "" ? "--" : sprintf("%.2f", sl[hi])); def("SlopeMaxName", hi == "" ? "--" : name(hi))
  def("SlopeRange", lo == "" ? "were not measured" : (lo == hi ? sprintf("is %.2f (%s, the only method measured)", sl[lo], name(lo)) \
      : sprintf("range from %.2f (%s) to %.2f (%s)", sl[lo], name(lo), sl[hi], name(hi))))
  def("ScalingFixedIters", fixit == "" ? "--" : sprintf("%d", fixit))
  def("ScaleNmin", nmin == "" ? "--" : sprintf("%d", nmin)); def("ScaleNmax", nmax == "" ? "--" : sprintf("%d", nmax))
  def("SnapN", snapn == "" ? "--" : snapn)
  # drop: the methods without an explicit sigma that oscillate, and those that do not
  yes = ""; no = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in nosig)) continue
    if (s in osc) yes = yes (yes == "" ? "" : " and ") name(s); else no = no (no == "" ? "" : " and ") name(s) }
  def("DropOscNames", yes == "" ? "none" : yes); def("DropNoOscNames", no == "" ? "none" : no)
  # properties (2D): the least and most viscous of the viscous responses, the
  # elastic ones, the lowest and highest sound speed
  lo = ""; hi = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in pnuseen)) continue
    if (lo == "" || pnu[s] + 0 < pnu[lo] + 0) lo = s
    if (hi == "" || pnu[s] + 0 > pnu[hi] + 0) hi = s }
  def("NuMinName", lo == "" ? "--" : name(lo)); def("NuMin", lo == "" ? "--" : "$" sig3(pnu[lo]) "$")
  def("NuMaxName", hi == "" ? "--" : name(hi)); def("NuMax", hi == "" ? "--" : "$" sig3(pnu[hi]) "$")
  def("NuRatio", lo == "" || pnu[lo] + 0 <= 0 ? "--" : "$" sig3(pnu[hi] / pnu[lo]) "$")
  def("NuRange", lo == "" ? "is not measured" : (lo == hi ? sprintf("is $%s$\\,m$^2$/s (%s, the only one)", sig3(pnu[lo]), name(lo)) \
      : sprintf("runs from $%s$\\,m$^2$/s (%s) to $%s$\\,m$^2$/s (%s), a factor of $%s$", sig3(pnu[lo]), name(lo), sig3(pnu[hi]), name(hi), sig3(pnu[hi] / pnu[lo]))))
  el = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (s in elastic) el = el (el == "" ? "" : " and ") name(s) }
  def("ElasticNames", el == "" ? "none" : el)
  lo = ""; hi = ""
  for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in pcseen)) continue
    if (lo == "" || pc[s] + 0 < pc[lo] + 0) lo = s
    if (hi == "" || pc[s] + 0 > pc[hi] + 0) hi = s }
  def("CeffMinName", lo == "" ? "--" : name(lo)); def("CeffMin", lo == "" ? "--" : "$" sig3(pc[lo]) "$")
  def("CeffMaxName", hi == "" ? "--" : name(hi)); def("CeffMax", hi == "" ? "--" : "$" sig3(pc[hi]) "$")
  # the sentence a range makes: one member reads as one
  def("CeffRange", lo == "" ? "were not measured" : (lo == hi ? sprintf("is $%s$\\,m/s (%s, the only method measured)", sig3(pc[lo]), name(lo)) \
      : sprintf("run from $%s$\\,m/s (%s) to $%s$\\,m/s (%s)", sig3(pc[lo]), name(lo), sig3(pc[hi]), name(hi))))
  # calibration: the targets, and per property the methods that reach it (calibrated
  # or set) and those that do not
  # the largest ratio of the paper preset step to the calibrated one
  def("CalDtName", dtn == "" ? "--" : name(dtn)); def("CalDtRatio", dtn == "" ? "--" : "$" sig3(dtr) "$")
  def("CalDtPaper", dtn == "" ? "--" : "$" sig3(dtp) "$"); def("CalDtCal", dtn == "" ? "--" : "$" sig3(dtc) "$")
  def("CalNu", "$" sig3(ctg["nu"]) "$"); def("CalC", "$" sig3(ctg["c"]) "$"); def("CalSigma", "$" sig3(ctg["sigma"]) "$")
  np = split("nu c sigma", pl, " "); split("Nu C Sigma", pm, " ")
  for (j = 1; j <= np; j++) {
    yes = ""; no = ""
    for (i = 1; i <= nsol; i++) { s = order[i]; if (!(s in cseen)) continue
      if (cst[s, pl[j]] == "calibrated" || cst[s, pl[j]] == "set") yes = yes (yes == "" ? "" : ", ") name(s)
      else no = no (no == "" ? "" : ", ") name(s) }
    def("Cal" pm[j] "Reached", yes == "" ? "none" : yes); def("Cal" pm[j] "Out", no == "" ? "none" : no)
  }
}' "$data/volume/volume_summary.csv" "$data/stability/stability_summary.csv" "$data/drop/drop_summary.csv" \
   "$data/scaling/scaling_summary.csv" "$data/snapshots/snapshots_summary.csv" \
   "$data/properties/properties_summary.csv" "$data/calibrate/calibration_summary.csv" \
   "$data/calibrate/calibration_steps.csv" > "$tmp/numbers.tex"
{
  echo '\newcommand{\PfbQuick}{'"$quick"'}'
  echo '\newcommand{\PfbDataDir}{'"$(printf '%s' "$data" | sed 's/[_%#&$]/\\&/g')"'}'
} >> "$tmp/numbers.tex"

# ---- the reproducibility appendix, from every run.meta ------------------------------
# The runs an experiment used are those its manifest.csv lists (written by `pfbench
# exp` with its CSVs); without a manifest (data from before it existed), every run
# directory under runs/ counts.
metas=""
for e in calibrate volume stability drop scaling snapshots properties validation rheology; do
  if [ -r "$data/$e/manifest.csv" ]; then
    while IFS= read -r id; do
      [ "$id" = run_id ] || [ -z "$id" ] && continue
      m="$data/$e/runs/$id/run.meta"
      if [ ! -r "$m" ]; then
        echo "tables.sh: '$m' is missing although $data/$e/manifest.csv lists the run; rerun the experiment" >&2
        exit 1
      fi
      metas="$metas$m"$'\n'
    done < "$data/$e/manifest.csv"
  elif [ -d "$data/$e/runs" ]; then
    metas="$metas$(find "$data/$e/runs" -name run.meta | LC_ALL=C sort)"$'\n'
  fi
done
metas=$(printf '%s' "$metas" | sed '/^$/d')
if [ -z "$metas" ]; then
  echo "tables.sh: no run.meta under '$data/*/runs'; run the experiments first" >&2
  exit 1
fi
# mawk has no ENDFILE: concatenate the files with a separator line instead
printf '%s\n' "$metas" | while IFS= read -r m; do
  e=${m#"$data"/}; e=${e%%/*}
  printf '@@run %s\n' "$e"; cat "$m"; printf '\n'
done | awk -F' = ' "$funcs"'
function account() {
  if (ex == "") return
  k = ex; runs[k]++; if (st != "ok") unst[k]++; wall[k] += ws
  if (!((k, seed) in seedseen)) { seedseen[k, seed] = 1; nseed[k]++; seeds[k] = seeds[k] (seeds[k] == "" ? "" : ", ") seed }
  if (thr != "" && !((k, thr) in thrseen)) { thrseen[k, thr] = 1; thrs[k] = thrs[k] (thrs[k] == "" ? "" : ", ") thr }
  if (!(com in comseen)) { comseen[com] = 1; ncom++; coml[ncom] = com }
  if (!(cc in ccseen)) { ccseen[cc] = 1; ncc++; ccl[ncc] = cc }
  if (!(fl in flseen)) { flseen[fl] = 1; nfl++; fll[nfl] = fl }
  if (!(mach in machseen)) { machseen[mach] = 1; nmach++; machl[nmach] = mach }
  if (dmin == "" || dt < dmin) dmin = dt
  if (dmax == "" || dt > dmax) dmax = dt
  total += ws; nruns++
}
/^@@run / { account(); ex = substr($0, 7); st = "ok"; seed = thr = com = cc = fl = mach = dt = ""; ws = 0; next }
$1 == "status" { st = $2 }
$1 == "seed" { seed = $2 }
$1 == "threads" { thr = $2 }
$1 == "commit" { com = $2 }
$1 == "compiler" { cc = $2 }
$1 == "cflags" { fl = $2 }
$1 == "machine" { mach = $2 }
$1 == "date" { dt = $2 }
$1 == "wall_seconds" { ws = $2 + 0 }
function list(n, a,    i, s) { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "; " : "") "\\texttt{" tex(a[i]) "}"; return s }
END {
  account()
  print "\\begin{tabular}{l r r l l r}"
  print "\\toprule"
  print "experiment & runs & unstable & seeds & threads & run time (s) \\\\"
  print "\\midrule"
  ne = split("calibrate volume stability drop scaling snapshots properties validation rheology", el, " ")
  for (i = 1; i <= ne; i++) { k = el[i]; if (!(k in runs)) continue
    print k " & " runs[k] " & " (unst[k] + 0) " & " seeds[k] " & " (thrs[k] == "" ? "--" : thrs[k]) " & " sprintf("%.0f", wall[k]) " \\\\" }
  print "\\midrule"
  print "all & " nruns " & & & & " sprintf("%.0f", total) " \\\\"
  print "\\bottomrule"
  print "\\end{tabular}"
  print ""
  print "\\medskip"
  print "\\noindent\\begin{tabular}{@{}l p{0.8\\linewidth}@{}}"
  print "commit" (ncom > 1 ? "s" : "") " & " list(ncom, coml) (ncom > 1 ? " (the runs were made at different commits)" : "") " \\\\"
  print "compiler" (ncc > 1 ? "s" : "") " & " list(ncc, ccl) " \\\\"
  print "flags & " list(nfl, fll) " \\\\"
  print "machine" (nmach > 1 ? "s" : "") " & " list(nmach, machl) " \\\\"
  print "dates & \\texttt{" tex(dmin) "} to \\texttt{" tex(dmax) "} \\\\"
  print "\\end{tabular}"
}' > "$tmp/appendix.tex"

# ---- where each table came from -------------------------------------------------------
{
  for f in volume/volume_summary stability/stability_summary drop/drop_summary scaling/scaling_summary \
           snapshots/snapshots_summary properties/properties_summary calibrate/calibration_summary \
           validation/validation_order rheology/rheology_startup_fit rheology/rheology_calibration \
           rheology/rheology_known; do
    key=$(basename "$f" | sed 's/_summary//; s/_//g')
    printf '\\newcommand{\\Src%s}{\\texttt{%s}}\n' "$key" "$(printf '%s' "$data/$f.csv" | sed 's/[_%#&$]/\\&/g')"
  done
} > "$tmp/sources.tex"

for f in volume stability drop scaling properties calibration calibration_reasons numbers appendix sources \
         validation_dam_break validation_hydrostatic validation_hydrostatic_vertical validation_hydrostatic_weight \
         validation_viscous validation_drop validation_drop_damping validation_drop_own validation_numbers validation_dam_break_mm \
         validation_drop_rayleigh validation_drop_weak reference_convergence reference_checks reference_numbers \
         rheology rheology_calibration rheology_known rheology_numbers; do
  mv "$tmp/$f.tex" "$gen/$f.tex"
done
