# Lab 08: each rung's bandwidth as a share of the measured copy bandwidth (and, on a CPU
# device, of the host's own threads). Input: the CSV of
#   lab08_reduction_ladder --csv FILE
# Run through scripts/plot_08_reduction_ladder.sh, or directly:
#   gnuplot -e "csv='h100.csv'; out='h100.png'; device='H100'; host=0" \
#           handouts/plots/08_reduction_ladder.gp
if (!exists("csv")) csv = "08_reduction_ladder.csv"
if (!exists("out")) out = "08_reduction_ladder.png"
if (!exists("device")) device = "this device"
if (!exists("host")) host = 0

set datafile separator ","
set datafile missing ""
set key autotitle columnhead  # the first line names the columns
set terminal pngcairo size 900,560 font ",11"
set output out

set title sprintf("Reduction ladder on %s", device)
set ylabel "% of the bound (higher is better)"
set xlabel "rung (a missing bar: the rung gave a wrong answer)"
set style fill solid 0.85 border -1
set grid ytics
set key top left
set yrange [0:110<*]  # the 100% line always shows
set xrange [-0.6:6.6]  # seven rungs, at x = 0..6
set offsets 0, 0, graph 0.12, 0
set arrow from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 lc rgb "#444444"
label(v) = v < 10 ? sprintf("%.1f", v) : sprintf("%.0f", v)

# Columns by name (the CSV's header line); rows are the rungs in order. An empty cell (a wrong
# rung) is missing: no bar, no label.
if (host) {
    set boxwidth 0.38
    plot csv using 0:(NaN):xtic(strcol("rung")) with boxes notitle, \
         '' using ($0 - 0.2):"pct_of_copy" with boxes lc rgb "#1f77b4" title "% of copy-kernel bandwidth", \
         '' using ($0 + 0.2):"pct_of_host" with boxes lc rgb "#ff7f0e" title "% of host threads' throughput", \
         '' using ($0 - 0.2):"pct_of_copy":(label(column("pct_of_copy"))) with labels offset 0, 0.7 notitle, \
         '' using ($0 + 0.2):"pct_of_host":(label(column("pct_of_host"))) with labels offset 0, 0.7 notitle
} else {
    set boxwidth 0.6
    plot csv using 0:"pct_of_copy":xtic(strcol("rung")) with boxes lc rgb "#1f77b4" title "% of copy-kernel bandwidth", \
         '' using 0:"pct_of_copy":(label(column("pct_of_copy"))) with labels offset 0, 0.7 notitle
}
