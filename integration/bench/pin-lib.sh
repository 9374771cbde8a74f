# zkr benchmarks: sourced by run-bench-node.sh and run-bench-counter.sh for
# --pin-server PID. Pins every thread of the ZooKeeper server PID to the
# last CPU and sets pin_prefix to run the benchmark on the others, as
# client and server would be on machines of their own: on a small machine
# sharing all cores, the scheduler's placement of the server's threads
# against the client's moves the throughput by a factor of two between
# runs (docs/performance.md). pin_restore puts the server's mask back.

pin_prefix=()
pinned_pid=
pinned_mask=

# pin_server NAME PID: NAME prefixes the error messages.
pin_server() {
  local cpus
  cpus=$(nproc)
  command -v taskset >/dev/null || { echo "$1: --pin-server: taskset not found" >&2; return 2; }
  [ "$cpus" -ge 2 ] || { echo "$1: --pin-server needs 2 CPUs, this machine has $cpus" >&2; return 2; }
  pinned_mask=$(taskset -p "$2" | awk '{print $NF}') ||
    { echo "$1: --pin-server: no process $2" >&2; return 2; }
  pinned_pid=$2
  taskset -a -p -c "$((cpus - 1))" "$2" >/dev/null
  pin_prefix=(taskset -c "0-$((cpus - 2))")
}

pin_restore() {
  if [ -n "$pinned_pid" ]; then
    taskset -a -p "$pinned_mask" "$pinned_pid" >/dev/null 2>&1 || true
  fi
}
