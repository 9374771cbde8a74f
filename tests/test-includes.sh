#!/bin/sh
# Checks the include rule of recipes/README.md on every file of recipes/
# (in folders by family, each an include directory, so headers are named
# by base name):
# a recipe includes core/'s blocks and the private header of its own family
# only; the queue engine's private header stays inside the engine; nothing
# under recipes/ reaches into the session's struct, the executor or
# libzookeeper directly (every request goes through ops.h). Prints each
# broken line as FILE: "HEADER" and why, and fails if there is one.
# usage: test-includes.sh RECIPES_DIR
set -eu

recipes_dir=$1

# core/ headers any recipe may include.
core_blocks='session-private.h ops.h nodes.h nodename.h path.h notifier.h context.h wait.h ref.h error-private.h log.h call.h armed.h node-private.h'
# recipes/ headers any recipe may include: the engine's entry and the
# per-thread holds.
shared_blocks='queue-lock.h per-thread.h'

# family_of HEADER: the files (shell patterns, by base name) that may
# include HEADER, or nothing when HEADER is not a family's private header.
family_of() {
  case $1 in
    queue-private.h) echo 'queue-*.c queue-private.h queue-acquire-private.h' ;;
    queue-acquire-private.h) echo 'queue-acquire.c queue-steps.c' ;;
    cache-private.h) echo 'cache-*.c tree-cache.c node-cache.c group-member.c service-cache.c' ;;
    barrier-private.h) echo 'barrier.c double-barrier.c' ;;
    counter-private.h) echo 'atomic-long*.c shared-count*.c semaphore.c' ;;
    discovery-private.h) echo 'discovery*.c service-cache.c' ;;
    persistent-node-private.h) echo 'persistent-node*.c' ;;
    leader-private.h) echo 'leader*.c' ;;
    rwlock-private.h) echo 'rwlock.c' ;;
    semaphore-private.h) echo 'semaphore.c' ;;
    txn-private.h) echo 'txn-fence.c' ;;
    *) echo '' ;;
  esac
}

# Never from recipes/: the session's struct, the executor (the session's
# wrappers are the way in), libzookeeper's calls of a recipe's own.
forbidden='session-internal.h executor.h zookeeper/zookeeper.h zookeeper.h'

in_list() {
  word=$1
  shift
  for item in $*; do
    [ "$word" = "$item" ] && return 0
  done
  return 1
}

# The patterns are matched with case, never expanded against files.
matches_any() {
  name=$1
  shift
  set -f
  for pattern in $*; do
    # shellcheck disable=SC2254
    case $name in $pattern) set +f; return 0 ;; esac
  done
  set +f
  return 1
}

status=0
checked=0

# Every folder of recipes/ is an include directory, as is core/: a
# header's base name must name one file only, or an include would pick
# whichever directory comes first.
dups=$(for file in "$recipes_dir"/*.h "$recipes_dir"/*/*.h "$recipes_dir"/../core/*.h; do
  [ -e "$file" ] && echo "${file##*/}"
done | sort | uniq -d)
for header in $dups; do
  echo "FAIL: \"$header\": more than one header of recipes/ and core/ has this name" >&2
  status=1
done
for file in "$recipes_dir"/*.c "$recipes_dir"/*.h "$recipes_dir"/*/*.c "$recipes_dir"/*/*.h; do
  [ -e "$file" ] || continue
  name=${file##*/}
  checked=$((checked + 1))
  headers=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$file")
  for header in $headers; do
    why=
    if in_list "$header" $forbidden; then
      why='never included by a recipe (recipes/README.md, "Which headers a recipe may include")'
    elif [ "$header" = "${name%.c}.h" ] || [ "$header" = "${name%.c}-private.h" ]; then
      continue
    else
      family=$(family_of "$header")
      if [ -n "$family" ]; then
        set -f
        # shellcheck disable=SC2086
        set -- $family
        set +f
        matches_any "$name" "$@" && continue
        why="private to $family"
      else
        case $header in
          zkr/* | gio/* | glib.h | glib/* | string.h | stdlib.h | stdio.h | stdint.h | errno.h | limits.h | math.h) continue ;;
        esac
        in_list "$header" $core_blocks $shared_blocks && continue
        why='not on the list of headers a recipe may include (recipes/README.md)'
      fi
    fi
    echo "FAIL: $file: \"$header\": $why" >&2
    status=1
  done
done

if [ "$checked" -eq 0 ]; then
  echo "FAIL: no file under $recipes_dir" >&2
  exit 1
fi
[ "$status" -eq 0 ] && echo "include rule: $checked files of recipes/ checked"
exit $status
