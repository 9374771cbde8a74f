#!/usr/bin/env bash
# Local loopback ZooKeeper ensemble (Debian's ZooKeeper) for zkr's tests:
# start/stop a 1- or 3-server ensemble on 127.0.0.1 and crash, restart, pause
# or resume single members. Processes are tracked by PID in a state directory,
# so `stop` in one shell finds what `start` launched in another.
#
# Usage: ensemble.sh help
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo_root=$(cd "$script_dir/.." && pwd -P)

# Canonical, because a server is recognised by its config path on its
# command line: every spelling of the directory must give the same string.
state_dir=$(realpath -m -- "${ZKR_ENSEMBLE_DIR:-$repo_root/build/ensemble}")
start_timeout=${ZKR_ENSEMBLE_START_TIMEOUT:-60}
stop_timeout=${ZKR_ENSEMBLE_STOP_TIMEOUT:-15}
fourlw_timeout=${ZKR_ENSEMBLE_4LW_TIMEOUT:-2}
java_bin=${JAVA:-java}
# Debian's zookeeper.jar names its dependencies in its manifest Class-Path,
# but no SLF4J binding: without slf4j-log4j12 + log4j 1.2 the server logs
# nothing at all (SLF4J falls back to NOP). Debian's 3.8 is patched to log4j
# 1.2, not upstream's logback.
zk_classpath=${ZKR_ZK_CLASSPATH:-/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar}
zk_main=org.apache.zookeeper.server.quorum.QuorumPeerMain
# With --tls the server's Netty connection factory needs Netty's codec,
# resolver and transport classes: Debian's netty-all.jar is an empty shell
# and zookeeper.jar's manifest names only some of the split jars, so every
# TLS connection would die with NoClassDefFoundError.
zk_tls_classpath=/usr/share/java/netty-codec.jar:/usr/share/java/netty-handler.jar:/usr/share/java/netty-transport.jar:/usr/share/java/netty-buffer.jar:/usr/share/java/netty-common.jar:/usr/share/java/netty-resolver.jar:/usr/share/java/netty-transport-native-unix-common.jar:/usr/share/java/netty-transport-native-epoll.jar
tls_dir() { echo "$state_dir/tls"; }

# Settings of the running ensemble come from its state file; the environment
# only matters for `start` (and for `hosts`/`port` before any start).
servers=${ZKR_ENSEMBLE_SERVERS:-3}
port_base=${ZKR_ENSEMBLE_PORT_BASE:-21810}
tls=0
state_file=$state_dir/ensemble.state
if [[ -r $state_file ]]; then
  # shellcheck disable=SC1090
  source "$state_file"
fi

die() { echo "ensemble.sh: $*" >&2; exit 1; }
say() { echo "ensemble.sh: $*" >&2; }

usage() {
  cat <<'EOF'
usage: ensemble.sh COMMAND [ARGS]
  start [--servers 1|3] [--nosync] [--full-jit] [--tls]
                                    start an ensemble and wait until a quorum serves;
                                    --full-jit: the JVM's default JIT, as a production
                                    server runs (for benchmarks); without it the JIT
                                    stops at C1: a quicker start, for the tests;
                                    --tls: each server also serves TLS on a secure client
                                    port (Netty) and the servers talk TLS to each other,
                                    with a throwaway CA and server and client certificates
                                    made at start in <dir>/tls
  stop                              stop every server (SIGTERM, then SIGKILL) and remove the data
  status                            one line per server: pid, process state, mode
  kill N                            SIGKILL server N (a crash) and wait until it is gone
  restart N                         stop server N if it runs, start it, wait until it serves
  pause N | resume N                SIGSTOP / SIGCONT server N
  hosts [--tls]                     client connect string 127.0.0.1:P1,127.0.0.1:P2,...
                                    (--tls: the secure client ports)
  tls-files                         the secure client's certificate string CA,CERT,KEY,PASSWORD
                                    (as zookeeper_init_ssl and cli_mt --ssl take it)
  port N | pid N                    client port / PID of server N
  leader                            index of the current leader, or of the standalone server (exit 1 if none)
  fourlw N CMD                      send a four-letter word (srvr, mntr, wchc, ...) to server N
  help
environment:
  ZKR_ENSEMBLE_DIR            state, data and logs (default: <repo>/build/ensemble)
  ZKR_ENSEMBLE_PORT_BASE      client ports BASE+N, quorum BASE+10+N, election BASE+20+N,
                              secure client ports (--tls) BASE+30+N (default 21810)
  ZKR_ENSEMBLE_SERVERS        servers for `start` (default 3)
  ZKR_ENSEMBLE_START_TIMEOUT  seconds `start`/`restart` wait for the quorum (default 60)
  ZKR_ENSEMBLE_STOP_TIMEOUT   seconds between SIGTERM and SIGKILL (default 15)
  ZKR_ENSEMBLE_4LW_TIMEOUT    seconds a four-letter word may take (default 2)
  ZKR_ZK_CLASSPATH, JAVA      override the server classpath / java binary
EOF
}

client_port() { echo $((port_base + $1)); }
secure_port() { echo $((port_base + 30 + $1)); }
quorum_port() { echo $((port_base + 10 + $1)); }
election_port() { echo $((port_base + 20 + $1)); }
server_dir() { echo "$state_dir/zk$1"; }
pid_file() { echo "$(server_dir "$1")/pid"; }

check_index() {
  if ! [[ ${1:-} =~ ^[0-9]+$ ]] || (($1 < 1 || $1 > servers)); then
    die "server index must be 1..$servers, got '${1:-}'"
  fi
}

# The PID recorded for server N, only if that process is still our server:
# the command line must name this server's config, so a recycled PID of an
# unrelated process is never signalled.
live_pid() {
  local n=$1 pid cmdline
  [[ -r $(pid_file "$n") ]] || return 1
  pid=$(<"$(pid_file "$n")")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  [[ $cmdline == *"$(server_dir "$n")/zoo.cfg"* ]] || return 1
  echo "$pid"
}

# Process state letter from /proc (R, S, T for stopped, Z, ...).
proc_state() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  echo "${stat%% *}"
}

# Send a four-letter word to a port and print the answer. A paused (SIGSTOP)
# server still completes the TCP handshake from the kernel's backlog but never
# answers, hence the deadline.
fourlw_port() {
  local port=$1 word=$2
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout "$fourlw_timeout" bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1
    printf %s "$1" >&3
    cat <&3' "$port" "$word" 2>/dev/null
}

# leader, follower, standalone or observer; empty if not serving.
server_mode() {
  local answer
  answer=$(fourlw_port "$(client_port "$1")" srvr) || true
  sed -n 's/^Mode: //p' <<<"$answer"
}

# Establish and close a ZooKeeper session on server N, speaking the wire
# protocol from bash. Creating a session is a transaction that the leader
# commits through a quorum (local sessions are off by default), so a session
# id coming back proves the ensemble accepts writes.
session_probe() {
  local port
  port=$(client_port "$1")
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout "$fourlw_timeout" bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1
    # ConnectRequest, 45 bytes: protocolVersion 0, lastZxidSeen 0,
    # timeOut 4000 ms, sessionId 0, 16-byte zero password, readOnly false.
    printf "\x00\x00\x00\x2d\x00\x00\x00\x00" >&3
    printf "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x0f\xa0" >&3
    printf "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10" >&3
    printf "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    # ConnectResponse: length, protocolVersion, timeOut, sessionId, ...
    reply=$(head -c 20 <&3 | od -An -v -tx1 | tr -d " \n")
    [[ ${#reply} == 40 ]] || exit 1
    session=${reply:24:16}
    [[ $session != 0000000000000000 ]] || exit 1
    # closeSession: xid 1, type -11; wait for its reply so the session is
    # gone before we return instead of lingering until its timeout.
    printf "\x00\x00\x00\x08\x00\x00\x00\x01\xff\xff\xff\xf5" >&3
    head -c 16 <&3 >/dev/null' "$port" 2>/dev/null
}

write_log4j_config() {
  cat >"$state_dir/log4j.properties" <<'EOF'
# Written by ensemble.sh: INFO and above into <server dir>/zookeeper.log.
log4j.rootLogger=INFO, FILE
log4j.appender.FILE=org.apache.log4j.FileAppender
log4j.appender.FILE.File=${zookeeper.log.dir}/zookeeper.log
log4j.appender.FILE.Append=true
log4j.appender.FILE.layout=org.apache.log4j.PatternLayout
log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n
EOF
}

write_server_config() {
  local n=$1 dir i
  dir=$(server_dir "$n")
  mkdir -p "$dir/data"
  echo "$n" >"$dir/data/myid"
  {
    echo "tickTime=500"
    echo "initLimit=10"
    echo "syncLimit=4"
    echo "dataDir=$dir/data"
    echo "clientPort=$(client_port "$n")"
    echo "clientPortAddress=127.0.0.1"
    echo "minSessionTimeout=1000"
    echo "maxSessionTimeout=60000"
    # Every test client comes from 127.0.0.1; the default cap of 60
    # connections per address would make busy tests fail spuriously.
    echo "maxClientCnxns=0"
    echo "4lw.commands.whitelist=*"
    echo "admin.enableServer=false"
    # 4 MiB instead of 64 MiB of preallocated transaction log per server.
    echo "preAllocSize=4096"
    if [[ $nosync == 1 ]]; then
      echo "forceSync=no"
    fi
    if [[ $tls == 1 ]]; then
      # Keys the server does not know become zookeeper.* system
      # properties: ssl.* configure the secure port, authProvider.x509
      # gives a TLS session its x509: identity (Netty closes a secure
      # connection when that provider is missing).
      echo "secureClientPort=$(secure_port "$n")"
      echo "secureClientPortAddress=127.0.0.1"
      echo "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory"
      echo "authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider"
      echo "ssl.keyStore.location=$(tls_dir)/server.p12"
      echo "ssl.keyStore.password=$(<"$(tls_dir)/store-password")"
      echo "ssl.keyStore.type=PKCS12"
      echo "ssl.trustStore.location=$(tls_dir)/truststore.p12"
      echo "ssl.trustStore.password=$(<"$(tls_dir)/store-password")"
      echo "ssl.trustStore.type=PKCS12"
      # A client certificate is asked for and checked when sent (the C
      # client always sends one).
      echo "ssl.clientAuth=want"
      if ((servers > 1)); then
        # The servers talk TLS to each other too (quorum and election
        # ports), with the same key and trust stores: Debian's 3.8 does it
        # with nothing more, the server certificate naming 127.0.0.1.
        echo "sslQuorum=true"
        echo "ssl.quorum.keyStore.location=$(tls_dir)/server.p12"
        echo "ssl.quorum.keyStore.password=$(<"$(tls_dir)/store-password")"
        echo "ssl.quorum.keyStore.type=PKCS12"
        echo "ssl.quorum.trustStore.location=$(tls_dir)/truststore.p12"
        echo "ssl.quorum.trustStore.password=$(<"$(tls_dir)/store-password")"
        echo "ssl.quorum.trustStore.type=PKCS12"
      fi
    fi
    if ((servers > 1)); then
      for ((i = 1; i <= servers; i++)); do
        echo "server.$i=127.0.0.1:$(quorum_port "$i"):$(election_port "$i")"
      done
    fi
  } >"$dir/zoo.cfg"
}

# Launch server N detached in its own session (a Ctrl-C meant for the test
# runner must not reach it; the runner's trap calls `stop`). The inner bash
# records its own PID and then execs java, so the PID file names the JVM. It
# closes every inherited descriptor above stderr first: a JVM holding the
# write end of a caller's pipe would keep that caller (a `| tee`, a test
# harness) waiting for EOF until the ensemble stops.
launch_server() {
  local n=$1 dir jit_option=-XX:TieredStopAtLevel=1 tls_classpath=
  [[ $tls == 1 ]] && tls_classpath=$zk_tls_classpath
  [[ ${jit:-quick} == full ]] && jit_option=-XX:+TieredCompilation
  dir=$(server_dir "$n")
  rm -f "$dir/pid"
  # shellcheck disable=SC2016 # expanded by the inner bash
  setsid bash -c '
    for fd in /proc/$$/fd/*; do
      fd=${fd##*/}
      ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
    done
    echo $$ >"$0/pid"
    exec "$@"' "$dir" \
    "$java_bin" -Xmx256m -Xss512k -XX:+UseSerialGC "$jit_option" \
    -XX:-UsePerfData -XX:+ExitOnOutOfMemoryError -Djava.net.preferIPv4Stack=true \
    "-Dzookeeper.log.dir=$dir" "-Dlog4j.configuration=file:$state_dir/log4j.properties" \
    -Dzookeeper.jmx.log4j.disable=true -Dzookeeper.extendedTypesEnabled=true \
    -cp "$zk_classpath${tls_classpath:+:$tls_classpath}" "$zk_main" "$dir/zoo.cfg" \
    </dev/null >>"$dir/console.log" 2>&1 &
  local deadline=$((SECONDS + 5))
  until [[ -s $dir/pid ]]; do
    ((SECONDS < deadline)) || die "server $n: no PID recorded"
    sleep 0.05
  done
}

port_in_use() {
  ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

check_prerequisites() {
  command -v "$java_bin" >/dev/null || die "java not found (install default-jre-headless)"
  command -v setsid >/dev/null || die "setsid not found (util-linux)"
  local jar
  IFS=: read -ra jars <<<"$zk_classpath"
  for jar in "${jars[@]}"; do
    [[ -e $jar ]] || die "$jar missing (install zookeeper liblog4j1.2-java libslf4j-java)"
  done
  if [[ $tls == 1 ]]; then
    command -v openssl >/dev/null || die "openssl not found (install openssl)"
    command -v keytool >/dev/null || die "keytool not found (install default-jre-headless)"
    IFS=: read -ra jars <<<"$zk_tls_classpath"
    for jar in "${jars[@]}"; do
      [[ -e $jar ]] || die "$jar missing (install libnetty-java)"
    done
  fi
}

# A throwaway CA and, signed by it, a server certificate for 127.0.0.1 and
# localhost and a client certificate (CN=zkr-client), into <dir>/tls: PEM
# for the C client, PKCS12 key and trust stores for the servers. Valid for
# two days; made anew at every start and removed by stop.
make_tls_files() {
  local d
  d=$(tls_dir)
  mkdir -p "$d"
  chmod 700 "$d"
  (
    set -e
    cd "$d"
    umask 077
    openssl rand -hex 16 >store-password
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
      -keyout ca.key -out ca.pem -days 2 -subj "/CN=zkr ensemble test CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    local who
    for who in server client; do
      local subject=/CN=zkr-$who ext
      if [[ $who == server ]]; then
        ext="subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth,clientAuth"
      else
        ext="extendedKeyUsage=clientAuth"
      fi
      openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
        -keyout "$who.key" -out "$who.csr" -subj "$subject"
      openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
        -days 2 -out "$who.pem" -extfile <(printf '%s\n' "$ext")
      rm -f "$who.csr"
    done
    openssl pkcs12 -export -in server.pem -inkey server.key -certfile ca.pem \
      -name server -out server.p12 -passout file:store-password
    keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 \
      -storetype PKCS12 -storepass "$(<store-password)"
  ) >"$d/make.log" 2>&1 || { cat "$d/make.log" >&2; die "making the TLS certificates failed"; }
}

# True when server N's secure port accepts connections (with --tls).
secure_port_listens() {
  [[ $tls == 1 ]] || return 0
  port_in_use "$(secure_port "$1")"
}

print_log_tails() {
  local n
  for ((n = 1; n <= servers; n++)); do
    for log in "$(server_dir "$n")/console.log" "$(server_dir "$n")/zookeeper.log"; do
      [[ -s $log ]] || continue
      echo "----- tail of $log" >&2
      tail -n 40 "$log" >&2
    done
  done
}

# True when every server reports a mode, the roles form a quorum (exactly
# one leader, the rest followers; or one standalone) and a session can be
# created through every server.
ensemble_serves() {
  local n mode leaders=0 followers=0 standalone=0
  for ((n = 1; n <= servers; n++)); do
    mode=$(server_mode "$n")
    case $mode in
      leader) leaders=$((leaders + 1)) ;;
      follower) followers=$((followers + 1)) ;;
      standalone) standalone=$((standalone + 1)) ;;
      *) return 1 ;;
    esac
  done
  if ((servers == 1)); then
    ((standalone == 1)) || return 1
  else
    ((leaders == 1 && followers == servers - 1)) || return 1
  fi
  for ((n = 1; n <= servers; n++)); do
    session_probe "$n" || return 1
    secure_port_listens "$n" || return 1
  done
}

server_serves() {
  case $(server_mode "$1") in
    leader | follower | standalone) session_probe "$1" && secure_port_listens "$1" ;;
    *) return 1 ;;
  esac
}

any_live() {
  local n
  for ((n = 1; n <= servers; n++)); do
    live_pid "$n" >/dev/null && return 0
  done
  return 1
}

# SIGTERM, wait, then SIGKILL. A paused server gets SIGCONT first, or the
# SIGTERM would stay pending until the deadline.
stop_server() {
  local n=$1 pid deadline
  pid=$(live_pid "$n") || { rm -f "$(pid_file "$n")"; return 0; }
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + stop_timeout))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "server $n (pid $pid) ignored SIGTERM for ${stop_timeout}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid"
  fi
  rm -f "$(pid_file "$n")"
}

# setsid detaches the JVM, so it is not our child and `wait` cannot reap it;
# it is gone once /proc no longer lists it (or lists a zombie).
wait_gone() {
  local pid=$1 deadline=$((SECONDS + 10)) state
  while state=$(proc_state "$pid") && [[ $state != Z ]]; do
    ((SECONDS < deadline)) || die "pid $pid still exists after SIGKILL"
    sleep 0.05
  done
}

cmd_start() {
  # A new ensemble takes its shape from the environment and options, not
  # from the state file of the previous one.
  servers=${ZKR_ENSEMBLE_SERVERS:-3}
  port_base=${ZKR_ENSEMBLE_PORT_BASE:-21810}
  nosync=0
  jit=quick
  tls=0
  while (($#)); do
    case $1 in
      --tls) tls=1; shift ;;
      --servers) servers=${2:-}; shift 2 || die "--servers needs a value" ;;
      --servers=*) servers=${1#*=}; shift ;;
      --nosync) nosync=1; shift ;;
      --full-jit) jit=full; shift ;;
      *) die "start: unknown option '$1'" ;;
    esac
  done
  [[ $servers == 1 || $servers == 3 ]] || die "--servers must be 1 or 3, got '$servers'"
  check_prerequisites

  if [[ -r $state_file ]] && (
    # shellcheck disable=SC1090
    source "$state_file"
    any_live
  ); then
    say "an ensemble from $state_dir is still running: stopping it first"
    (cmd_stop_from_state)
  fi

  local n port
  for ((n = 1; n <= servers; n++)); do
    local ports=("$(client_port "$n")" "$(quorum_port "$n")" "$(election_port "$n")")
    [[ $tls == 1 ]] && ports+=("$(secure_port "$n")")
    for port in "${ports[@]}"; do
      port_in_use "$port" && die "port $port is already in use (another ensemble? set ZKR_ENSEMBLE_PORT_BASE)"
    done
  done

  rm -rf "$state_dir"
  mkdir -p "$state_dir"
  printf 'servers=%s\nport_base=%s\nnosync=%s\njit=%s\ntls=%s\n' "$servers" "$port_base" "$nosync" "$jit" "$tls" >"$state_file"
  write_log4j_config
  [[ $tls == 1 ]] && make_tls_files
  for ((n = 1; n <= servers; n++)); do
    write_server_config "$n"
  done
  for ((n = 1; n <= servers; n++)); do
    launch_server "$n"
  done

  local deadline=$((SECONDS + start_timeout)) started=$SECONDS
  until ensemble_serves; do
    for ((n = 1; n <= servers; n++)); do
      if ! live_pid "$n" >/dev/null; then
        say "server $n exited during start"
        print_log_tails
        cmd_stop
        exit 1
      fi
    done
    if ((SECONDS >= deadline)); then
      say "no serving quorum after ${start_timeout}s"
      print_log_tails
      cmd_stop
      exit 1
    fi
    sleep 0.2
  done
  say "$servers server(s) serving after $((SECONDS - started))s, leader: $(find_leader || echo none), hosts: $(cmd_hosts)"
  if [[ $tls == 1 ]]; then
    say "TLS hosts: $(cmd_hosts --tls), certificates in $(tls_dir)"
  fi
}

cmd_stop_from_state() {
  # shellcheck disable=SC1090
  source "$state_file"
  cmd_stop
}

cmd_stop() {
  local n pids=()
  # Resume everything first so the SIGTERMs are acted on in parallel.
  for ((n = 1; n <= servers; n++)); do
    local pid
    if pid=$(live_pid "$n"); then
      kill -CONT "$pid" 2>/dev/null || true
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$n")
    fi
  done
  for n in "${pids[@]}"; do
    stop_server "$n"
  done
  for ((n = 1; n <= servers; n++)); do
    rm -rf "$(server_dir "$n")/data" "$(server_dir "$n")/pid"
  done
  rm -rf "$(tls_dir)"
  rm -f "$state_file"
}

cmd_status() {
  [[ -r $state_file ]] || { echo "not running ($state_dir)"; return 3; }
  local n pid state mode all=0
  for ((n = 1; n <= servers; n++)); do
    if pid=$(live_pid "$n"); then
      state=$(proc_state "$pid")
      [[ $state == T ]] && state=paused || state=running
      mode=$(server_mode "$n")
    else
      pid=- state=dead mode=
    fi
    [[ -n $mode ]] || { mode=not-serving; all=1; }
    printf 'server %d: port %d pid %s %s %s\n' "$n" "$(client_port "$n")" "$pid" "$state" "$mode"
  done
  return $all
}

require_running() {
  [[ -r $state_file ]] || die "no ensemble running in $state_dir"
}

cmd_kill() {
  require_running
  check_index "${1:-}"
  local pid
  pid=$(live_pid "$1") || die "server $1 is not running"
  kill -KILL "$pid"
  wait_gone "$pid"
  rm -f "$(pid_file "$1")"
}

cmd_restart() {
  require_running
  check_index "${1:-}"
  check_prerequisites
  stop_server "$1"
  launch_server "$1"
  local deadline=$((SECONDS + start_timeout))
  until server_serves "$1"; do
    if ! live_pid "$1" >/dev/null; then
      print_log_tails
      die "server $1 exited during restart"
    fi
    ((SECONDS < deadline)) || { print_log_tails; die "server $1 not serving after ${start_timeout}s"; }
    sleep 0.2
  done
}

cmd_signal() {
  local sig=$1
  shift
  require_running
  check_index "${1:-}"
  local pid
  pid=$(live_pid "$1") || die "server $1 is not running"
  kill "-$sig" "$pid"
}

cmd_hosts() {
  local n out= port_of=client_port
  case ${1:-} in
    '') ;;
    --tls)
      [[ $tls == 1 ]] || die "hosts --tls: the ensemble in $state_dir was not started with --tls"
      port_of=secure_port ;;
    *) die "hosts: unknown option '$1'" ;;
  esac
  for ((n = 1; n <= servers; n++)); do
    out+=${out:+,}127.0.0.1:$($port_of "$n")
  done
  echo "$out"
}

cmd_tls_files() {
  [[ $tls == 1 ]] || die "tls-files: the ensemble in $state_dir was not started with --tls"
  local d
  d=$(tls_dir)
  # The client key has no passphrase; the fourth field is still required.
  echo "$d/ca.pem,$d/client.pem,$d/client.key,"
}

find_leader() {
  local n mode
  for ((n = 1; n <= servers; n++)); do
    mode=$(server_mode "$n")
    [[ $mode == leader || $mode == standalone ]] && { echo "$n"; return 0; }
  done
  return 1
}

cmd_fourlw() {
  check_index "${1:-}"
  [[ -n ${2:-} ]] || die "fourlw N CMD"
  local rc=0
  fourlw_port "$(client_port "$1")" "$2" || rc=$?
  case $rc in
    0 | 141) ;; # 141: SIGPIPE, the reader (e.g. `| head`) had enough
    124) die "server $1 did not answer '$2' within ${fourlw_timeout}s" ;;
    *) die "server $1 (port $(client_port "$1")) is not reachable" ;;
  esac
}

main() {
  local cmd=${1:-help}
  shift || true
  case $cmd in
    start) cmd_start "$@" ;;
    stop) if [[ -r $state_file ]]; then cmd_stop; fi ;;
    status) cmd_status ;;
    kill) cmd_kill "$@" ;;
    restart) cmd_restart "$@" ;;
    pause) cmd_signal STOP "$@" ;;
    resume) cmd_signal CONT "$@" ;;
    hosts) cmd_hosts "$@" ;;
    tls-files) cmd_tls_files ;;
    port) check_index "${1:-}"; client_port "$1" ;;
    pid) check_index "${1:-}"; live_pid "$1" || die "server $1 is not running" ;;
    leader) find_leader || die "no leader" ;;
    fourlw) cmd_fourlw "$@" ;;
    help | -h | --help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"
