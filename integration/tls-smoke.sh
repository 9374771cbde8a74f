#!/usr/bin/env bash
# Checks a running `ensemble.sh start --tls` with the secure client's own
# command-line client (cli_mt from ./run secure-client): a TLS session lists
# /, and three connections are refused: a plain one to the secure port, a
# TLS one to the plain port, a TLS one that trusts another CA.
# usage: tls-smoke.sh [CLI_MT]   (default: build-secure-client/prefix/bin/cli_mt;
#        the ensemble is the one ZKR_ENSEMBLE_DIR names, as for ensemble.sh)
set -uo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo_root=$(cd "$script_dir/.." && pwd -P)
cli=${1:-$repo_root/build-secure-client/prefix/bin/cli_mt}
ensemble=$script_dir/ensemble.sh
# cli_mt retries forever when it cannot connect; every run has a deadline.
deadline=${ZKR_TLS_SMOKE_TIMEOUT:-20}

[[ -x $cli ]] || { echo "tls-smoke: $cli not found (./run secure-client)" >&2; exit 2; }
plain_hosts=$("$ensemble" hosts) || exit 2
tls_hosts=$("$ensemble" hosts --tls) || exit 2
tls_files=$("$ensemble" tls-files) || exit 2

status=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*" >&2; status=1; }

# cli_mt in batch mode prints "/: rc = N" for `ls /` (0, or the ZooKeeper
# error code) and exits 0 either way: the rc line is the outcome.
ls_root() {
  timeout "$deadline" "$cli" -h "$1" ${2:+-s "$2"} -c "ls /" 2>&1
}
ls_rc() { sed -n 's|^/: rc = \(-\{0,1\}[0-9]*\)$|\1|p' <<<"$1" | head -1; }

out=$(ls_root "$tls_hosts" "$tls_files")
if [[ $(ls_rc "$out") == 0 ]] && grep -q $'^\tzookeeper$' <<<"$out"; then
  pass "TLS session on $tls_hosts lists / (zookeeper)"
else
  fail "TLS session on $tls_hosts did not list /:"$'\n'"$out"
fi

# -4: ZCONNECTIONLOSS (the server drops what is not a TLS record).
out=$(ls_root "$tls_hosts" "")
rc=$(ls_rc "$out")
if [[ -n $rc && $rc != 0 ]] && ! grep -q CONNECTED_STATE <<<"$out"; then
  pass "plain session on the secure ports refused (rc $rc)"
else
  fail "plain session on the secure ports was not refused:"$'\n'"$out"
fi

# -15: ZSSLCONNECTIONERROR.
out=$(ls_root "$plain_hosts" "$tls_files")
rc=$(ls_rc "$out")
if [[ $rc == -15 ]]; then
  pass "TLS session on the plain ports refused (rc $rc, ZSSLCONNECTIONERROR)"
else
  fail "TLS session on the plain ports: expected rc -15:"$'\n'"$out"
fi

other=$(mktemp -d)
trap 'rm -rf "$other"' EXIT
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -keyout "$other/ca.key" -out "$other/ca.pem" -days 1 -subj "/CN=another CA" 2>/dev/null
IFS=, read -r _ cert key pass <<<"$tls_files"
out=$(ls_root "$tls_hosts" "$other/ca.pem,$cert,$key,$pass")
rc=$(ls_rc "$out")
if [[ $rc == -15 ]]; then
  pass "TLS session trusting another CA refused (rc $rc, ZSSLCONNECTIONERROR)"
else
  fail "TLS session trusting another CA: expected rc -15:"$'\n'"$out"
fi
exit "$status"
