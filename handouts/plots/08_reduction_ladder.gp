# Lab 08: each rung's bandwidth as a share of the measured read bandwidth (the read probe), of
# CLBlast's sum of the same buffer, and, on a CPU device, of the host's own threads. Input: the
# CSV of
#   lab08_reduction_ladder --csv FILE
# Run through scripts/plot_08_reduction_ladder.sh, or directly:
#   gnuplot -e "csv='h100.csv'; out='h100.png'; device='H100'; host=0; blas=1" \
#           handouts/plots/08_reduction_ladder.gp
if (!exists("csv")) csv = "08_reduction_ladder.csv"
if (!exists("out")) out = "08_reduction_ladder.png"
if (!exists("device")) device = "this device"
if (!exists("host")) host = 0
if (!exists("blas")) blas = 0

set datafile separator ","
set datafile missing ""
set key autotitle columnhead  # the first line names the columns
set terminal pngcairo size 900,560 font ",11"
set output out

set title sprintf("Reduction ladder on %s", device)
set ylabel "% (higher is better; above 100% of the read bound: the bound is wrong)"
set xlabel "rung (a missing bar: the rung gave a wrong answer)"
set style fill solid 0.85 border -1
set grid ytics
set key top left
set logscale y  # rungs span 0.1% to well over 100% of a peer
set yrange [0.1:200<*]  # the 100% line always shows
set xrange [-0.6:6.6]  # seven rungs, at x = 0..6
set offsets 0, 0, graph 0.12, 0
set arrow from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 lc rgb "#444444"
label(v) = v < 10 ? sprintf("%.1f", v) : sprintf("%.0f", v)
pct_blas(c) = 100.0 * column(c)

# Columns by name (the CSV's header line); rows are the rungs in order. An empty cell (a wrong
# rung, or a peer that did not run) is missing: no bar, no label. Up to three bars per rung.
series = 1 + blas + host
w = 0.8 / series
set boxwidth w
x_read = -(series - 1) * w / 2
x_blas = x_read + w
x_host = x_read + (1 + blas) * w
plot csv using 0:(NaN):xtic(strcol("rung")) with boxes notitle, \
     '' using ($0 + x_read):"pct_of_read" with boxes lc rgb "#1f77b4" title "% of the read probe's bandwidth", \
     '' using ($0 + x_read):"pct_of_read":(label(column("pct_of_read"))) with labels offset 0, 0.7 notitle, \
     for [i=1:blas] csv using ($0 + x_blas):(pct_blas("x_clblast")) with boxes lc rgb "#2ca02c" title "% of CLBlast's sum", \
     for [i=1:blas] csv using ($0 + x_blas):(pct_blas("x_clblast")):(label(pct_blas("x_clblast"))) with labels offset 0, 0.7 notitle, \
     for [i=1:host] csv using ($0 + x_host):"pct_of_host" with boxes lc rgb "#ff7f0e" title "% of the host threads' throughput", \
     for [i=1:host] csv using ($0 + x_host):"pct_of_host":(label(column("pct_of_host"))) with labels offset 0, 0.7 notitle
