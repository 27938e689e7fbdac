# bench/chart.gp - the chart of a benchmark run (called by bench/run.sh).
# gnuplot -e "datafile='...'; outfile='...'; subtitle='...'" chart.gp
# datafile: label<TAB>slimpthreads cost<TAB>winpthreads cost, each relative to
# the raw Win32 program (1 = raw; lower is better whatever the measurement).
set terminal svg size 1800,760 dynamic noenhanced font "sans,10" background rgb "white"
set output outfile
set title "slimpthreads and winpthreads relative to raw Win32 under Wine (1 = raw, lower is better; log scale)\n".subtitle
set datafile separator "\t"
set logscale y 2
# Room for every bar, down to the cheapest (a user-space semaphore against a
# kernel one is four orders of magnitude).
stats datafile using 2 nooutput name "SLIM"
stats datafile using 3 nooutput name "WINP"
low = (SLIM_min < WINP_min ? SLIM_min : WINP_min) / 2
high = (SLIM_max > WINP_max ? SLIM_max : WINP_max) * 2
set yrange [(low < 0.5 ? low : 0.5):(high > 2 ? high : 2)]
set format y "%.2g"
set ytics 4
set grid ytics lc rgb "#dddddd"
set xtics rotate by 60 right font "sans,8"
set key top left
set style fill solid 0.85 border -1
set boxwidth 0.38
set xrange [-1:*]
set bmargin 14
set lmargin 14
plot datafile using ($0 - 0.2):2:xtic(1) with boxes lc rgb "#2a7ab0" title "slimpthreads", \
     datafile using ($0 + 0.2):3 with boxes lc rgb "#d9822b" title "winpthreads", \
     1 with lines lc rgb "black" dt 2 title "raw Win32"
