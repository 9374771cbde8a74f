"""The fault suite's nemesis (faults.py): faults from a seeded schedule
(leader kills, member pauses, session expiries, client partitions and
pauses), each logged with its start, end and scope for the checkers; and
the expiry storm's (StormNemesis): every client's session expired from
outside every few hundred milliseconds."""

import os
import random
import signal
import subprocess
import time

# The session timeout every mode's clients use, in ms (faults.py's too).
SESSION_TIMEOUT_MS = 4000

# The nemesis' menu and weights.
FAULT_KINDS = [
    ("kill-leader", 1.0),
    ("pause-member", 1.0),
    ("expire-session", 1.0),
    ("partition-client", 1.5),
    ("pause-client", 1.5),
    ("partition-waiter", 1.0),
]

# The expiry storm (StormNemesis): each client's session is expired from
# outside this often, in ms.
STORM_EVERY_MS = 300


def now_us():
    return int(time.monotonic() * 1_000_000)


def say(*words):
    print("faults:", *words, flush=True)


def stop_processes(procs, timeout=60):
    """SIGCONT then SIGTERM to each process still running (a SIGSTOPped one
    must run to exit), then their exit codes ("killed" for one that did not
    exit within @timeout seconds and was SIGKILLed)."""
    for proc in procs:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            os.kill(proc.pid, signal.SIGTERM)
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(timeout=timeout))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            codes.append("killed")
    return codes


# ---- the nemesis ------------------------------------------------------------


class Nemesis:
    """Faults from a seeded schedule: kinds, durations and gaps come from
    `schedule`; which client is hit (preferably one that holds the lock at
    that moment) from `targets`, seeded too but depending on the run."""

    def __init__(self, seed, ensemble, proxies, workers, run_dir, args, kinds=None):
        self.kinds = kinds or FAULT_KINDS
        self.schedule = random.Random(seed)
        self.targets = random.Random(seed + 1)
        self.ensemble = ensemble
        self.proxies = proxies
        self.workers = workers
        self.run_dir = run_dir
        self.args = args
        self.log = []
        self.t = SESSION_TIMEOUT_MS / 1000.0

    def holding(self, i):
        try:
            with open(os.path.join(self.run_dir, f"w{i}.state"), "rb") as f:
                return f.read(1) == b"H"
        except OSError:
            return False

    def pick_client(self):
        """A client holding the lock right now if one shows up within
        0.5 s (its state file says 'H'), else any client."""
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            holders = [i for i in range(1, len(self.workers) + 1) if self.holding(i)]
            if holders:
                return self.targets.choice(holders), True
            time.sleep(0.001)
        return self.targets.randint(1, len(self.workers)), False

    def run(self, until):
        kinds = [k for k, _ in self.kinds]
        weights = [w for _, w in self.kinds]
        while True:
            gap = self.schedule.uniform(1.0, 3.0)
            kind = self.schedule.choices(kinds, weights)[0]
            length = self.schedule.uniform(0.0, 1.0)
            member = self.schedule.randint(1, 3)
            if time.monotonic() + gap + 2.5 * self.t > until:
                break
            time.sleep(gap)
            record = getattr(self, "fault_" + kind.replace("-", "_"))(length, member)
            record["kind"] = kind
            self.log.append(record)
            say(f"  fault {len(self.log)}: {kind} {record.get('target', '')}"
                f"{' (holding)' if record.get('holding') else ''}"
                f" {(record['end'] - record['start']) / 1e6:.1f}s")

    def settle_servers(self):
        """Before a fault on a server: every follower synced with the leader
        for a second. Debian's ZooKeeper (3.8.0) can lose transactions it
        acknowledged when a server fails while another one that was just
        restarted is still synchronizing (ZOOKEEPER-3911, -4646, -4785:
        fixed in later releases); the lost write, or a node left on one
        server only, then shows as a client's violation. The faults test
        zkr, not that window. Bounded: after 3 session timeouts the fault
        goes ahead (and the wait is logged)."""
        start = time.monotonic()
        while time.monotonic() - start < 3 * self.t:
            if self.ensemble.synced():
                time.sleep(1.0)
                if self.ensemble.synced():
                    return time.monotonic() - start
            time.sleep(0.1)
        say(f"  servers not synced after {time.monotonic() - start:.1f}s: the fault goes ahead")
        return time.monotonic() - start

    def fault_kill_leader(self, length, member):
        self.settle_servers()
        leader = self.ensemble.leader() or member
        start = now_us()
        self.ensemble.run("kill", str(leader))
        time.sleep(self.t * (0.5 + 0.5 * length))
        restart = now_us()
        self.ensemble.run("restart", str(leader))
        return {"target": f"server {leader}", "start": start, "end": now_us(),
                "restart": restart, "scope": "all"}

    def fault_pause_member(self, length, member):
        self.settle_servers()
        start = now_us()
        self.ensemble.run("pause", str(member))
        time.sleep(self.t * (0.5 + length))
        self.ensemble.run("resume", str(member))
        return {"target": f"server {member}", "start": start, "end": now_us(), "scope": "all"}

    def fault_expire_session(self, length, member):
        client, holding = self.pick_client()
        start = now_us()
        result = subprocess.run([self.args.worker, "--hosts", self.ensemble.hosts, "--expire",
                                 os.path.join(self.run_dir, f"w{client}.sid")],
                                capture_output=True, text=True, timeout=60)
        return {"target": f"client {client}", "worker": client, "holding": holding,
                "start": start, "end": now_us(), "scope": "client",
                "note": result.stdout.strip()}

    def fault_partition_client(self, length, member):
        client, holding = self.pick_client()
        start = now_us()
        self.proxies[client - 1].command("blackhole")
        time.sleep(self.t * (1.25 + 0.75 * length))
        self.proxies[client - 1].command("heal")
        return {"target": f"client {client}", "worker": client, "holding": holding,
                "start": start, "end": now_us(), "scope": "client"}

    def fault_partition_waiter(self, length, member):
        """A black-hole under a client that does not hold the lock, so is
        (nearly always) blocked in an acquire: its connection dies silently
        under a call in flight, whose deadline must still be kept."""
        waiting = [i for i in range(1, len(self.workers) + 1) if not self.holding(i)]
        client = self.targets.choice(waiting or list(range(1, len(self.workers) + 1)))
        start = now_us()
        self.proxies[client - 1].command("blackhole")
        time.sleep(self.t * (1.25 + 0.75 * length))
        self.proxies[client - 1].command("heal")
        return {"target": f"client {client}", "worker": client, "holding": False,
                "start": start, "end": now_us(), "scope": "client"}

    def fault_pause_client(self, length, member):
        client, holding = self.pick_client()
        pid = self.workers[client - 1].pid
        start = now_us()
        os.kill(pid, signal.SIGSTOP)
        time.sleep(self.t * (1.25 + 0.75 * length))
        os.kill(pid, signal.SIGCONT)
        return {"target": f"client {client}", "worker": client, "holding": holding,
                "start": start, "end": now_us(), "scope": "client", "stopped": True}


class StormNemesis:
    """The storm mode's nemesis: `zkr-fault-worker --storm` expires each
    client's current session from outside (a second handle with its id and
    password, then closed) every STORM_EVERY_MS for the whole fault phase,
    one thread per client, their starts spread over the period. Each expiry
    is a fault record (kind expire-storm) with its own start and end, so the
    checkers see exactly which calls and holds an expiry hit."""

    def __init__(self, seed, ensemble, proxies, workers, run_dir, args, kinds=None):
        self.ensemble = ensemble
        self.workers = workers
        self.run_dir = run_dir
        self.args = args
        self.log = []

    def run(self, until):
        length_ms = max(0, int((until - time.monotonic()) * 1000))
        subprocess.run([self.args.worker, "--hosts", self.ensemble.hosts, "--storm", self.run_dir,
                        "--clients", str(len(self.workers)), "--every-ms", str(STORM_EVERY_MS),
                        "--for-ms", str(length_ms)],
                       capture_output=True, text=True, timeout=length_ms / 1000 + 120)
        outcomes = {}
        path = os.path.join(self.run_dir, "storm.log")
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    words = line.split()
                    if len(words) != 5 or words[0] != "expire":
                        continue
                    client = int(words[1])
                    self.log.append({"kind": "expire-storm", "target": f"client {client}",
                                     "worker": client, "start": int(words[2]),
                                     "end": int(words[3]), "scope": "client",
                                     "outcome": words[4]})
                    outcomes[words[4]] = outcomes.get(words[4], 0) + 1
        self.log.sort(key=lambda f: f["start"])
        say(f"  storm: {len(self.log)} expiries from outside over {length_ms / 1000:.0f}s ("
            + ", ".join(f"{k} {n}" for k, n in sorted(outcomes.items())) + ")")
