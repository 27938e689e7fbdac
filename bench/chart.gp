# bench/chart.gp - the chart of a benchmark run (called by bench/run.sh).
# gnuplot -e "datafile='...'; outfile='....svg' (or '....png'); subtitle='...'" chart.gp
# (and "columns=N" for N columns of panels instead of 3: 1 to 3; "peers='NAME ...'"
# when the data has a column per peer after winpthreads, as run.sh's peers give)
#
# datafile: chart.dat of bench/report.awk, one block per panel (report.awk's "chart's data"
# section describes it): a title line, then label, slimpthreads, winpthreads (and
# the peers), each the cost relative to raw Win32 (lower is better whatever was measured).
#
# One small panel per block, in columns: one row per variant, a bar per
# implementation drawn from the raw floor (the dashed line at 1) to the cost, on a
# log axis, so that cheaper than raw points left and costlier points right, and twice
# as costly is as long a bar as half as costly. The colours are the same in every
# panel; the legend is given once, at the top. Each panel has its own axis range: one
# range for all would squeeze a 1.2x difference next to a 1000x one.
set datafile separator "\t"

if (!exists("peers")) { peers = "" }   # -e "peers='a b'": a bar for each, after winpthreads
bars = 2 + words(peers)

# Geometry, in pixels.
row_px = 13 * bars   # one variant: a bar per implementation (26 for the usual two)
panel_top_px = 44    # title and note
panel_bottom_px = 30 # the axis' numbers
gap_px = 16
header_px = 104
column_px = 640
label_px = 180       # the variants' names
right_px = 16
if (!exists("columns")) { columns = 3 }   # -e "columns=2": narrower and taller

slim_colour = "#2a7ab0"
winp_colour = "#d9822b"
peer_colours = "#3a9e4f #8e5bb5 #c44e52 #7f7f7f #17becf #bcbd22"
bar_colour(b) = b == 0 ? slim_colour : (b == 1 ? winp_colour : word(peer_colours, (b - 2) % 6 + 1))
# Bar b (0: slimpthreads, 1: winpthreads, 2...: the peers) of a row fills its
# share of the row's 0.8, 0.04 apart from the next; its number sits at its middle
# (with two bars: -0.40..-0.02 and 0.02..0.40, numbers at -0.22 and 0.22).
bar_from(b) = -0.40 + b * 0.8 / bars + (b > 0 ? 0.02 : 0)
bar_to(b) = -0.40 + (b + 1) * 0.8 / bars - (b < bars - 1 ? 0.02 : 0)
number_at(b) = -0.44 + (b + 0.5) * 0.88 / bars

# What each panel holds.
stats datafile using 2 nooutput
panels = STATS_blocks
array rows[panels]
array low[panels]
array high[panels]
array title[panels]
array note[panels]
do for [i = 1:panels] {
    stats datafile index (i - 1) every ::0::0 using (t = strcol(2), n = strcol(3), 0) nooutput
    title[i] = t
    note[i] = n eq "-" ? "" : n
    # A C11 row has no winpthreads (or peer) value ("-"): count its slimpthreads one instead.
    stats datafile index (i - 1) every ::1 using ($2) nooutput
    rows[i] = STATS_records
    low[i] = STATS_min < 1 ? STATS_min : 1
    high[i] = STATS_max > 1 ? STATS_max : 1
    do for [c = 3:bars + 1] {
        stats datafile index (i - 1) every ::1 using (valid(c) ? column(c) : $2) nooutput
        low[i] = STATS_min < low[i] ? STATS_min : low[i]
        high[i] = STATS_max > high[i] ? STATS_max : high[i]
    }
}

# The panels fill the columns in their order; the two column breaks are the ones
# that make the tallest column shortest.
panel_px(i) = panel_top_px + rows[i] * row_px + panel_bottom_px + gap_px
array top_px[panels]
array column_of[panels]
columns = panels < columns ? panels : columns
best = 1e9
first_break = panels
second_break = panels
do for [a = 1:panels] {
    do for [b = a:panels] {
        h1 = 0; h2 = 0; h3 = 0
        do for [i = 1:panels] {
            if (i <= a) { h1 = h1 + panel_px(i) } else { if (i <= b) { h2 = h2 + panel_px(i) } else { h3 = h3 + panel_px(i) } }
        }
        tallest = h1 > h2 ? h1 : h2
        tallest = tallest > h3 ? tallest : h3
        if ((columns > 2 || b == panels) && (columns > 1 || a == panels) && tallest < best) {
            best = tallest; first_break = a; second_break = b
        }
    }
}
y = 0
do for [i = 1:panels] {
    column_of[i] = i <= first_break ? 0 : (i <= second_break ? 1 : 2)
    if (i == first_break + 1 || i == second_break + 1) { y = 0 }
    top_px[i] = y
    y = y + panel_px(i)
}
width = (columns > 1 ? columns : 2) * column_px   # the header needs two
height = header_px + best

if (outfile[strlen(outfile) - 3:] eq ".png") {
    set terminal pngcairo size width, height noenhanced font "sans,10" background rgb "white"
} else {
    # The same sizes of text as the PNG's (cairo counts points, SVG pixels).
    set terminal svg size width, height dynamic noenhanced font "sans,10" fontscale 1.3 background rgb "white"
}
set output outfile

# Pixels from the top left corner to screen coordinates.
sx(px) = px / (1.0 * width)
sy(px) = 1 - px / (1.0 * height)

# Ratios as a reader says them: two significant digits below 0.1 (0.0012), two
# decimals up to 10 (0.50, 7.25), whole numbers above (42, 1234).
ratio_text(v) = v >= 9.95 ? sprintf("%.0f", v) : (v >= 0.095 ? sprintf("%.2f", v) : sprintf("%.2g", v))
tic_text(v) = v >= 100 ? sprintf("%.0f", v) : sprintf("%.2g", v)

set multiplot
set style fill solid 1.0 noborder
set border 1 lc rgb "#808080"
set logscale x 10
set grid xtics lc rgb "#dddddd" lw 1
set xtics nomirror scale 0.5 font ",10"
set ytics nomirror scale 0 textcolor rgb "black" font ",10"
set key off

# The header: what the chart says, the machine, the legend, once for all panels.
set label 1 (bars > 2 ? "slimpthreads, winpthreads and the peers" : "slimpthreads and winpthreads") \
    . " relative to raw Win32, under Wine: lower is better" at screen sx(12), screen sy(20) left font ",15"
set label 2 subtitle at screen sx(12), screen sy(41) left textcolor rgb "#555555"
set object 1 rect from screen sx(12), screen sy(57) to screen sx(40), screen sy(71) fc rgb slim_colour fs solid noborder
set label 3 "slimpthreads" at screen sx(48), screen sy(64) left font ",13"
set object 2 rect from screen sx(180), screen sy(57) to screen sx(208), screen sy(71) fc rgb winp_colour fs solid noborder
set label 4 "winpthreads" at screen sx(216), screen sy(64) left font ",13"
set arrow 1 from screen sx(350), screen sy(52) to screen sx(350), screen sy(76) nohead lc rgb "black" lw 1.5 dt 2
set label 5 "raw Win32 = 1, the floor" at screen sx(360), screen sy(64) left font ",13"
do for [b = 2:bars - 1] {
    legend_x = 600 + (b - 2) * 200
    set object 20 + b rect from screen sx(legend_x), screen sy(57) to screen sx(legend_x + 28), screen sy(71) fc rgb bar_colour(b) fs solid noborder
    set label 20 + b word(peers, b - 1) at screen sx(legend_x + 36), screen sy(64) left font ",13"
}
set label 6 "Each bar runs from the raw floor to the cost: left of the line is cheaper than raw, right of it costlier; log scale; the number is the ratio." \
    at screen sx(12), screen sy(88) left

do for [i = 1:panels] {
    left = column_of[i] * column_px
    top = header_px + top_px[i]
    set lmargin at screen sx(left + label_px)
    set rmargin at screen sx(left + column_px - right_px)
    set tmargin at screen sy(top + panel_top_px)
    set bmargin at screen sy(top + panel_top_px + rows[i] * row_px)
    set label 11 title[i] at screen sx(left + 8), screen sy(top + 14) left font ",12"
    set label 12 note[i] at screen sx(left + 8), screen sy(top + 31) left textcolor rgb "#555555"

    # Room for the numbers beside the bars, on the sides that have bars: a share
    # of the axis' decades.
    decades = log10(high[i] / low[i])
    decades = decades > 0.3 ? decades : 0.3
    pad = 10 ** (0.17 * decades + 0.1)
    edge = 10 ** (0.06 * decades + 0.04)   # a side without bars: room for "1.00"
    x_min = low[i] < 1 ? low[i] / pad : 1 / edge
    x_max = high[i] > 1 ? high[i] * pad : edge
    set xrange [x_min:x_max]
    # A few tics on every axis: powers of 10 (of 100 on a very wide one; of 2 or its
    # square root on a narrow one).
    span = log10(x_max / x_min)
    base = span < 0.9 ? sqrt(2) : (span < 1.8 ? 2 : (span < 6 ? 10 : 100))
    set xtics ()
    do for [k = -40:40] {
        if (base ** k >= x_min && base ** k <= x_max) { set xtics add (tic_text(base ** k) base ** k) }
    }
    set yrange [rows[i] - 0.5:-0.5]

    # Every other row on a light band, so that a label finds its bars.
    do for [k = 1:rows[i] - 1:2] {
        set object 100 + k rect from graph 0, first k - 0.5 to graph 1, first k + 0.5 behind fc rgb "#f2f2f2" fs solid noborder
    }
    set arrow 2 from 1, graph 0 to 1, graph 1 nohead front lc rgb "black" lw 1.5 dt 2

    # The bars, then each one's number beyond its end: right of the bars that go
    # right, left of the others. The numbers' plots read the title line too, as a
    # point of no value, so that row k is record k + 1: gnuplot 5.4 crashes on a
    # labels plot whose only point has no value (a one-row panel).
    plot for [b = 0:bars - 1] datafile index (i - 1) every ::1 \
             using (1):0:(column(b + 2) < 1 ? column(b + 2) : 1):(column(b + 2) < 1 ? 1 : column(b + 2)):($0 + bar_from(b)):($0 + bar_to(b)):ytic(1) \
             with boxxyerror fc rgb bar_colour(b), \
         for [b = 0:bars - 1] datafile index (i - 1) \
             using (column(b + 2) >= 1 ? column(b + 2) : NaN):($0 - 1 + number_at(b)):(ratio_text(column(b + 2))) with labels left offset 0.4, 0 font ",9", \
         for [b = 0:bars - 1] datafile index (i - 1) \
             using (column(b + 2) < 1 ? column(b + 2) : NaN):($0 - 1 + number_at(b)):(ratio_text(column(b + 2))) with labels right offset -0.4, 0 font ",9"

    do for [k = 1:rows[i] - 1:2] { unset object 100 + k }
    # The header was drawn with the first panel.
    if (i == 1) {
        unset label 1; unset label 2; unset label 3; unset label 4; unset label 5; unset label 6
        unset object 1; unset object 2; unset arrow 1
        do for [b = 2:bars - 1] { unset object 20 + b; unset label 20 + b }
    }
}
unset multiplot
