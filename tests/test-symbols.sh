#!/bin/sh
# Checks the dynamic symbol table of the shared library: every exported
# symbol starts with zkr_, none of the names ZooKeeper's own C lock recipe
# exports (zkr_lock_init/lock/unlock/destroy) is defined, something is
# exported at all, and nothing internal is: no zkr__* name (the prefix of
# the library's internal functions, docs/design.md §1) and no name the
# public headers in INCLUDE_DIR do not declare.
# usage: test-symbols.sh NM LIBRARY INCLUDE_DIR
set -eu

nm_tool=$1
library=$2
include_dir=$3

symbols=$("$nm_tool" -D --defined-only "$library" | awk '{ print $NF }' | sed 's/@.*//')

# Symbols the linker defines in every shared object.
linker_symbols='^(_init|_fini|_edata|_end|__bss_start|__bss_start__|_bss_end__|__bss_end__|__end__|__data_start|_DYNAMIC|_GLOBAL_OFFSET_TABLE_)$'
exported=$(printf '%s\n' "$symbols" | grep -Ev "$linker_symbols" | grep -v '^$' || true)

status=0
if [ -z "$exported" ]; then
    echo "FAIL: $library exports nothing" >&2
    exit 1
fi

stray=$(printf '%s\n' "$exported" | grep -v '^zkr_' || true)
if [ -n "$stray" ]; then
    echo "FAIL: exported symbols without the zkr_ prefix:" >&2
    printf '  %s\n' $stray >&2
    status=1
fi

internal=$(printf '%s\n' "$exported" | grep '^zkr__' || true)
if [ -n "$internal" ]; then
    echo "FAIL: internal symbols exported:" >&2
    printf '  %s\n' $internal >&2
    status=1
fi

declared=$(cat "$include_dir"/*.h | grep -o 'zkr_[a-z0-9_]*' | sort -u)
undeclared=$(printf '%s\n' "$exported" | grep '^zkr_' | sort -u | comm -23 - "$(printf '%s\n' "$declared" > "${TMPDIR:-/tmp}/zkr-declared.$$"; echo "${TMPDIR:-/tmp}/zkr-declared.$$")" || true)
rm -f "${TMPDIR:-/tmp}/zkr-declared.$$"
if [ -n "$undeclared" ]; then
    echo "FAIL: exported symbols no public header declares:" >&2
    printf '  %s\n' $undeclared >&2
    status=1
fi

for reserved in zkr_lock_init zkr_lock_lock zkr_lock_unlock zkr_lock_destroy; do
    if printf '%s\n' "$exported" | grep -qx "$reserved"; then
        echo "FAIL: $reserved is defined; ZooKeeper's C lock recipe owns that name" >&2
        status=1
    fi
done

count=$(printf '%s\n' "$exported" | wc -l)
if [ "$status" -eq 0 ]; then
    echo "ok: $count exported symbols, all zkr_* and declared in $include_dir"
fi
exit $status
