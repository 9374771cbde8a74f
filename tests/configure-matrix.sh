#!/usr/bin/env bash
# zkr's configure matrix (`./run configure-matrix`, the first step of
# `./run test`): the optional parts of the build (meson_options.txt) degrade,
# they do not fail. A few combinations of the options each configure, in
# throw-away build directories, with the summary saying what is built; and
# on a machine without Java and CUnit (both hidden from meson) the default
# `meson setup` and `ninja` succeed with the suites that need them left out.
# Seconds, but for that one build. Run from anywhere: it works in the
# repository's root.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit 1

matrix_dir=

# matrix_check NAME EXPECT: the summary in $matrix_dir/NAME.log shows what
# EXPECT says: PART=VALUE, comma-separated; a value begins the summary's
# (YES, or NO: and the start of the reason).
matrix_check() {
  local name=$1 pair part want line pairs
  IFS=, read -ra pairs <<<"$2"
  for pair in "${pairs[@]}"; do
    part=${pair%=*} want=${pair#*=}
    line=$(sed -n '/^  Optional parts$/,/^$/p' "$matrix_dir/$name.log" | grep -E "^ +$part +: ")
    if [[ $line != *": $want"* ]]; then
      echo "configure-matrix: $name: expected $part: $want; the summary says: ${line:-nothing}"
      return 1
    fi
  done
}

# matrix_setup NAME EXPECT OPTIONS...: meson setup $matrix_dir/NAME OPTIONS,
# then matrix_check NAME EXPECT.
matrix_setup() {
  local name=$1 expect=$2
  shift 2
  if ! meson setup "$matrix_dir/$name" "$@" >"$matrix_dir/$name.log" 2>&1; then
    tail -n 20 "$matrix_dir/$name.log"
    echo "configure-matrix: $name: meson setup $* failed"
    return 1
  fi
  matrix_check "$name" "$expect" || return 1
  echo "$name: configured (${*:-default options}): $expect"
}

# A PATH without java and javac (every other program on $PATH, linked into
# $matrix_dir/bin) and a pkg-config search path without cunit.pc (every
# other .pc file, linked into $matrix_dir/pkgconfig).
matrix_hide_java_and_cunit() {
  local bin=$matrix_dir/bin pc=$matrix_dir/pkgconfig dir file
  local -A seen=()
  local links=() pcs=() dirs=()
  mkdir -p "$bin" "$pc" || return 1
  IFS=: read -ra dirs <<<"$PATH"
  for dir in "${dirs[@]}"; do
    for file in "$dir"/*; do
      local name=${file##*/}
      [[ -n ${seen[$name]:-} || $name == java || $name == javac || -d $file || ! -x $file ]] && continue
      seen[$name]=1
      links+=("$file")
    done
  done
  ln -s -t "$bin" "${links[@]}" || return 1
  seen=()
  IFS=: read -ra dirs <<<"${PKG_CONFIG_PATH:+$PKG_CONFIG_PATH:}$(pkg-config --variable pc_path pkg-config)"
  for dir in "${dirs[@]}"; do
    for file in "$dir"/*.pc; do
      local name=${file##*/}
      [[ -e $file && -z ${seen[$name]:-} && $name != cunit.pc ]] || continue
      seen[$name]=1
      pcs+=("$file")
    done
  done
  ln -s -t "$pc" "${pcs[@]}"
}

# In a subshell of its own: its EXIT trap removes the temporary directory
# however it ends.
configure_matrix() (
  local rc=0
  matrix_dir=$(mktemp -d -t zkr-configure-matrix.XXXXXX) || return 1
  trap 'rm -rf "$matrix_dir"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  matrix_setup static-nothing-else \
    "tests=NO,integration=NO,interop=NO,bench=NO,fuzz=NO,docs=NO" \
    -Ddefault_library=static -Dtests=disabled -Dintegration=disabled -Dinterop=disabled \
    -Dbench=disabled -Dfuzz=disabled -Ddocs=disabled || rc=1
  matrix_setup tests-only "tests=YES,integration=NO,interop=NO" \
    -Dtests=enabled -Dintegration=disabled || rc=1
  matrix_setup integration-only "tests=NO,integration=YES" \
    -Dtests=disabled -Dintegration=enabled || rc=1
  matrix_setup both-libraries "tests=YES,integration=YES" -Ddefault_library=both || rc=1
  if matrix_hide_java_and_cunit; then
    # Java alone hidden: the integration suite without its Curator peers.
    PATH=$matrix_dir/bin matrix_setup no-java "tests=YES,integration=YES,interop=NO: javac/java" ||
      rc=1
    # Both hidden: what the library's build dependencies alone give, built.
    local dir=$matrix_dir/no-java-no-cunit
    if PATH=$matrix_dir/bin PKG_CONFIG_LIBDIR=$matrix_dir/pkgconfig PKG_CONFIG_PATH='' \
      matrix_setup no-java-no-cunit "tests=NO: CUnit,integration=NO: CUnit,interop=NO" &&
      PATH=$matrix_dir/bin PKG_CONFIG_LIBDIR=$matrix_dir/pkgconfig PKG_CONFIG_PATH='' \
        ninja -C "$dir" >>"$dir.log" 2>&1 &&
      [[ -e $dir/libzkr.so && -x $dir/tools/zkr && ! -e $dir/tests/test-path ]]; then
      echo "no-java-no-cunit: built, $(grep -o '^\[[0-9]*/[0-9]*\]' "$dir.log" | tail -n 1) ninja steps:" \
        "libzkr.so, tools/zkr, no test program"
    else
      tail -n 30 "$dir.log"
      echo "configure-matrix: no-java-no-cunit: meson setup and ninja without java, javac and cunit.pc failed"
      rc=1
    fi
  else
    echo "configure-matrix: could not hide java, javac and cunit.pc"
    rc=1
  fi
  return $rc
)

configure_matrix
