#!/bin/sh
# The checked calls are listed once, in compat/win32/check_calls.h (check.h
# says why a list): each listed call is defined under its own name in the
# primitive's file the list names, and the checked library's function of that
# name opens a call of the checker (slim_check_begin, _lock_begin or
# _unlock_begin, inlined there by check.h's hooks, so that the site a report
# names is the function's caller); no other function of the checked library
# opens one; the normal library calls nothing of the checker.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${OBJDUMP:?}" "${NM:?}"
. "$top_srcdir/tests/shell/shtest.sh"
table=$top_srcdir/compat/win32/check_calls.h
plain=$top_builddir/.libs/libslimpthreads.a
checked=$top_builddir/.libs/libslimpthreads-checked.a

# "file name" for each entry of the table.
sed -n 's/^[ \t]*CALL(\([a-z0-9_]*\), *\([a-z_]*\)).*/\1 \2/p' "$table" >"$work/calls"
sort -k2 "$work/calls" | awk '{print $2}' >"$work/listed"
if [ -s "$work/listed" ] && [ -z "$(uniq -d "$work/listed")" ]; then
    pass "check_calls.h lists $(wc -l <"$work/listed") calls, each once"
else
    fail "check_calls.h: no entries, or one listed twice: $(uniq -d "$work/listed" | tr '\n' ' ')"
fi

missing=
while read -r file name; do
    grep -Eq "^(int|void) $name\(" "$top_srcdir/compat/win32/$file.c" || missing="$missing $file.c:$name"
done <"$work/calls"
if [ -z "$missing" ]; then
    pass "each listed call is defined under its own name in its primitive's file"
else
    fail "not defined where check_calls.h says:$missing"
fi

# The functions of the checked library, the checker's own objects (check*.c)
# aside, that open a checker's call: each function's disassembly with its
# relocations, the link prefix taken off.
$OBJDUMP -dr "$checked" | awk '
    /file format/ { checker = ($1 ~ /-check[a-z_]*\.(o|obj)[):]/); name = ""; next }
    /^[0-9a-f]+ <[^>]*>:$/ { name = $2; gsub(/[<>:]/, "", name); next }
    /slim_check_(lock_|unlock_)?begin/ && name != "" && !checker { print name }' |
    sed 's/^_\{0,1\}slimpthreads_checked_//' | sort -u >"$work/opening"
if diff "$work/listed" "$work/opening" >"$work/diff"; then
    pass "the checked library's functions that open a checker's call are the listed ones"
else
    fail "listed (<) and opening a checker's call in the checked library (>) differ:"
    cat "$work/diff"
fi

if $NM -u "$plain" | grep -q 'slim_check_'; then
    fail "the normal library calls the checker: $($NM -u "$plain" | grep 'slim_check_' | sort -u | head -n 3)"
else
    pass "the normal library calls nothing of the checker"
fi
shtest_finish check_calls
