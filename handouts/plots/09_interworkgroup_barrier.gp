# Lab 09: time per step of each method, against the number of work-groups (thesis Appendix H,
# --sweep groups) or the number of steps (Appendix I, --sweep steps). Input: a data file of
# "method x us_per_step" rows, one block per method (two blank lines between), that
# scripts/plot_09_interworkgroup_barrier.sh cuts from the lab's CSV:
#   lab09_interworkgroup_barrier --sweep groups --csv FILE
if (!exists("data")) data = "09_interworkgroup_barrier.dat"
if (!exists("out")) out = "09_interworkgroup_barrier.png"
if (!exists("device")) device = "this device"
if (!exists("xname")) xname = "groups"
if (!exists("blocks")) blocks = 1

set terminal pngcairo size 900,560 font ",11" noenhanced
set output out
set title sprintf("Barriers between work-groups on %s", device)
set ylabel "time per step (us, log scale; lower is better)"
set xlabel (xname eq "steps" ? "steps in one run (log scale)" : "work-groups taking part")
set logscale y
if (xname eq "steps") set logscale x
set grid
set key outside right
plot for [i=0:blocks-1] data index i using 2:3 with linespoints lw 2 title columnhead(1)
