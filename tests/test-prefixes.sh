#!/bin/sh
# Checks the internal naming rule of docs/design.md §1 on every file of
# core/: a function defined there and not static is public (zkr_, declared
# in include/zkr/) or named zkr__<file>_<verb> (or zkr__<file> alone, the
# file's one call), <file> the file's base name with - as _. Prints each
# offender as FILE: NAME and fails if there is one.
# usage: test-prefixes.sh CORE_DIR
set -eu

core_dir=$1
status=0
for file in "$core_dir"/*.c; do
    base=$(basename "$file" .c | tr - _)
    # GNU style: the return type on its own line, the name at column 0 on
    # the next; a definition is one whose return type is not static.
    offenders=$(awk -v prefix="zkr__${base}_" '
        /^[a-z_][a-z0-9_]* *\(/ && prev !~ /^static/ && prev !~ /^#/ && prev != "" \
            && prev !~ /[;{}]$/ && prev !~ /\\$/ {
            name = $0
            sub(/ *\(.*/, "", name)
            if (name !~ /^zkr_[a-z]/ && index(name, prefix) != 1 && name "_" != prefix)
                print name
        }
        { prev = $0 }' "$file")
    for name in $offenders; do
        echo "$(basename "$file"): $name"
        status=1
    done
done
exit $status
