#!/bin/sh
# The reader's guide (compat/win32/README.md) and the header comments cannot
# drift from the tree unseen:
#  - the guide's Files table lists every file of compat/win32 and include/,
#    and every file it lists exists;
#  - each claim the guide writes as a name, "in" and a file ("`slim_wait_on`
#    in `wait.c`", "`slim_yield` and `slim_nap_ms` in `wait.c`": the guide's
#    convention, said at its top) names something that file defines (a function, a macro, a
#    type or a variable, not merely declared);
#  - each file a comment of compat/win32/*.h or include/*.h names exists (but
#    the few of other projects, $elsewhere below), and a library or POSIX name
#    written before a file in parentheses ("slim_wait_on (wait.c)",
#    "__slim_current_thread_id (slimpthreads_mutex_inline.h)") is defined
#    there.
# Each failure names the claim, the file that makes it and the file it points
# at, so that whoever moves a definition sees which sentence to fix.
# Needs sh, grep, sed, awk and tr only.
set -u
: "${top_srcdir:?}"
. "$top_srcdir/tests/shell/shtest.sh"
top=$top_srcdir
lib=$top/compat/win32
guide=$lib/README.md
# Files header comments name that belong to other projects, or to a configure
# step the library does without (it compiles without config.h to be vendored).
elsewhere="config.h compat/mingw.h"

# The path of a file a text names: a path from the top, or a bare name in
# compat/win32, include/ or the top (README.md), in that order. Prints
# nothing when there is none.
resolve() { # name
    case $1 in
    */*) for candidate in "$top/$1" "$lib/$1"; do
            if [ -f "$candidate" ]; then echo "$candidate"; return; fi
        done ;;
    *) for candidate in "$lib/$1" "$top/include/$1" "$top/$1"; do
            if [ -f "$candidate" ]; then echo "$candidate"; return; fi
        done ;;
    esac
}

# Succeeds when file defines name: a function with its body (the name at a
# line's start, or after its return type, up to a '{' before any ';'; also
# behind a one-argument macro, "SLIM_X(name)("), a #define, a struct, union
# or enum with its members, or a variable at file scope.
defines() { # file name
    awk -v name="$2" '
        BEGIN {
            word = "(^|[^A-Za-z0-9_])" name
            call = word "\\)?[ \t]*\\("
            object = "^[A-Za-z_][^(;]*[ *]" name "(\\[[^]]*\\])*[ \t]*(=|;)"
            tag = "^(typedef[ \t]+)?(struct|union|enum)[ \t]+" name "([ \t]*\\{|[ \t]*$)"
            enumerator = "(^[ \t]*|enum[^{]*\\{.*[{,][ \t]*)" name "[ \t]*(=[^=]|,|}|$)"
        }
        # Settles a signature: 1 at its body, 0 at its end as a declaration.
        function settle(text,    brace, semicolon) {
            brace = index(text, "{")
            semicolon = index(text, ";")
            if (brace && (!semicolon || brace < semicolon)) { found = 1; exit }
            if (semicolon) pending = 0
        }
        pending { settle($0); next }
        $0 ~ "^#[ \t]*define[ \t]+" name "([^A-Za-z0-9_]|$)" { found = 1; exit }
        $0 ~ tag || $0 ~ object || $0 ~ enumerator { found = 1; exit }
        /^[A-Za-z_]/ && $0 ~ call {
            match($0, call)
            pending = 1
            settle(substr($0, RSTART + RLENGTH))
        }
        END { exit !found }' "$1"
}

# The matcher itself, on a file made here: a definition found, a declaration
# and an absent name not (a matcher that finds nothing would pass every claim).
defines_works() {
    printf '%s\n' 'int declared(int a,' '    int b);' 'static int' 'defined(void)' '{' \
        '    return declared(1, 2);' '}' '#define MACRO 1' 'enum { FIRST, SECOND = 2 };' >"$work/sample.c"
    defines "$work/sample.c" defined && defines "$work/sample.c" MACRO &&
        defines "$work/sample.c" SECOND && ! defines "$work/sample.c" declared &&
        ! defines "$work/sample.c" absent
}
check "the matcher tells a definition from a declaration" defines_works

# ---- The Files table ----

# The first column's backquoted names, one a line, from the table under "## Files".
listed_files() {
    awk '/^## / { inside = ($0 == "## Files") } inside && /^\| `/' "$guide" |
        awk -F'|' '{ print $2 }' | grep -o '`[^`]*`' | tr -d '`'
}

check "the guide has a Files table" sh -c "[ -n \"\$(awk '/^## Files/' '$guide')\" ]"
listed=$(listed_files)
missing=0
for name in $listed; do
    if [ -z "$(resolve "$name")" ]; then
        fail "guide's Files table lists $name, which is not in compat/win32 or include/ (compat/win32/README.md)"
        missing=$((missing + 1))
    fi
done
[ "$missing" -gt 0 ] || pass "every file the guide's Files table lists exists ($(echo $listed | wc -w) names)"

unlisted=0
for path in "$lib"/*.c "$lib"/*.h "$top"/include/*.h; do
    case $path in "$top"/include/*) name=include/${path##*/} ;; *) name=${path##*/} ;; esac
    if ! printf '%s\n' $listed | grep -qx "$name"; then
        fail "$name is not in the guide's Files table (compat/win32/README.md, ## Files: add a row)"
        unlisted=$((unlisted + 1))
    fi
done
[ "$unlisted" -gt 0 ] || pass "every file of compat/win32 and include/ is in the guide's Files table"

# ---- The guide's claims: `name` in `file` ----

# One claim a line, "names|file", from the guide joined into one line (a claim
# may wrap).
guide_claims() {
    tr '\n' ' ' <"$guide" |
        grep -oE '(`[A-Za-z_][A-Za-z0-9_]*`(, | and | or ))*`[A-Za-z_][A-Za-z0-9_]*` in `[A-Za-z0-9_./]+\.[ch]`' |
        sed 's/` in `/|/; s/`//g; s/, / /g; s/ and / /g; s/ or / /g'
}

claims=0
wrong=0
guide_claims >"$work/claims"
while IFS='|' read -r names file; do
    path=$(resolve "$file")
    for name in $names; do
        claims=$((claims + 1))
        if [ -z "$path" ]; then
            fail "guide says \`$name\` in \`$file\`: there is no $file (compat/win32/README.md)"
            wrong=$((wrong + 1))
        elif ! defines "$path" "$name"; then
            fail "guide says \`$name\` in \`$file\`: $file does not define $name (compat/win32/README.md)"
            wrong=$((wrong + 1))
        fi
    done
done <"$work/claims"
if [ "$claims" -lt 1 ]; then
    fail "the guide makes no claim of the form \`name\` in \`file\` (its convention, said at its top)"
elif [ "$wrong" -eq 0 ]; then
    pass "the guide's $claims claims \`name\` in \`file\` hold"
fi

# ---- Header comments ----

# Every comment of a header, one line of text per source line, the header's
# name first ("file: text"), without the lines of code around them.
comment_text() { # header
    awk -v file="${1##*/}" '
        {
            line = $0
            while (line != "") {
                if (!inside) {
                    start = index(line, "/*")
                    if (!start) break
                    line = substr(line, start + 2)
                    inside = 1
                }
                stop = index(line, "*/")
                text = stop ? substr(line, 1, stop - 1) : line
                print file ": " text
                if (!stop) break
                line = substr(line, stop + 2)
                inside = 0
            }
        }' "$1"
}

headers="$lib/*.h $top/include/*.h"
for header in $headers; do comment_text "$header"; done >"$work/comments"

bad_files=0
files_named=0
# File names in comments: words, without <system> headers, globs or names
# with other characters (gthr-posix.h).
awk '
    {
        header = $1
        sub(/:$/, "", header)
        for (i = 2; i <= NF; i++) {
            word = $i
            if (word ~ /^</) continue
            sub(/^[(`"\047]+/, "", word)
            sub(/\047s$/, "", word)
            sub(/[)`"\047.,;:]+$/, "", word)
            if (word ~ /^([A-Za-z0-9_]+\/)*[A-Za-z0-9_]+\.(c|h|md|sh)$/)
                print header "|" word
        }
    }' "$work/comments" | sort -u >"$work/named"
while IFS='|' read -r header name; do
    files_named=$((files_named + 1))
    if printf '%s\n' $elsewhere | grep -qx "$name"; then
        continue
    elif [ -z "$(resolve "$name")" ]; then
        fail "$header's comment names $name, which does not exist"
        bad_files=$((bad_files + 1))
    fi
done <"$work/named"
[ "$bad_files" -gt 0 ] || pass "the $files_named file names in header comments exist"

# "name (file.c)" in a comment, for the library's names (slim_*, SLIM_*, with
# or without __) and the public calls.
names='(__)?(slim|SLIM)_[A-Za-z0-9_]*|(pthread|sem|sched|thrd|mtx|cnd|tss|clock)_[a-z0-9_]*'
bad_defs=0
defs_named=0
for header in $headers; do
    comment_text "$header" | sed 's/^[^:]*: //' |
        grep -oE "(^|[^A-Za-z0-9_])($names) \\([A-Za-z0-9_]+\\.[ch][):;,]" |
        sed 's/^[^A-Za-z0-9_]//; s/ (/|/; s/[):;,]$//' | sort -u >"$work/pairs"
    while IFS='|' read -r name file; do
        defs_named=$((defs_named + 1))
        path=$(resolve "$file")
        if [ -z "$path" ] || ! defines "$path" "$name"; then
            fail "${header##*/}'s comment says $name is $file's: $file does not define it"
            bad_defs=$((bad_defs + 1))
        fi
    done <"$work/pairs"
done
[ "$bad_defs" -gt 0 ] || pass "the $defs_named names header comments place in a file are defined there"

shtest_finish guide
