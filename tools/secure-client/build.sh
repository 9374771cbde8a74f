#!/usr/bin/env bash
# Builds ZooKeeper's C client with TLS (OpenSSL) and SASL (Cyrus) from
# Debian's own source of the installed libzookeeper-mt2, with Debian's
# patches, into a private prefix that meson's -Dsecure option links against.
#
# usage: tools/secure-client/build.sh [BUILD_DIR]   (default: build-secure-client)
# Runs as root: it installs the build dependencies from Debian. The source
# is fetched through a private apt configuration under BUILD_DIR/apt; the
# machine's /etc/apt is checked to be unchanged at the end. Idempotent: a
# finished build (BUILD_DIR/prefix/.stamp naming the same source version
# and this script's checksum) returns at once.
set -euo pipefail

repo_root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
build_dir=$(realpath -m -- "${1:-$repo_root/build-secure-client}")
prefix=$build_dir/prefix
patch_dir=$repo_root/tools/secure-client/patches
# The stamp of a finished build names this script and the patches too.
self_sum=$(cat "${BASH_SOURCE[0]}" "$patch_dir"/*.patch | sha256sum | cut -d' ' -f1)

say() { printf '==> secure-client: %s\n' "$*"; }
die() { printf 'secure-client: %s\n' "$*" >&2; exit 1; }

command -v dpkg-query >/dev/null || die "needs a Debian system (dpkg-query not found)"
# The source must be the installed library's: same package version.
version=$(dpkg-query -W -f='${Version}' libzookeeper-mt2 2>/dev/null) \
  || die "libzookeeper-mt2 is not installed (./run deps)"
stamp="$version $self_sum"
if [[ -f $prefix/.stamp && $(cat "$prefix/.stamp") == "$stamp" ]]; then
  say "already built: zookeeper $version in $prefix"
  exit 0
fi
[[ $(id -u) == 0 ]] || die "run as root: it installs Debian's build dependencies (libssl-dev, libsasl2-dev, ...)"
# From here on the prefix is not a finished build: meson must not link it.
rm -f "$prefix/.stamp"

# The suite that carries this version, from the installed system's sources
# (bookworm, trixie, ...): the private sources list names the same suite,
# with deb-src lines beside deb ones.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $codename ]] || die "no VERSION_CODENAME in /etc/os-release"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || die "$keyring missing (Debian: debian-archive-keyring)"

etc_apt_sum() { find /etc/apt -xdev -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1; }
etc_before=$(etc_apt_sum)

apt_dir=$build_dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d"
cat > "$apt_dir/sources.list" <<SRC
deb [signed-by=$keyring] http://deb.debian.org/debian $codename main
deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename main
deb [signed-by=$keyring] http://deb.debian.org/debian $codename-updates main
deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename-updates main
deb [signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main
SRC
# Everything apt reads or writes for sources, lists and downloads is under
# apt_dir; the package database (dpkg status) is the machine's, since the
# build dependencies are installed for real.
apt_private=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::Cache::archives=$apt_dir/cache/archives"
  -o "Dir::Cache::pkgcache=$apt_dir/cache/pkgcache.bin"
  -o "Dir::Cache::srcpkgcache=$apt_dir/cache/srcpkgcache.bin"
)
export DEBIAN_FRONTEND=noninteractive

src_parent=$build_dir/src
obj=$build_dir/obj
need_fetch=0
[[ -f $src_parent/.fetched && $(cat "$src_parent/.fetched") == "$version" ]] || need_fetch=1

t0=$SECONDS
# The private lists are read again whenever a source is to be fetched: the
# installed version may be newer than what they knew.
if [[ ! -f $apt_dir/lists/.updated || $need_fetch == 1 ]]; then
  say "apt-get update (private lists in $apt_dir)"
  apt-get "${apt_private[@]}" update -q
  touch "$apt_dir/lists/.updated"
fi

# Only what the C client's build needs, not the whole Java build-dep set:
# the toolchain and autotools (pkg-config's m4 macros too), OpenSSL and
# Cyrus SASL headers, SASL's DIGEST-MD5 module for run time, a JDK and
# zookeeper-jute.jar for the jute compiler. No cppunit: configure runs
# --without-cppunit (the client's own tests are not built).
build_deps="build-essential autoconf automake libtool pkg-config dpkg-dev
  libssl-dev libsasl2-dev libsasl2-modules
  default-jdk-headless libzookeeper-java"
missing=()
for p in $build_deps; do
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  apt-get "${apt_private[@]}" install -y -q --no-install-recommends "${missing[@]}"
fi
t_deps=$((SECONDS - t0))

t0=$SECONDS
upstream=${version%-*}; upstream=${upstream#*:}
src=$src_parent/zookeeper-$upstream
if [[ $need_fetch == 1 ]]; then
  # A new source: the old build and prefix go with the old one.
  rm -rf "$src_parent" "$obj" "$prefix"
  mkdir -p "$src_parent"
  say "apt-get source zookeeper=$version"
  # dpkg-source unpacks and applies Debian's patches (debian/patches).
  (cd "$src_parent" && apt-get "${apt_private[@]}" source -q "zookeeper=$version")
  [[ -d $src ]] || die "apt-get source left no $src"
  echo "$version" > "$src_parent/.fetched"
fi
t_fetch=$((SECONDS - t0))

# zkr's own patches on top of Debian's, each applied once (named in
# src/.zkr-patches): only what building with TLS and SASL on this system
# needs, which Debian's build never met.
for patch_file in "$patch_dir"/*.patch; do
  name=$(basename "$patch_file")
  grep -qxF "$name" "$src_parent/.zkr-patches" 2>/dev/null && continue
  say "applying $name"
  patch -d "$src" -p1 --forward --quiet < "$patch_file"
  echo "$name" >> "$src_parent/.zkr-patches"
done

etc_after=$(etc_apt_sum)
[[ $etc_before == "$etc_after" ]] || die "/etc/apt changed while fetching (it must not): look at it"
say "/etc/apt unchanged (sha256 of its files: $etc_after)"

# The C client's generated jute code (zookeeper.jute.c/.h) is not in the
# source package: Debian's Maven build makes it with the jute compiler,
# which is in the installed zookeeper-jute.jar. Run that same compiler.
t0=$SECONDS
client=$src/zookeeper-client/zookeeper-client-c
jute_jar=/usr/share/java/zookeeper-jute.jar
[[ -r $jute_jar ]] || die "$jute_jar missing (Debian: libzookeeper-java)"
if [[ ! -f $client/generated/zookeeper.jute.c ]]; then
  say "generating the jute code with $jute_jar"
  mkdir -p "$client/generated"
  (cd "$client/generated" && java -classpath "$jute_jar" org.apache.jute.compiler.generated.Rcc \
      -l c "$src/zookeeper-jute/src/main/resources/zookeeper.jute")
fi

# Debian's own compiler and linker flags (hardening included), as its
# package build would pass them. A static library, position independent so
# that libzkr.so can carry it (see docs/design.md: the secure client).
eval "$(dpkg-buildflags --export=sh)"
if [[ ! -f $obj/Makefile ]]; then
  say "autoreconf and configure (--with-openssl --with-sasl, static, PIC)"
  (cd "$client" && ACLOCAL="aclocal -I /usr/share/aclocal" autoreconf -if)
  rm -rf "$obj" "$prefix"
  mkdir -p "$obj"
  (cd "$obj" && "$client/configure" --prefix="$prefix" \
      --with-openssl --with-sasl --without-cppunit \
      --enable-static --disable-shared --with-pic)
fi
# configure falls back to a client without them when a library is missing:
# refuse that (the flags land in the Makefile, not config.h).
grep -q '^OPENSSL_CPPFLAGS = -DHAVE_OPENSSL_H' "$obj/Makefile" || die "configure found no OpenSSL (libssl-dev)"
grep -q '^SASL_CPPFLAGS = -DHAVE_CYRUS_SASL_H' "$obj/Makefile" || die "configure found no Cyrus SASL (libsasl2-dev)"
say "make"
make -C "$obj" -j"$(nproc)" >"$build_dir/make.log" 2>&1 \
  || { tail -40 "$build_dir/make.log" >&2; die "make failed (whole log: $build_dir/make.log)"; }
make -C "$obj" install >>"$build_dir/make.log" 2>&1 \
  || { tail -40 "$build_dir/make.log" >&2; die "make install failed (whole log: $build_dir/make.log)"; }
# cli_mt is a libtool wrapper only when linked shared; with --disable-shared
# it is the real program, installed in prefix/bin.
t_build=$((SECONDS - t0))

lib=$prefix/lib/libzookeeper_mt.a
symbols=$(nm "$lib")
for sym in zookeeper_init_ssl zookeeper_init_sasl; do
  grep -q " T $sym\$" <<<"$symbols" || die "$lib does not define $sym"
done
echo "$stamp" > "$prefix/.stamp"
say "built zookeeper $version with TLS and SASL: $lib"
say "seconds: dependencies $t_deps, fetch $t_fetch, jute+configure+build $t_build"
