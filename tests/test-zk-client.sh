#!/bin/sh
# Checks which ZooKeeper C client the shared library carries. system: it
# needs Debian's libzookeeper_mt.so.2 and has no TLS entry point. secure: it
# needs no libzookeeper_mt at all, holds the client's TLS and SASL entry
# points as local symbols, and exports none of the client's names.
# usage: test-zk-client.sh READELF NM LIBRARY system|secure
set -eu

readelf_tool=$1
nm_tool=$2
library=$3
flavour=$4

needed=$("$readelf_tool" -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
all_symbols=$("$nm_tool" "$library" 2>/dev/null || true)
dynamic=$("$nm_tool" -D --defined-only "$library" | awk '{ print $NF }')
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

case $flavour in
system)
    printf '%s\n' "$needed" | grep -q '^libzookeeper_mt\.so' \
        || fail "$library does not need libzookeeper_mt (needs: $(echo $needed))"
    printf '%s\n' "$all_symbols" | grep -q ' [Tt] zookeeper_init_ssl$' \
        && fail "$library holds zookeeper_init_ssl, yet was built against the system client"
    ;;
secure)
    printf '%s\n' "$needed" | grep -q 'libzookeeper' \
        && fail "$library needs a shared ZooKeeper client: $(printf '%s\n' "$needed" | grep libzookeeper)"
    for sym in zookeeper_init zookeeper_init_ssl zookeeper_init_sasl; do
        printf '%s\n' "$all_symbols" | grep -q " t $sym\$" \
            || fail "$library does not hold $sym as a local symbol"
    done
    for lib in libssl libcrypto libsasl2; do
        printf '%s\n' "$needed" | grep -q "^$lib\.so" || fail "$library does not need $lib"
    done
    ;;
*)
    echo "usage: $0 READELF NM LIBRARY system|secure" >&2
    exit 2
    ;;
esac

leaked=$(printf '%s\n' "$dynamic" | grep -E '^(zoo_|zookeeper_|zerror|deallocate_|serialize_|deserialize_)' || true)
[ -z "$leaked" ] || fail "$library exports the ZooKeeper client's names: $(echo $leaked | head -c 300)"

[ "$status" -eq 0 ] && echo "ok: $library carries the $flavour ZooKeeper client (needs: $(echo $needed))"
exit "$status"
