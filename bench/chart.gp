# bench/chart.gp - the chart of a benchmark run (called by bench/run.sh).
# gnuplot -e "datafile='...'; outfile='...'; subtitle='...'" chart.gp
# datafile: label<TAB>slimpthreads cost<TAB>winpthreads cost, each relative to
# the raw Win32 program (1 = raw; lower is better whatever the measurement).
set terminal svg size 1800,760 dynamic noenhanced font "sans,10" background rgb "white"
set output outfile
set title "slimpthreads and winpthreads relative to raw Win32 under Wine (1 = raw, lower is better; log scale)\n".subtitle
set datafile separator "\t"
set logscale y 2
set yrange [0.015625:*]
set ytics ("1/64" 0.015625, "1/32" 0.03125, "1/16" 0.0625, "1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "1024" 1024, "4096" 4096, "16384" 16384)
set grid ytics lc rgb "#dddddd"
set xtics rotate by 60 right font "sans,8"
set key top left
set style fill solid 0.85 border -1
set boxwidth 0.38
set xrange [-1:*]
set bmargin 14
plot datafile using ($0 - 0.2):2:xtic(1) with boxes lc rgb "#2a7ab0" title "slimpthreads", \
     datafile using ($0 + 0.2):3 with boxes lc rgb "#d9822b" title "winpthreads", \
     1 with lines lc rgb "black" dt 2 title "raw Win32"
