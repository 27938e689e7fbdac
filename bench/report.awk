# bench/report.awk - medians, tables and targets of a benchmark run.
#
# awk -F'\t' -v csv=FILE -v targets_csv=FILE -v chart=FILE -v reps=N \
#     [-v peers="NAME ..."] -f report.awk targets.txt all.tsv
# targets.txt: see its header. all.tsv: "program<TAB>rep<TAB>" + a line of a
# benchmark program (harness.h describes them). Prints markdown tables on
# stdout, and the chart's data into chart (see "The chart's data"); exits 1
# when a measurement is missing from some program.
# peers: the optional extra programs of run.sh (bench/peers.md), each another
# build of bench_posix.c: per peer, two more columns in the tables (its value
# and slim/NAME, before "raw is"), four more at the end of the CSV (NAME,
# slim_over_NAME, NAME_min, NAME_max), one more bar in the chart. Without peers
# the output is what it always was.

function median(program, key,    n, i, j, v, tmp) {
    n = count[program, key]
    if (n == 0)
        return ""
    for (i = 1; i <= n; i++)
        v[i] = values[program, key, i] + 0
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
            tmp = v[j]; v[j] = v[j - 1]; v[j - 1] = tmp
        }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# The smallest (sign 1) or largest (sign -1) of the measured values.
function extreme(program, key, sign,    n, i, m) {
    n = count[program, key]
    if (n == 0)
        return ""
    m = values[program, key, 1] + 0
    for (i = 2; i <= n; i++)
        if (sign * (values[program, key, i] + 0) < sign * m)
            m = values[program, key, i] + 0
    return m
}

function minimum(program, key) { return extreme(program, key, 1) }
function maximum(program, key) { return extreme(program, key, -1) }

function fmt(x) {
    if (x == "")
        return "-"
    x += 0
    if (x < 0) return sprintf("%.3g", x)
    if (x >= 10000) return sprintf("%.0f", x)
    if (x >= 100) return sprintf("%.1f", x)
    if (x >= 10) return sprintf("%.2f", x)
    return sprintf("%.3f", x)
}

function ratio(a, b) {
    if (a == "" || b == "" || b + 0 == 0)
        return "-"
    return sprintf("%.2f", a / b)
}

function higher_is_better(unit) {
    return unit ~ /\/s$/ || unit == "of_even"
}

# What the raw program uses for this variant (its #impl lines; * is a wildcard).
function raw_impl(c, v,    k, pattern, base, prefix) {
    if (v ~ /^c11_/)
        return "(C11 <threads.h>: compare with slimpthreads' pthread row)"
    base = v
    sub(/-.*/, "", base)
    if ((c, v) in impl)
        return impl[c, v]
    if ((c, base) in impl)
        return impl[c, base]
    for (k in impl) {
        split(k, pattern, SUBSEP)
        if (pattern[1] != c || pattern[2] !~ /\*$/)
            continue
        prefix = substr(pattern[2], 1, length(pattern[2]) - 1)
        if (substr(v, 1, length(prefix)) == prefix)
            return impl[k]
    }
    return ""
}

function row(cells, n,    i, line) {
    line = "|"
    for (i = 1; i <= n; i++)
        line = line " " sprintf(i <= 3 ? "%-" width[i] "s" : "%" width[i] "s", cells[i]) " |"
    print line
}

function header(    i, line) {
    row(head, ncols)
    line = "|"
    for (i = 1; i <= ncols; i++)
        line = line (i <= 3 ? ":" : "-") sprintf("%" width[i] "s", "") (i <= 3 ? "-" : ":") "|"
    gsub(/ /, "-", line)
    print line
}

# A program's cell: its median, or "unsupported" for a variant it cannot run.
function cell_value(program, c, v, value) {
    if (value == "" && (program, c, v) in unsupported)
        return "unsupported"
    return fmt(value) capped_mark(program, c, v)
}

# Whether a program lacks a measurement it should have.
function lacks(program, c, v, value) {
    return value == "" && !((program, c, v) in unsupported)
}

function capped_mark(program, c, v) {
    return ((program, c, v) in capped) ? "*" : ""
}

# A target's side: program:case:variant:metric. The program best_peer is the
# lowest median of winpthreads and the peers of this run (the targets that
# name it are times: lower is better), so that a run with more peers is held
# to the best of them.
# A side may also be A/B, two such measurements: the ratio of their medians.
# That lets a target compare two ratios with the usual kinds, as the load
# targets do (slimpthreads' ratio to raw under load, against the same ratio
# quiet, from the same run).
# A variant ending in -loadN stands for the run's loaded row (run.sh --load 2:
# -load2); in a run without load it is not measured.
# A plain number is a bound of its own, not a measurement.
function target_value(spec,    halves, num, den, p, key) {
    if (spec ~ /^[0-9.]+$/)
        return spec
    if (split(spec, halves, "/") == 2) {
        num = target_value(halves[1])
        den = target_value(halves[2])
        return num == "" || den == "" || den + 0 == 0 ? "" : num / den
    }
    split(spec, p, ":")
    if (p[3] ~ /-loadN$/) {
        if (load_suffix == "")
            return ""
        sub(/-loadN$/, load_suffix, p[3])
    }
    key = p[2] SUBSEP p[3] SUBSEP p[4]
    return median(p[1] == "best_peer" ? best_peer_program(key) : p[1], key)
}

# The program best_peer stands for at key: winpthreads or the peer with the
# lowest median. A peer named prev or prev-SOMETHING is an earlier build of
# slimpthreads, run beside it to see what a change moved: not a peer to beat
# (against itself, a target would be a coin toss).
function best_peer_program(key,    best, i, v) {
    best = "winpthreads"
    for (i = 1; i <= npeers; i++) {
        if (peer[i] ~ /^prev(-|$)/)
            continue
        v = median(peer[i], key)
        if (v != "" && (median(best, key) == "" || v + 0 < median(best, key) + 0))
            best = peer[i]
    }
    return best
}

# Kind le_noise: whether lhs's fastest repetition is no slower than rhs's
# slowest, so that the run cannot tell the two apart (times; plain sides
# only, best_peer allowed).
function within_noise(lhs, rhs,    p, q, fastest, slowest) {
    split(lhs, p, ":")
    split(rhs, q, ":")
    fastest = minimum(p[1], p[2] SUBSEP p[3] SUBSEP p[4])
    slowest = maximum(q[1] == "best_peer" ? best_peer_program(q[2] SUBSEP q[3] SUBSEP q[4]) : q[1],
                      q[2] SUBSEP q[3] SUBSEP q[4])
    return fastest != "" && slowest != "" && fastest + 0 <= slowest + 0
}

# ---- The chart's data (chart.gp draws it) ----
# chart.dat holds one block per panel, blocks apart by two blank lines (gnuplot's
# "index"). A block's first line is "title<TAB>the title<TAB>a note" (note "-":
# none), then one line per row: label<TAB>slimpthreads<TAB>winpthreads, then
# <TAB>peer for each peer, each the cost relative to raw Win32 (1 = raw, lower is
# better whatever the measurement; "-": none, as winpthreads has no C11 rows). A
# case is one panel, unless it has more than 20 rows and several metrics (too
# tall to read): then one per metric.

# Cost relative to raw: a rate or a share (higher is better) is turned upside down,
# so that every bar reads the same way.
function cost(value, raw, hb) {
    return sprintf("%.4g", hb ? raw / value : value / raw)
}

# The pthread row whose objects a C11 row runs on (c11_mtx-2t -> mutex-2t): its raw
# value is the C11 row's floor, as the c11 targets compare them.
function pthread_twin(variant) {
    sub(/^c11_/, "", variant)
    sub(/^mtx_plain$/, "mutex_default", variant)
    sub(/^mtx/, "mutex", variant)
    return variant
}

# One panel: the rows of case `name` (of `metric` only, unless it is ""), the rows
# of a variant family (mutex-1t ... mutex-6t) together, so that a trend reads down.
function chart_panel(name, metric, title,    i, j, g, label, notes, has_hb, has_c11) {
    for (i = 1; i <= chart_rows; i++)
        if (metric == "" || chart_metric[i] == metric) {
            has_hb = has_hb || chart_hb[i]
            has_c11 = has_c11 || chart_variant[i] ~ /^c11_/
        }
    notes = (name in chart_note) ? chart_note[name] : ""
    if (has_hb)
        notes = notes (notes == "" ? "" : "; ") "^ higher is better: drawn as raw / value"
    if (has_c11)
        notes = notes (notes == "" ? "" : "; ") "c11_: <threads.h>, over the raw of its pthread row"
    if (chart_panels++)
        printf "\n\n" >chart
    printf "title\t%s\t%s\n", title, (notes == "" ? "-" : notes) >chart
    for (g = 1; g <= chart_families; g++)
        for (i = 1; i <= chart_rows; i++) {
            if (chart_family[i] != g || (metric != "" && chart_metric[i] != metric))
                continue
            label = chart_variant[i]
            if (metric == "" && chart_metrics > 1)
                label = label " " chart_metric[i]
            if (metric == "" && chart_hb[i])
                label = label " ^"
            printf "%s\t%s\t%s", label, chart_slim[i], chart_winp[i] >chart
            for (j = 1; j <= npeers; j++)
                printf "\t%s", chart_peer[i, j] >chart
            printf "\n" >chart
        }
}

# The panels of case `name`, from the medians of its rows.
function chart_case(name,    k, part, s, w, r, hb, family, title, family_rank, metric_seen,
                    metric_list, metric_hb, metric_unit, m, j, pv) {
    chart_rows = 0; chart_families = 0; chart_metrics = 0
    for (k = 1; k <= nkeys; k++) {
        split(keys[k], part, SUBSEP)
        if (part[1] != name)
            continue
        s = med["slimpthreads", keys[k]]
        w = part[2] ~ /^c11_/ ? "" : med["winpthreads", keys[k]]
        r = med["raw", name SUBSEP (part[2] ~ /^c11_/ ? pthread_twin(part[2]) : part[2]) SUBSEP part[3]]
        if (!(s + 0 > 0 && r + 0 > 0) ||
            (part[2] !~ /^c11_/ && !(w + 0 > 0) &&
             !(("winpthreads", name, part[2]) in unsupported)))
            continue
        hb = higher_is_better(unit[keys[k]])
        chart_rows++
        chart_variant[chart_rows] = part[2]
        chart_metric[chart_rows] = part[3]
        chart_hb[chart_rows] = hb
        chart_slim[chart_rows] = cost(s, r, hb)
        chart_winp[chart_rows] = !(w + 0 > 0) ? "-" : cost(w, r, hb)
        for (j = 1; j <= npeers; j++) {
            pv = part[2] ~ /^c11_/ ? "" : med[peer[j], keys[k]]
            chart_peer[chart_rows, j] = pv + 0 > 0 ? cost(pv, r, hb) : "-"
        }
        family = part[2]
        sub(/-[0-9]+t$/, "", family)
        if (!(family in family_rank))
            family_rank[family] = ++chart_families
        chart_family[chart_rows] = family_rank[family]
        if (!(part[3] in metric_seen)) {
            metric_seen[part[3]] = 1
            metric_list[++chart_metrics] = part[3]
            metric_hb[part[3]] = hb
            metric_unit[part[3]] = unit[keys[k]]
        }
    }
    if (chart_rows == 0)
        return
    title = (name in chart_title) ? chart_title[name] : name
    if (chart_rows <= 20 || chart_metrics == 1) {
        chart_panel(name, "", title)
        return
    }
    for (m = 1; m <= chart_metrics; m++)
        chart_panel(name, metric_list[m], title " - " metric_list[m] \
            (metric_hb[metric_list[m]] ? " ^" : "") " (" metric_unit[metric_list[m]] ")")
}

BEGIN {
    title["uncontended"] = "d. Uncontended, one thread: ns per operation (best batch of each run)"
    title["lockperf"] = "a. APR testlockperf: one lock, 1-6 threads x N lock/unlock pairs: wall ns per pair"
    title["nsv"] = "b. NaviServer nsv: 20 background threads + 1 foreground on one lock, -wN = N% writes: fg = foreground ns/op, all = time until all 21 are done per operation"
    title["cond2010"] = "c. 2010 condvar test: 1 broadcaster, 10 waiters; bN = broadcast every N ms, wN = each waiter waits every N ms: us per broadcast call, us from broadcast to waiter running"
    title["queue"] = "e. Producer/consumer through a queue of 64 (mutex + 2 condvars): items/s, and process CPU time per item"
    title["thread"] = "f. Thread create + join"
    title["bufread"] = "g. APR buffered file: a 4 KB buffered reader read byte by byte, without and with a mutex around each byte"
    title["handoff"] = "h. Hand-off ping-pong between two threads: one-way us, and process CPU us per hand-off (raw: sem = kernel semaphore, cond = CONDITION_VARIABLE + CRITICAL_SECTION)"
    title["sleep"] = "i. Requested versus actual sleep: mean us slept for a request of 50 us, 200 us, 1 ms, 10 ms (raw: Sleep with the request rounded up to ms; checksum: sleeps not early)"
    title["sweep"] = "j. Contention sweep: one lock, 2-8 threads, critical sections of 0 / 100 / 1000 / 10000 ns, nothing outside: throughput, process and machine CPU per operation, slowest thread's share of an even split"
    # The chart's panel titles: what a reader needs to read the bars, one line.
    chart_title["uncontended"] = "d. uncontended, one thread: ns per operation"
    chart_title["lockperf"] = "a. lockperf: one lock, 1-6 threads: ns per lock/unlock pair"
    chart_title["nsv"] = "b. nsv: 20 background + 1 foreground thread, N% writes"
    chart_title["cond2010"] = "c. cond2010: 1 broadcaster, 10 waiters: us per broadcast, to wake-up"
    chart_title["queue"] = "e. queue of 64 (mutex + 2 condvars): items/s, CPU per item"
    chart_title["thread"] = "f. pthread_create + pthread_join: us per pair"
    chart_title["bufread"] = "g. bufread: a file read byte by byte, no lock / a mutex per byte"
    chart_title["handoff"] = "h. hand-off ping-pong: one-way us, CPU us per hand-off"
    chart_title["sleep"] = "i. sleep: mean actual sleep for requests of 50 us - 10 ms"
    chart_title["sweep"] = "j. sweep: 2-8 threads, one lock held 0-10000 ns"
    chart_note["handoff"] = "raw sem: a kernel semaphore"
    title["xproc"] = "k. Two processes on one object (-2p: in memory both map, each at its own address) and two threads on a private one (-2t): mutex ns per lock/unlock pair of both sides, cond and sem ping-pong us per round trip (raw -2p: named kernel objects)"
    chart_title["xproc"] = "k. xproc: 2 processes (-2p) / 2 threads (-2t): mutex ns/pair, ping-pong us/round trip"
    chart_note["xproc"] = "raw -2p: named mutex, named semaphores, auto-reset events"
    chart_note["sleep"] = "raw: Sleep in whole ms; lower is NOT better here: a sleep cut short is cheap"
    title["yieldloop"] = "l. mcfgthread's benchmark shape: 2-32 threads, each round lock, a little floating-point work, unlock, lock, store, unlock, yield: wall ns per round (all threads' rounds), process CPU ns per round (raw: mutex = CRITICAL_SECTION, srwlock = SRWLOCK; SwitchToThread)"
    chart_title["yieldloop"] = "l. yieldloop: 2-32 threads, lock/work/unlock/lock/store/unlock/yield: ns per round"
    split("variant|metric|unit|slimpthreads|winpthreads|raw|slim/winp|slim/raw|raw is", head, "|")
    split("22|10|8|12|12|12|9|9|1", width, "|")
    # The peers' columns go before "raw is", which stays last.
    npeers = split(peers, peer, " ")
    ncols = 9 + 2 * npeers
    for (j = 1; j <= npeers; j++) {
        head[7 + 2 * j] = peer[j]
        width[7 + 2 * j] = length(peer[j]) > 12 ? length(peer[j]) : 12
        head[8 + 2 * j] = "slim/" peer[j]
        width[8 + 2 * j] = length(head[8 + 2 * j]) > 9 ? length(head[8 + 2 * j]) : 9
    }
    head[ncols] = "raw is"
    width[ncols] = 1
    missing = 0
}

FNR == NR {
    if ($0 ~ /^#/ || $0 ~ /^[[:space:]]*$/)
        next
    ntargets++
    split($0, t, "|")
    t_area[ntargets] = t[1]; t_what[ntargets] = t[2]; t_kind[ntargets] = t[3]
    t_lhs[ntargets] = t[4]; t_factor[ntargets] = t[5]; t_rhs[ntargets] = t[6]
    next
}

{
    sub(/\r$/, "") # the programs are Windows programs: CR LF
    program = $1
    if ($3 == "#impl") {
        if (program == "raw")
            impl[$4, $5] = $6
        next
    }
    if ($3 == "#capped") {
        capped[program, $4, $5] = 1
        next
    }
    # A variant this program cannot run (winpthreads refuses PROCESS_SHARED):
    # its cell says so, and it is not missing.
    if ($3 == "#unsupported") {
        unsupported[program, $4, $5] = $6
        if (index(unsupported_list[$4], program ": " $6) == 0)
            unsupported_list[$4] = unsupported_list[$4] (unsupported_list[$4] == "" ? "" : "; ") \
                program ": " $6
        next
    }
    if ($3 ~ /^#/ || $3 == "done" || NF < 8 || $6 !~ /^[-+0-9.eE]+$/)
        next
    key = $3 SUBSEP $4 SUBSEP $5
    # The loaded rows of run.sh --load N (one N a run): the load targets name them -loadN.
    if (load_suffix == "" && match($4, /-load[0-9]+$/))
        load_suffix = substr($4, RSTART)
    if (!(key in seen)) {
        seen[key] = 1
        nkeys++
        keys[nkeys] = key
        if ($4 ~ /-load[0-9]+$/)
            loaded_case[$3] = 1
        if (!($3 in case_seen)) {
            case_seen[$3] = 1
            ncases++
            cases[ncases] = $3
        }
    }
    unit[key] = $7
    count[program, key]++
    values[program, key, count[program, key]] = $6
}

END {
    split("slimpthreads winpthreads raw", programs, " ")
    line = "case,variant,metric,unit,slimpthreads,winpthreads,raw,slim_over_winpthreads,slim_over_raw,reps,slimpthreads_min,winpthreads_min,raw_min,slimpthreads_max,winpthreads_max,raw_max"
    for (j = 1; j <= npeers; j++)
        line = line "," peer[j] ",slim_over_" peer[j] "," peer[j] "_min," peer[j] "_max"
    print line >csv
    for (c = 1; c <= ncases; c++) {
        name = cases[c]
        print ""
        print "### " (name in title ? title[name] : name)
        print ""
        header()
        for (k = 1; k <= nkeys; k++) {
            split(keys[k], part, SUBSEP)
            if (part[1] != name)
                continue
            s = median("slimpthreads", keys[k])
            w = median("winpthreads", keys[k])
            r = median("raw", keys[k])
            # The c11_ variants: <threads.h>, which only slimpthreads has.
            if (lacks("slimpthreads", part[1], part[2], s) ||
                (part[2] !~ /^c11_/ && (lacks("winpthreads", part[1], part[2], w) || r == ""))) {
                missing++
                printf "run.sh: %s/%s/%s is missing from a program\n", part[1], part[2], part[3] >"/dev/stderr"
            }
            med["slimpthreads", keys[k]] = s
            med["winpthreads", keys[k]] = w
            med["raw", keys[k]] = r
            cell[1] = part[2]; cell[2] = part[3]
            cell[3] = unit[keys[k]] (higher_is_better(unit[keys[k]]) ? " ^" : "")
            cell[4] = cell_value("slimpthreads", part[1], part[2], s)
            cell[5] = cell_value("winpthreads", part[1], part[2], w)
            cell[6] = fmt(r) capped_mark("raw", part[1], part[2])
            cell[7] = ratio(s, w); cell[8] = ratio(s, r)
            peer_csv = ""
            for (j = 1; j <= npeers; j++) {
                pv = median(peer[j], keys[k])
                if (lacks(peer[j], part[1], part[2], pv) && part[2] !~ /^c11_/) {
                    missing++
                    printf "run.sh: %s/%s/%s is missing from peer %s\n", part[1], part[2], part[3], peer[j] >"/dev/stderr"
                }
                med[peer[j], keys[k]] = pv
                cell[7 + 2 * j] = cell_value(peer[j], part[1], part[2], pv)
                cell[8 + 2 * j] = ratio(s, pv)
                peer_csv = peer_csv "," pv "," (cell[8 + 2 * j] == "-" ? "" : cell[8 + 2 * j]) \
                    "," minimum(peer[j], keys[k]) "," maximum(peer[j], keys[k])
            }
            cell[ncols] = raw_impl(part[1], part[2])
            row(cell, ncols)
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s%s\n", part[1], part[2], part[3],
                unit[keys[k]], s, w, r, (cell[7] == "-" ? "" : cell[7]),
                (cell[8] == "-" ? "" : cell[8]), reps,
                minimum("slimpthreads", keys[k]), minimum("winpthreads", keys[k]),
                minimum("raw", keys[k]), maximum("slimpthreads", keys[k]),
                maximum("winpthreads", keys[k]), maximum("raw", keys[k]), peer_csv >csv
        }
        chart_case(name)
        print ""
        print "(^ higher is better; elsewhere lower is better)"
        if (name in unsupported_list)
            printf "(unsupported: %s)\n", unsupported_list[name]
        if (loaded_case[name])
            printf "(%s: the same rows with %s busy threads beside them, same run; cpu leaves their time out)\n",
                load_suffix, substr(load_suffix, 6)
        if (name == "lockperf" || name == "nsv")
            print "(* stopped at the time limit in some repetition before doing all its work: the value is over the work done)"
        if (name == "nsv") {
            print ""
            print "rwlock time relative to the mutex (below 1: the rwlock wins):"
            print ""
            line = "|      writes | metric | slimpthreads | winpthreads | raw (SRWLOCK / CRITICAL_SECTION) |"
            rule = "|------------:|:-------|-------------:|------------:|---------------------------------:|"
            for (j = 1; j <= npeers; j++) {
                line = line sprintf(" %" width[7 + 2 * j] "s |", peer[j])
                rule = rule sprintf("%" width[7 + 2 * j] + 1 "s:|", "")
            }
            gsub(/ /, "-", rule)
            print line
            print rule
            for (k = 1; k <= nkeys; k++) {
                split(keys[k], part, SUBSEP)
                if (part[1] != "nsv" || part[2] !~ /^rwlock-/)
                    continue
                mk = "nsv" SUBSEP "mutex-" substr(part[2], 8) SUBSEP part[3]
                label = substr(part[2], 8) # w10 -> 10%; busy-b1-f50 as it is
                if (label ~ /^w/)
                    label = substr(label, 2) "%"
                printf "| %11s | %-6s | %12s | %11s | %32s |", label, part[3],
                    ratio(med["slimpthreads", keys[k]], med["slimpthreads", mk]),
                    ratio(med["winpthreads", keys[k]], med["winpthreads", mk]),
                    ratio(med["raw", keys[k]], med["raw", mk])
                for (j = 1; j <= npeers; j++)
                    printf " %" width[7 + 2 * j] "s |", ratio(med[peer[j], keys[k]], med[peer[j], mk])
                printf "\n"
            }
            nk = "nsv" SUBSEP "nolock-w0" SUBSEP "all"
            mk = "nsv" SUBSEP "mutex-w0" SUBSEP "all"
            rk = "nsv" SUBSEP "rwlock-w0" SUBSEP "all"
            print ""
            printf "no writers, all the work, next to no lock at all (nolock-w0, the floor): our mutex %sx, our rwlock %sx; ",
                ratio(med["slimpthreads", mk], med["slimpthreads", nk]),
                ratio(med["slimpthreads", rk], med["slimpthreads", nk])
            printf "so no rwlock can take less than %sx our mutex's time here\n",
                ratio(med["slimpthreads", nk], med["slimpthreads", mk])
        }
        if (name == "bufread") {
            nk = "bufread" SUBSEP "nolock" SUBSEP "byte"
            mk = "bufread" SUBSEP "mutex" SUBSEP "byte"
            print ""
            printf "price of the lock per byte (mutex - nolock): slimpthreads %s ns, winpthreads %s ns, raw %s ns",
                fmt(med["slimpthreads", mk] - med["slimpthreads", nk]),
                fmt(med["winpthreads", mk] - med["winpthreads", nk]),
                fmt(med["raw", mk] - med["raw", nk])
            for (j = 1; j <= npeers; j++)
                printf ", %s %s ns", peer[j], fmt(med[peer[j], mk] - med[peer[j], nk])
            printf "\n"
        }
    }

    print ""
    print "### Targets (medians of this run)"
    print ""
    print "| area | target | measured | bound | result |"
    print "|:-----|:-------|---------:|------:|:-------|"
    print "area,target,kind,measured_ratio,bound,result" >targets_csv
    met = 0; notmet = 0
    for (i = 1; i <= ntargets; i++) {
        kind = t_kind[i]
        lhs = target_value(t_lhs[i])
        if (kind == "finishes") {
            split(t_lhs[i], p, ":")
            capped_any = (p[1], p[2], p[3]) in capped
            measured = lhs == "" ? "-" : (capped_any ? "capped" : "finished")
            bound = "-"
            result = lhs == "" ? "not measured" : (capped_any ? "NOT met" : "met")
        } else {
            rhs = target_value(t_rhs[i])
            bound = sprintf("%s%s", kind == "ge" ? ">= " : (kind == "lt" ? "< " : (kind ~ /^le/ ? "<= " : "")), t_factor[i]) (kind == "info" ? "" : "x") \
                (kind == "le_noise" ? " or noise" : "")
            if (kind == "info")
                bound = "-"
            if (lhs == "" || rhs == "" || rhs + 0 == 0) {
                measured = "-"
                result = "not measured"
            } else {
                q = lhs / rhs
                measured = sprintf("%.2fx", q)
                if (kind == "le") result = q <= t_factor[i] + 1e-9 ? "met" : "NOT met"
                else if (kind == "lt") result = q < t_factor[i] ? "met" : "NOT met"
                else if (kind == "ge") result = q >= t_factor[i] - 1e-9 ? "met" : "NOT met"
                else if (kind == "le_noise")
                    result = q <= t_factor[i] + 1e-9 || within_noise(t_lhs[i], t_rhs[i]) ? "met" : "NOT met"
                else result = "info"
            }
        }
        if (result == "met") met++
        if (result == "NOT met") notmet++
        printf "| %s | %s | %s | %s | %s |\n", t_area[i], t_what[i], measured, bound, result
        printf "%s,\"%s\",%s,%s,%s,%s\n", t_area[i], t_what[i], kind, measured, bound, result >targets_csv
    }
    print ""
    printf "targets: %d met, %d NOT met\n", met, notmet
    exit missing ? 1 : 0
}
