#!/usr/bin/env bash
# What `./run deb` runs: builds the Debian packages (libzkr0, libzkr-dev,
# zkr, libzkr-doc) from a copy of the tree under build-deb/, fails on any
# lintian error or warning, then installs them on this machine, builds
# docs/examples/first.c with `pkg-config zkr` against them, runs it and the
# installed zkr tool on a one-server ensemble of its own, and purges them.
# The install test leaves the machine's package set as it found it, even
# when it fails.
#
# usage: debian/run-deb.sh [--no-install-test]
# environment: DEB_BUILD_OPTIONS (default parallel=<cores>);
#   ZKR_ENSEMBLE_PORT_BASE (the ensemble's ports; its state directory is
#   always build-deb/ensemble, so that it never stops someone else's).
set -uo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo_root" || exit 1
out_dir=$repo_root/build-deb
src_dir=$out_dir/src
packages="libzkr0 libzkr-dev zkr libzkr-doc"
ensemble_sh=$repo_root/integration/ensemble.sh
export ZKR_ENSEMBLE_DIR=$out_dir/ensemble

say() { printf '\n==> deb: %s\n' "$*"; }
fail() { echo "deb: FAIL: $*" >&2; exit 1; }

# ---- build ---------------------------------------------------------------

# dpkg-buildpackage writes its results next to the source tree: build from
# a copy under build-deb/ so that nothing lands outside the repo. The copy
# is the work tree as git sees it (tracked and new files, not the ignored
# build directories), so uncommitted changes are packaged too.
copy_tree() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || fail "not a git work tree: cannot tell the sources"
  # A server left by an interrupted run would lose its state directory.
  [[ -d $ZKR_ENSEMBLE_DIR ]] && "$ensemble_sh" stop
  rm -rf "$out_dir"
  mkdir -p "$src_dir" || return 1
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do
      [[ -e $file ]] && printf '%s\0' "$file"   # deleted, not yet committed
    done |
    tar --null --no-recursion -T - -cf - | tar -xf - -C "$src_dir"
}

# The package's version is meson's project version (a native package).
check_version() {
  local meson_version changelog_version
  meson_version=$(sed -En "s/^ *version: *'([^']+)'.*/\1/p" meson.build | head -n 1)
  changelog_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
  [[ $meson_version == "$changelog_version" ]] ||
    fail "debian/changelog says $changelog_version, meson.build $meson_version: add a changelog entry"
  version=$changelog_version
}

build_packages() {
  say "building the packages in build-deb/ (version $version)"
  copy_tree || fail "could not copy the tree to $src_dir"
  local jobs
  jobs=$(nproc 2>/dev/null || echo 1)
  (cd "$src_dir" &&
    DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$jobs} dpkg-buildpackage -us -uc) \
    >"$out_dir/build.log" 2>&1 || {
    tail -n 60 "$out_dir/build.log"
    fail "dpkg-buildpackage failed (whole log: build-deb/build.log)"
  }
  # New exported symbols do not fail the build (a symbols file lags behind
  # new API until someone refreshes it); say so loudly.
  if grep -q 'dpkg-gensymbols: warning' "$out_dir/build.log"; then
    echo "deb: NOTE: debian/libzkr0.symbols is out of date:"
    sed -n '/dpkg-gensymbols: warning/,/^ *dh_/p' "$out_dir/build.log" | grep -v '^ *dh_' | head -n 40
  fi
  ls -l "$out_dir"/*.deb
}

run_lintian() {
  say "lintian (errors and warnings fail)"
  lintian --fail-on error,warning --display-info "$out_dir"/zkr_"${version}"_*.changes ||
    fail "lintian found errors or warnings (above)"
  echo "lintian: no errors, no warnings"
}

# ---- install test ----------------------------------------------------------

test_dir=""
ensemble_started=0
packages_before=""

# Whether dpkg says PACKAGE owns FILE.
owned_by() {
  [[ $(dpkg -S "$2" 2>/dev/null) == "$1":* ]]
}

# Whether dpkg knows PACKAGE (installed, or its configuration files left).
is_known() {
  local status
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
  [[ -n $status && $status != un* ]]
}

# Installed packages (any state but "not installed"), one name a line.
package_set() {
  dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' | awk '$2 !~ /^[up]n/ { print $1 }' | sort
}

# Puts the machine back: stops the ensemble, purges our packages and what
# apt installed for them (marked automatic: a package someone else installed
# meanwhile is marked manual and stays). Safe to run twice.
restore_machine() {
  ((ensemble_started)) && "$ensemble_sh" stop
  ensemble_started=0
  [[ -n $test_dir ]] && rm -rf "$test_dir"
  test_dir=""
  [[ -z $packages_before ]] && return 0
  local added auto package purge=()
  added=$(comm -13 <(echo "$packages_before") <(package_set))
  auto=$(apt-mark showauto | sed 's/:.*//')
  for package in $added; do
    if [[ " $packages " == *" ${package%%:*} "* ]] || grep -qxF "${package%%:*}" <<<"$auto"; then
      purge+=("$package")
    fi
  done
  ((${#purge[@]} > 0)) || return 0
  say "purging ${purge[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get purge -q -y "${purge[@]}"
}

# Nothing of the packages is left: not known to dpkg, no file on disk, and
# the package set is the one we started from.
check_restored() {
  local package left="" multiarch
  for package in $packages; do
    is_known "$package" && left+=" $package"
  done
  [[ -z $left ]] || fail "still known to dpkg after the purge:$left"
  multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
  local path
  for path in /usr/bin/zkr /usr/include/zkr /usr/lib/"$multiarch"/libzkr.so* \
    /usr/lib/"$multiarch"/pkgconfig/zkr.pc /usr/share/doc/libzkr0 /usr/share/doc/libzkr-dev \
    /usr/share/doc/zkr /usr/share/doc/libzkr-doc /usr/share/man/man1/zkr.1.gz \
    /usr/share/gtk-doc/html/zkr; do
    [[ -e $path ]] && fail "$path is still there after the purge"
  done
  local differ
  differ=$(diff <(echo "$packages_before") <(package_set) | grep '^[<>]' | tr '\n' ' ')
  [[ -z $differ ]] || fail "the installed packages differ from those before the test: $differ"
  echo "removed: $packages (dpkg knows none of them, no file left, package set as before)"
}

# The token printed by docs/examples/first.c.
run_first() {
  local output
  output=$("$test_dir/first" "$hosts" "$lock_path") || fail "first exited $?: $output"
  [[ $output =~ ^fencing\ token\ ([0-9]+)$ ]] || fail "first printed '$output', not 'fencing token N'"
  echo "${BASH_REMATCH[1]}"
}

install_test() {
  [[ $(id -u) == 0 ]] || fail "the install test installs packages: run as root (or pass --no-install-test)"
  local package
  for package in $packages; do
    is_known "$package" && fail "$package is installed already; the install test would replace it: remove it first"
  done
  packages_before=$(package_set)
  trap restore_machine EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  say "installing $packages"
  local debs=()   # not the -dbgsym packages
  for package in $packages; do
    debs+=("$out_dir/${package}_${version}"_*.deb)
  done
  DEBIAN_FRONTEND=noninteractive apt-get install -q -y --no-install-recommends "${debs[@]}" ||
    fail "apt-get install failed"

  say "building docs/examples/first.c with pkg-config zkr"
  test_dir=$(mktemp -d)
  local pc_file
  pc_file=$(pkg-config --path zkr) || fail "pkg-config does not find zkr"
  owned_by libzkr-dev "$pc_file" || fail "pkg-config finds $pc_file, not libzkr-dev's"
  [[ $(pkg-config --modversion zkr) == "$version" ]] || fail "zkr.pc says $(pkg-config --modversion zkr)"
  # shellcheck disable=SC2046
  cc -Wall -Wextra -Werror -o "$test_dir/first" docs/examples/first.c \
    $(pkg-config --cflags --libs zkr) || fail "first.c does not build against the packages"
  # Built from the packages' files, not from some other copy of zkr.
  # (zkr.pc may name its directories relative to itself: compare real paths.)
  local header
  # shellcheck disable=SC2046
  header=$(cc -M docs/examples/first.c $(pkg-config --cflags zkr) |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\/zkr\/zkr\.h$/) print $i }')
  if [[ -z $header ]] || ! owned_by libzkr-dev "$(realpath "$header")"; then
    fail "first.c included '$header', not libzkr-dev's zkr/zkr.h"
  fi
  local library
  library=$(ldd "$test_dir/first" | awk '$1 == "libzkr.so.0" { print $3 }')
  if [[ -z $library ]] || ! owned_by libzkr0 "$(realpath "$library")"; then
    fail "first loads libzkr.so.0 from '$library', not libzkr0's"
  fi
  echo "built with $pc_file, $(realpath "$header"), $(realpath "$library")"

  say "running it against a one-server ensemble ($ZKR_ENSEMBLE_DIR)"
  ensemble_started=1
  "$ensemble_sh" start --servers 1 --nosync || fail "the ensemble did not start"
  hosts=$("$ensemble_sh" hosts)
  local root=/zkr-deb-test-$$
  lock_path=$root/lock
  local first_token second_token
  first_token=$(run_first) || exit 1
  second_token=$(run_first) || exit 1
  echo "fencing tokens: $first_token, then $second_token"
  ((second_token > first_token)) || fail "the second holder's token $second_token is not above $first_token"

  say "the installed zkr tool and documentation"
  owned_by zkr /usr/share/man/man1/zkr.1.gz || fail "zkr has no zkr(1)"
  owned_by libzkr-doc /usr/share/gtk-doc/html/zkr/index.html || fail "libzkr-doc has no API reference"
  [[ $(zkr --version) == "zkr $version" ]] || fail "zkr --version says '$(zkr --version)'"
  zkr create --hosts "$hosts" --quiet --parents "$root/cli" "from the zkr package" >/dev/null ||
    fail "zkr create failed"
  [[ $(zkr get --hosts "$hosts" "$root/cli") == "from the zkr package" ]] || fail "zkr get read other data"
  zkr rm --hosts "$hosts" -r "$root" || fail "zkr rm -r $root failed"
  local status=0
  zkr get --hosts "$hosts" --quiet "$root" >/dev/null 2>&1 || status=$?
  ((status == 66)) || fail "zkr get $root after rm -r exited $status, not 66 (no such node)"
  echo "zkr(1) and the API reference are there; zkr create, get and rm -r worked ($root is gone)"

  say "purging the packages"
  restore_machine
  check_restored
}

# ---- main ------------------------------------------------------------------

install=1
case ${1:-} in
  "") ;;
  --no-install-test) install=0 ;;
  *) fail "unknown option '$1' (usage: debian/run-deb.sh [--no-install-test])" ;;
esac
check_version
build_packages
run_lintian
if ((install)); then
  install_test
  say "ok: packages in build-deb/, lintian clean, install test passed"
else
  say "ok: packages in build-deb/, lintian clean (install test not run)"
fi
