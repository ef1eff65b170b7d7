# Lab 10: a heat map of the grid the lab wrote with --dump (CSV "i,j,u", one row per point).
# Run through scripts/plot_10_laplace.sh, or directly:
#   gnuplot -e "csv='heat.csv'; out='heat.png'; device='H100'; I=96; J=64" handouts/plots/10_laplace_heat.gp
if (!exists("csv")) csv = "10_laplace_heat.csv"
if (!exists("out")) out = "10_laplace_heat.png"
if (!exists("device")) device = "this device"
if (!exists("I")) I = 0
if (!exists("J")) J = 0

set datafile separator ","
set terminal pngcairo size 800,600 font ",11" noenhanced
set output out
set title sprintf("u after the sweeps, %dx%d grid, on %s (converged: x^2 - y^2)", I, J, device)
set xlabel "i"
set ylabel "j"
set cblabel "u"
set size ratio -1
set xrange [-0.5:I-0.5]
set yrange [-0.5:J-0.5]
set palette rgbformulae 33,13,10
plot csv skip 1 using 1:2:3 with image notitle
