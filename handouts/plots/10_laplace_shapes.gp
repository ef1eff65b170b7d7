# Lab 10: GB/s of each kernel per block shape (bytes counted: each point read once and written
# once a sweep), with the device's measured copy bandwidth as a dashed line. Input: a data file
# "block naive tiled rows copy" that scripts/plot_10_laplace.sh cuts from the lab's CSV:
#   lab10_laplace --variant shapes --shapes all --csv FILE
if (!exists("data")) data = "10_laplace_shapes.dat"
if (!exists("out")) out = "10_laplace_shapes.png"
if (!exists("device")) device = "this device"

set terminal pngcairo size 1000,560 font ",11" noenhanced
set output out
set title sprintf("Jacobi sweeps per block shape (BXxBY) on %s", device)
set ylabel "GB/s (8 bytes per point per sweep; higher is better)"
set xlabel "work-group shape, wide and flat to tall and thin (a missing bar: not verified)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set key below horizontal
set yrange [0:*]
set xtics rotate by -30
stats data using 5 every ::1::1 nooutput
copy = STATS_max
plot data skip 1 using 2:xtic(1) title "naive (global memory)", \
     '' skip 1 using 3 title "tiled (local memory)", \
     '' skip 1 using 4 title "rows (a column per work-item)", \
     copy with lines dashtype 2 lw 2 lc rgb "#444444" title sprintf("copy %.0f GB/s", copy)
