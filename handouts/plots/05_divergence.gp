# Lab 05: slowdown of the k-way switch (id % k) against its uniform twin ((id / simd) % k), as
# measured, beside the SIMT theory min(k, simd); id % 2 and the one-expensive-item kernel as points.
# Input: the CSV of `lab05_divergence --csv FILE`, its columns read by the names in its first line
# (k: operations taken, 2 for evenodd and expensive; the expensive rows are drawn at x = simd).
# Run through scripts/plot_05_divergence.sh, or directly:
#   gnuplot -e "csv='h100.csv'; out='handouts/img/05_divergence_h100.png'; device='H100'" \
#           handouts/plots/05_divergence.gp
if (!exists("csv")) csv = "05_divergence.csv"
if (!exists("out")) out = "05_divergence.png"
if (!exists("device")) device = "this device"

set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 900,600 font ",11"
set output out

# Every row of one run has the same simd.
stats csv using "simd" nooutput
simd = STATS_max
# oneExpensive against evenOddUniform: the same number of turns with every lane busy.
# (0 where a row is missing: times are positive, so the largest value is the row's.)
stats csv using (strcol("variant") eq "evenodd" ? column("uniform_ms") : 0) nooutput
even_ms = STATS_max
stats csv using (strcol("variant") eq "expensive" ? column("divergent_ms") : 0) nooutput
lone_ms = STATS_max
have_both = even_ms > 0 && lone_ms > 0

set title sprintf("Divergence on %s: id %% k against (id / %d) %% k", device, simd)
set xlabel "k (different operations, neighbours taking different ones)"
set ylabel "slowdown (divergent time / uniform time)"
set key top left
set grid
set xrange [0:simd + 1]
set yrange [0:*]
set xtics 0, (simd >= 16 ? simd / 8 : 1), simd

only(variant, col) = strcol("variant") eq variant ? column(col) : NaN
theory(k) = k < simd ? k : simd

plot theory(x) with lines dashtype 2 linewidth 2 lc rgb "#888888" title sprintf("theory: min(k, %d)", simd), \
     csv using "k":(only("kway_sweep", "slowdown")) with linespoints pointtype 7 lc rgb "#1f77b4" title "k-way switch, measured", \
     csv using "k":(only("evenodd", "slowdown")) with points pointtype 5 pointsize 1.6 lc rgb "#d62728" title "id % 2 (if/else)", \
     csv using "simd":(only("expensive", "slowdown")) with points pointtype 9 pointsize 1.8 lc rgb "#2ca02c" title "one expensive item per warp, against its gathered twin", \
     '+' using (simd):(have_both ? lone_ms / even_ms : NaN) every ::0::0 with points pointtype 8 pointsize 1.8 lc rgb "#2ca02c" \
         title (have_both ? "one expensive item per warp, against evenOddUniform (same turns)" : "")
