#!/bin/sh
# Checks the naming rule of docs/design.md §1.4 on every file of core/ and
# recipes/: a global function defined in the object of core/NAME.c or
# recipes/FOLDER/NAME.c is public (zkr_...) or zkr__<NAME with - as _>_<verb>,
# or zkr__<NAME> alone (the file's one call). Reads the static libraries'
# symbol tables; prints each offender as FILE: NAME and fails if there is one.
# usage: test-prefixes.sh NM LIBRARY...
set -eu

nm_tool=$1
shift

status=0
checked=0
for library in "$@"; do
  # "ARCHIVE:MEMBER: ADDRESS T NAME"; a member is named after its source
  # path, / as _: core_NAME.c.o, recipes_FOLDER_NAME.c.o (folders have no _).
  offenders=$("$nm_tool" -A --defined-only "$library" | awk '
    $(NF-1) == "T" {
      member = $1
      sub(/:[^:]*$/, "", member)
      sub(/.*[\/:]/, "", member)
      base = member
      if (member ~ /^recipes_[^_]*_.*\.c\.o$/)
        sub(/^recipes_[^_]*_/, "", base)
      else if (member ~ /^core_.*\.c\.o$/)
        sub(/^core_/, "", base)
      else
        next
      sub(/\.c\.o$/, "", base)
      gsub(/-/, "_", base)
      name = $NF
      print "#" member
      if (name ~ /^zkr_[^_]/ || index(name, "zkr__" base "_") == 1 || name == "zkr__" base)
        next
      print member ": " name " (expected zkr__" base "_...)"
    }')
  checked=$((checked + $(printf '%s\n' "$offenders" | grep '^#' | sort -u | grep -c . || true)))
  bad=$(printf '%s\n' "$offenders" | grep -v '^#' | grep . || true)
  if [ -n "$bad" ]; then
    printf 'FAIL: %s\n' "$bad" >&2
    status=1
  fi
done

if [ "$checked" -eq 0 ]; then
  echo "FAIL: no object of core/ or recipes/ in $*" >&2
  exit 1
fi
[ "$status" -eq 0 ] && echo "prefixes: $checked objects of core/ and recipes/ checked"
exit $status
