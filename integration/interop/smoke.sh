#!/usr/bin/env bash
# Smoke test of the Curator peer alone: two or three ZkrPeer processes contend
# on one path per recipe and must exclude (or admit) each other as Curator
# promises. Exits non-zero on the first mismatch.
#
# Usage: smoke.sh HOSTS
#   ZKR_INTEROP_CLASSPATH  classpath holding ZkrPeer.class and the Curator jars;
#                          unset: compile ZkrPeer.java into a temp dir with javac
#   ZKR_INTEROP_READ_TIMEOUT  seconds to wait for any answer line (default 30)
set -euo pipefail

(($# == 1)) || { echo "usage: smoke.sh HOSTS" >&2; exit 2; }
hosts=$1
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
read_timeout=${ZKR_INTEROP_READ_TIMEOUT:-30}
# Debian's Curator and what it needs at run time; the jars' manifests name
# the rest (jackson, netty, ...). Keep in step with curator_jars in meson.build.
debian_jars="curator-recipes curator-framework curator-client zookeeper zookeeper-jute guava slf4j-api slf4j-simple"

work_dir=$(mktemp -d -t zkr-interop-smoke.XXXXXX)
declare -A peer_pid peer_in peer_out

cleanup() {
  local name
  for name in "${!peer_pid[@]}"; do
    kill "${peer_pid[$name]}" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf -- "$work_dir"
}
trap cleanup EXIT

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

classpath() {
  if [[ -n ${ZKR_INTEROP_CLASSPATH:-} ]]; then
    echo "$ZKR_INTEROP_CLASSPATH"
    return
  fi
  local jars="" jar
  for jar in $debian_jars; do
    [[ -f /usr/share/java/$jar.jar ]] || fail "/usr/share/java/$jar.jar missing (apt-get install libcurator-recipes-java libslf4j-java)"
    jars+=:/usr/share/java/$jar.jar
  done
  javac --release 17 -encoding UTF-8 -Xlint:all,-path -cp "${jars#:}" \
    -d "$work_dir/classes" "$script_dir/ZkrPeer.java" >&2 || fail "javac failed"
  echo "$work_dir/classes$jars"
}

# peer_start NAME RECIPE PATH [ARGS...]: a peer whose stdin/stdout are FIFOs
# held open by this shell; waits for READY.
peer_start() {
  local name=$1 recipe=$2 path=$3 fd_in fd_out line
  shift 3
  mkfifo "$work_dir/$name.in" "$work_dir/$name.out"
  java -cp "$cp" ZkrPeer --hosts "$hosts" --recipe "$recipe" --path "$path" --id "$name" "$@" \
    <"$work_dir/$name.in" >"$work_dir/$name.out" 2>"$work_dir/$name.err" &
  peer_pid[$name]=$!
  exec {fd_in}>"$work_dir/$name.in" {fd_out}<"$work_dir/$name.out"
  peer_in[$name]=$fd_in
  peer_out[$name]=$fd_out
  read -r -t "$read_timeout" -u "$fd_out" line || fail "$name: no READY (stderr: $(cat "$work_dir/$name.err"))"
  [[ $line == READY ]] || fail "$name: started with '$line'"
}

# ask NAME COMMAND: sends COMMAND, sets $answer to the peer's answer line.
ask() {
  local name=$1 command=$2
  echo "$command" >&"${peer_in[$name]}"
  IFS= read -r -t "$read_timeout" -u "${peer_out[$name]}" answer ||
    fail "$name: no answer to '$command' (stderr: $(cat "$work_dir/$name.err"))"
  printf '  %-8s %-14s -> %s\n' "$name" "$command" "$answer"
}

# expect NAME COMMAND PREFIX: the answer must start with PREFIX.
expect() {
  ask "$1" "$2"
  [[ $answer == "$3"* ]] || fail "$1: '$2' answered '$answer', expected '$3...'"
}

# expect_holders NAME COUNT: the peer's path has COUNT queue nodes.
expect_holders() {
  local list count=0
  ask "$1" holders
  list=${answer#HOLDERS }
  [[ -n $list ]] && count=$(tr ',' '\n' <<<"$list" | wc -l)
  ((count == $2)) || fail "$1: $count holders, expected $2: $answer"
}

peer_quit() {
  local name=$1 fd_in=${peer_in[$1]} fd_out=${peer_out[$1]}
  expect "$name" quit BYE
  wait "${peer_pid[$name]}" || fail "$name exited with status $?"
  exec {fd_in}>&- {fd_out}<&-
  unset "peer_pid[$name]"
}

# expect_one_leader A B VERB: exactly one of A and B answers VERB to await.
expect_one_leader() {
  local a=$1 b=$2 verb=$3 leaders=0
  ask "$a" "await 3000"; [[ $answer == "$verb "* ]] && leader=$a && leaders=$((leaders + 1))
  ask "$b" "await 3000"; [[ $answer == "$verb "* ]] && leader=$b && leaders=$((leaders + 1))
  ((leaders == 1)) || fail "$leaders of $a and $b are $verb, expected exactly 1"
  if [[ $leader == "$a" ]]; then follower=$b; else follower=$a; fi
}

base=/zkr-interop-smoke-$$-$(date +%s)
cp=$(classpath)

echo "smoke: mutex"
peer_start m1 mutex "$base/mutex"
peer_start m2 mutex "$base/mutex"
expect m1 "acquire 10000" ACQUIRED
expect m2 "acquire 1000" TIMEOUT
expect_holders m2 1
expect m1 release RELEASED
expect m2 "acquire 10000" ACQUIRED
expect m1 "acquire 0" TIMEOUT
expect m2 release RELEASED
expect_holders m1 0
peer_quit m1; peer_quit m2

echo "smoke: rwlock"
peer_start r1 rwlock-read "$base/rwlock"
peer_start r2 rwlock-read "$base/rwlock"
peer_start w1 rwlock-write "$base/rwlock"
expect r1 "acquire 10000" ACQUIRED
expect r2 "acquire 1000" ACQUIRED
expect w1 "acquire 1000" TIMEOUT
expect_holders w1 2
expect r1 release RELEASED
expect w1 "acquire 1000" TIMEOUT
expect r2 release RELEASED
expect w1 "acquire 10000" ACQUIRED
expect r1 "acquire 1000" TIMEOUT
expect w1 release RELEASED
expect r1 "acquire 10000" ACQUIRED
expect r1 release RELEASED
expect_holders r1 0
peer_quit r1; peer_quit r2; peer_quit w1

echo "smoke: semaphore (2 leases)"
peer_start s1 semaphore "$base/semaphore" --leases 2
peer_start s2 semaphore "$base/semaphore" --leases 2
peer_start s3 semaphore "$base/semaphore" --leases 2
expect s1 "acquire 10000" ACQUIRED
expect s2 "acquire 10000" ACQUIRED
expect s3 "acquire 1000" TIMEOUT
expect_holders s3 2
expect s1 release RELEASED
expect s3 "acquire 10000" ACQUIRED
expect s2 release RELEASED
expect s3 release RELEASED
expect_holders s3 0
peer_quit s1; peer_quit s2; peer_quit s3

echo "smoke: leader latch"
peer_start l1 latch "$base/latch"
peer_start l2 latch "$base/latch"
expect l1 start STARTED
expect l2 start STARTED
expect_one_leader l1 l2 LEADER
expect_holders l1 2
expect "$leader" close CLOSED
expect "$follower" "await 10000" LEADER
expect "$follower" close CLOSED
expect_holders l1 0
peer_quit l1; peer_quit l2

echo "smoke: leader selector"
peer_start e1 selector "$base/selector"
peer_start e2 selector "$base/selector"
expect e1 start STARTED
expect e2 start STARTED
expect_one_leader e1 e2 LEADING
expect "$leader" yield YIELDED
expect "$follower" "await 10000" LEADING
expect "$leader" "await 1000" NOT_LEADER
expect "$follower" yield YIELDED
expect_holders e1 0
peer_quit e1; peer_quit e2

echo "smoke: all passed"
