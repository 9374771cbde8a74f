#!/bin/sh
# Checks the dynamic symbol table of the shared library: every exported
# symbol starts with zkr_, none of the names ZooKeeper's own C lock recipe
# exports (zkr_lock_init/lock/unlock/destroy) is defined, and something is
# exported at all.
# usage: test-symbols.sh NM LIBRARY
set -eu

nm_tool=$1
library=$2

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

for reserved in zkr_lock_init zkr_lock_lock zkr_lock_unlock zkr_lock_destroy; do
    if printf '%s\n' "$exported" | grep -qx "$reserved"; then
        echo "FAIL: $reserved is defined; ZooKeeper's C lock recipe owns that name" >&2
        status=1
    fi
done

count=$(printf '%s\n' "$exported" | wc -l)
if [ "$status" -eq 0 ]; then
    echo "ok: $count exported symbols, all zkr_*"
fi
exit $status
