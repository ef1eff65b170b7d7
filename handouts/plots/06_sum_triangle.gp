# Lab 06: the share of launches whose V was wrong, against N, for the kernel without a barrier,
# with a local-fence barrier and with barrier(CLK_GLOBAL_MEM_FENCE). Input: the CSV of
#   lab06_sum_triangle --sweep --csv FILE
# Run through scripts/plot_06_sum_triangle.sh, or directly:
#   gnuplot -e "csv='h100.csv'; out='h100.png'; device='H100'; trials=20" \
#           handouts/plots/06_sum_triangle.gp
if (!exists("csv")) csv = "06_sum_triangle.csv"
if (!exists("out")) out = "06_sum_triangle.png"
if (!exists("device")) device = "this device"
if (!exists("trials")) trials = 0

set datafile separator ","
set datafile missing NaN  # the other kernels' rows: skipped, the line goes on
set terminal pngcairo size 900,520 font ",11"
set output out
set title sprintf("sumTriangle on %s: wrong answers over %d launches per N", device, trials)
set xlabel "N (work-items in the one work-group; 32 = one NVIDIA warp)"
set ylabel "launches with a wrong V (%)"
set logscale x 2
set yrange [-3:103]
set grid
set key top left
set arrow from 32, graph 0 to 32, graph 1 nohead dashtype 2 lc rgb "#888888"

# Columns by name (the CSV's header); only the sweep's rows, one line per kernel.
pick(v) = (column("sweep") == 1 && strcol("variant") eq v) ? 100 * column("wrong_rate") : NaN
plot csv using "n":(pick("nobarrier")) with linespoints lw 2 pt 7 title "no barrier", \
     '' using "n":(pick("localfence")) with linespoints lw 2 pt 5 title "barrier(CLK\\_LOCAL\\_MEM\\_FENCE)", \
     '' using "n":(pick("triangle")) with linespoints lw 2 pt 9 title "barrier(CLK\\_GLOBAL\\_MEM\\_FENCE)"
