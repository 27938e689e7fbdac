#!/bin/sh
# The tree speaks of the product, not of how it was made: no file of it names a
# work session or an issue by its number ("session" or "issue", in any case,
# then spaces, '_', '-' or '#', then a number). What a session or an issue
# changed belongs in what the code, the docs and NEWS now say; when and where a
# number was measured is said by commit, date and machine. Words without a
# number stay (the Windows logon session of the named semaphores). NEWS's entries
# of past releases, from its second release heading on, are history as written.
#
# The files: in a git checkout whose top is top_srcdir, git's tracked files; in
# a tree without one (a tarball), every file under top_srcdir but what
# autotools and the build make (build trees, configure, Makefile.in, logs, ...).
set -u
: "${top_srcdir:?}"
. "$top_srcdir/tests/shell/shtest.sh"
# grep -E; \b as GNU grep has it.
pattern='\b(session|issue)[ _-]*#?[0-9]+'

# The pattern itself, on lines made here (so that this file says none of them).
matcher_works() {
    n=$((7 * 2))
    printf 'see session %d\nSESSION-%d\nissue #%d\nfixed in Issue_%d\n' $n $n $n $n >"$work/says"
    printf '%s\n' 'shared by the processes of the session' 'issue a wake to 14 waiters' \
        'sessions: 2' 'tissue 5' >"$work/clean"
    [ "$(grep -ciE "$pattern" "$work/says")" -eq 4 ] && ! grep -qiE "$pattern" "$work/clean"
}
check "the pattern finds a session or an issue by number, and nothing else" matcher_works

top=$(cd "$top_srcdir" && pwd -P)
in_git_checkout() {
    command -v git >/dev/null 2>&1 &&
        [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]
}

list_files() { # paths relative to $top, one a line
    if in_git_checkout; then
        git -C "$top" ls-files
        return
    fi
    builddir=
    [ -n "${top_builddir:-}" ] && builddir=$(cd "$top_builddir" && pwd -P)
    (cd "$top" && find . \
        \( -name .git -o -name autom4te.cache -o -name build-aux -o -name m4 \
           -o -name .deps -o -name .libs -o -name 'build*' -o -name _build -o -name _inst \
           -o -name 'wineprefix*' -o -name amalgamation \) -prune \
        -o \( -path ./configure -o -path ./aclocal.m4 -o -name Makefile.in -o -name Makefile \
           -o -path './config.*' -o -path ./libtool -o -path ./slimpthreads.pc \
           -o -name '*.o' -o -name '*.lo' -o -name '*.la' -o -name '*.a' -o -name '*.exe' \
           -o -name '*.dll' -o -name '*.log' -o -name '*.trs' -o -name '*.tar.gz' \
           -o -name .dirstamp -o -name 'stamp-h*' \) -prune \
        -o -type f -print) |
        sed 's|^\./||' |
        if [ -n "$builddir" ] && [ "$builddir" != "$top" ]; then
            case $builddir in
            "$top"/*) grep -v "^${builddir#"$top"/}/" ;;
            *) cat ;;
            esac
        else
            cat
        fi
}

# Prints FILE:LINE:TEXT for every line that says it; NEWS up to its second
# release heading ("* ..." at the start of a line) only.
find_history_words() {
    while IFS= read -r file; do
        [ -f "$top/$file" ] || continue
        if [ "$file" = NEWS ]; then
            awk '/^\* / { if (++headings == 2) exit } { print }' "$top/NEWS" |
                grep -niE "$pattern" | sed 's|^|NEWS:|'
        else
            grep -nIiE "$pattern" "$top/$file" | sed "s|^|$file:|"
        fi
    done
}

if in_git_checkout; then where="git's tracked files"; else where="the files under $top"; fi
list_files >"$work/files"
count=$(wc -l <"$work/files")
find_history_words <"$work/files" >"$work/found"
if [ "$count" -eq 0 ]; then
    fail "no files found in $top"
elif [ -s "$work/found" ]; then
    fail "$(wc -l <"$work/found") lines of $where name a session or an issue by number; say what the product does instead:"
    head -n 40 "$work/found"
else
    pass "$count of $where: none names a session or an issue by number"
fi

shtest_finish history-words
