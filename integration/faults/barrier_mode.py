"""The fault suite's barrier mode (faults.py --modes barrier): 6 members, each
behind its own proxy, loop on one double barrier of 6 (enter, a 50 ms step,
leave) while the nemesis kills and pauses servers, expires members' sessions,
black-holes their proxies and SIGSTOPs them. integration/faults/
barrier-worker.c logs every step; the checker here reads the logs.

What the checker holds the barrier to (times are CLOCK_MONOTONIC us):
- A member's node can exist only while the member is in an attempt: from the
  node's creation (its ctime, read after the pass and placed on the monotonic
  clock; the enter call when unread) to the end of its leave, or, when a call
  failed, until one session timeout after the failure (a failed enter or
  leave deletes the node in the background; a dead session's node goes when
  the server expires it).
- No early enter: a round (told apart by PATH/ready's czxid) opens when
  PATH/ready is created (its ctime); at that moment at least N members must
  be in such a window. Fewer means the barrier opened while fewer than N
  could have had a node: everybody who passed on it passed early. A member
  that died after its node was made still counts (it had entered: its node
  counted until the server expired it), which is why a window outlives a
  failure. Each pass is also held to the same count at its own moment.
- No early leave: a member passes leave only once every other member node of
  its round (the rounds are told apart by PATH/ready's czxid) that was there
  when its leave began is gone. A member of the round that passed enter
  before that and had not yet called leave still has its node, unless its
  session died meanwhile (it logged LOST or a failed call by then, or the
  nemesis expired, black-holed or stopped it): a leave completing inside
  such a member's stay is early. (A member that passes on the round's ready
  node after the leave began joined late; a leave waits only for the nodes
  it saw first, else it could wait for the next round: docs/design.md
  §4.2.)
- Liveness: once the faults stopped, every member gets through its current
  barrier (its next enter or leave passes) within one session timeout
  (+ 1 s for a machine of 2 loaded cores).
- At exit (SIGTERM to every member) no node is left under the path.
"""

import os
import subprocess
import time

from nemesis import stop_processes

MEMBERS = 6
STEP_MS = 50
PATH = "/zkr-faults/barrier"
# fault-phase and quiet seconds per run
RUNS = {"quick": (36, 6), "full": (140, 8)}
BARRIER_FAULT_KINDS = [
    ("kill-leader", 1.0),
    ("pause-member", 1.0),
    ("expire-session", 1.5),
    ("partition-client", 1.5),
    ("pause-client", 1.0),
]
LIVENESS_SLACK_US = 1_000_000
CTIME_SLACK_US = 2_000


def read_log(path, member, problems):
    """The events of one member: (kind, attempt, t, extra words)."""
    events = []
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if not words:
                    continue
                if words[0] == "state":
                    events.append(("state", 0, int(words[2]), words[1:2]))
                elif words[0] in ("exit", "clock"):
                    events.append((words[0], 0, int(words[1]), []))
                else:
                    events.append((words[0], int(words[1]), int(words[2]), words[3:]))
    except (OSError, ValueError, IndexError) as e:
        problems.append(f"member {member}: unreadable log: {e}")
    return events


class Attempt:
    __slots__ = ("member", "n", "enter", "passed", "node", "round", "opened", "created",
                 "leave", "end", "failed", "lost")

    def __init__(self, member, n, t):
        self.member, self.n, self.enter = member, n, t
        self.passed = self.node = self.round = self.leave = self.end = None
        self.opened = self.created = None
        self.failed = False
        self.lost = None  # the first LOST the member heard after its enter

    def window_start(self):
        """Since when the member's node may exist (the ctime is in ms)."""
        return self.created if self.created is not None else self.enter

    def window_end(self, t_us, stop_at):
        """Until when the member's node may exist."""
        if self.end is None:
            return stop_at + t_us
        return self.end + t_us if self.failed else self.end

    def __repr__(self):
        return (f"member {self.member} attempt {self.n} [enter {self.enter}, pass {self.passed}, "
                f"leave {self.leave}, end {self.end}{' failed' if self.failed else ''}] "
                f"round {self.round}")


def attempts_of(events, member):
    attempts, by_n, losts, offset = [], {}, [], None
    for kind, n, t, extra in events:
        if kind == "clock":
            offset = t
            continue
        if kind == "state":
            if extra[0] == "LOST":
                losts.append(t)
            continue
        if kind == "enter":
            a = Attempt(member, n, t)
            attempts.append(a)
            by_n[n] = a
            continue
        a = by_n.get(n)
        if a is None:
            continue
        if kind == "pass":
            a.passed, a.node = t, extra[0]
            a.round = int(extra[1]) if int(extra[1]) >= 0 else None
            if offset is not None and int(extra[2]) >= 0:
                a.opened = int(extra[2]) * 1000 - offset
            if offset is not None and int(extra[3]) >= 0:
                a.created = int(extra[3]) * 1000 - offset
        elif kind == "enter-fail":
            a.end, a.failed = t, True
        elif kind == "leave":
            a.leave = t
        elif kind == "left":
            a.end = t
        elif kind == "leave-fail":
            a.end, a.failed = t, True
    for a in attempts:
        a.lost = next((t for t in losts if t >= a.enter), None)
    return attempts


def check(run_dir, faults, stop_faults_at, stop_at, t_us):
    problems, attempts = [], []
    for i in range(1, MEMBERS + 1):
        events = read_log(os.path.join(run_dir, f"m{i}.log"), i, problems)
        attempts.extend(attempts_of(events, i))
    passes = [a for a in attempts if a.passed is not None]

    # No early enter: N windows open when each round opened, and at each
    # pass. The ctimes are whole ms and the clock offsets a few us apart.
    def possibly_in(t):
        return {b.member for b in attempts
                if b.window_start() - CTIME_SLACK_US <= t <= b.window_end(t_us, stop_at)}

    early_enter = 0
    opened = {}
    for a in passes:
        if a.round is not None and a.opened is not None:
            opened.setdefault(a.round, (a.opened, a))
    for r, (t, a) in sorted(opened.items()):
        inside = possibly_in(t + CTIME_SLACK_US)
        if len(inside) < MEMBERS:
            early_enter += 1
            if early_enter <= 10:
                problems.append(f"round {r} opened (PATH/ready made at {t}) with only "
                                f"{len(inside)} members possibly in: {sorted(inside)}; "
                                f"passed on it: {a!r}")
    for a in passes:
        inside = possibly_in(a.passed)
        if len(inside) < MEMBERS:
            early_enter += 1
            if early_enter <= 20:
                problems.append(f"passed enter with only {len(inside)} members possibly in: "
                                f"{a!r}; in: {sorted(inside)}")

    # No early leave: within a round, a completed leave inside another
    # member's sure stay (passed, not yet leaving, session not in doubt).
    def in_doubt(b, start, end):
        if b.lost is not None and b.lost <= end + t_us:
            return True
        return any(f.get("worker") == b.member and f["start"] <= end and f["end"] + t_us >= start
                   for f in faults)

    early_leave = 0
    rounds = {}
    for a in passes:
        if a.round is not None:
            rounds.setdefault(a.round, []).append(a)
    for members in rounds.values():
        for a in members:
            if a.end is None or a.failed:
                continue
            for b in members:
                if b is a or b.member == a.member:
                    continue
                stay_end = b.leave if b.leave is not None else b.end
                if b.passed < a.leave and (stay_end is None or a.end < stay_end) \
                        and not in_doubt(b, b.passed, a.end):
                    early_leave += 1
                    if early_leave <= 10:
                        problems.append(f"left while another member was in: {a!r} left at "
                                        f"{a.end}; still in: {b!r}")

    # Liveness after the faults: each member's next pass within T.
    late = []
    for i in range(1, MEMBERS + 1):
        mine = [a for a in attempts if a.member == i]
        marks = sorted([a.passed for a in mine if a.passed is not None] +
                       [a.end for a in mine if a.end is not None and not a.failed])
        after = [t for t in marks if t >= stop_faults_at]
        if not after or after[0] - stop_faults_at > t_us + LIVENESS_SLACK_US:
            late.append(i)
            problems.append(f"member {i} not through its barrier within one session timeout "
                            f"after the faults stopped (at {stop_faults_at}): next pass "
                            f"{after[0] if after else 'never'}")
    unknown_rounds = sum(1 for a in passes if a.round is None)
    recoveries = []
    for i in range(1, MEMBERS + 1):
        marks = sorted(a.passed for a in attempts if a.member == i and a.passed is not None
                       and a.passed >= stop_faults_at)
        if marks:
            recoveries.append(marks[0] - stop_faults_at)
    stats = {"attempts": len(attempts), "passes": len(passes),
             "completed": sum(1 for a in attempts if a.end is not None and not a.failed),
             "failed": sum(1 for a in attempts if a.failed), "rounds": len(rounds),
             "unknown_rounds": unknown_rounds, "early_enter": early_enter,
             "early_leave": early_leave, "late": late,
             "recovery_max_us": max(recoveries, default=0)}
    return problems, stats




def count_left(args, hosts, deadline):
    """The nodes left under PATH, asked again until @deadline: a member
    whose close could not reach the server leaves its node to expiry."""
    while True:
        result = subprocess.run([args.worker, "--hosts", hosts, "--count", PATH],
                                capture_output=True, text=True, timeout=60)
        out = result.stdout.strip()
        if result.returncode == 0 and out.endswith("count 0 rc ok"):
            return None
        if time.monotonic() >= deadline:
            return out
        time.sleep(0.5)


def run(args, ensemble, proxies, run_dir, seed, full, nemesis_class, session_timeout_ms, say):
    """Returns (ok, summary line, violations)."""
    fault_s, quiet_s = RUNS["full" if full else "quick"]
    t_us = session_timeout_ms * 1000
    os.makedirs(run_dir, exist_ok=True)
    say(f"barrier: {MEMBERS} members on a double barrier of {MEMBERS}, "
        f"{fault_s}s of faults, {quiet_s}s quiet")
    members, violations, faults, stats = [], [], [], {}
    stop_faults_at = stop_at = 0
    try:
        for i in range(1, MEMBERS + 1):
            log = open(os.path.join(run_dir, f"w{i}.log"), "w")
            members.append(subprocess.Popen(
                [args.barrier_worker, "--hosts", proxies[i - 1].address, "--path", PATH,
                 "--dir", run_dir, "--id", str(i), "--members", str(MEMBERS),
                 "--session-timeout", str(session_timeout_ms), "--step-ms", str(STEP_MS)],
                stdout=log, stderr=subprocess.STDOUT))
            log.close()
        nemesis = nemesis_class(seed, ensemble, proxies[:MEMBERS], members, run_dir, args,
                                kinds=BARRIER_FAULT_KINDS)
        nemesis.run(time.monotonic() + fault_s)
        faults = nemesis.log
        stop_faults_at = max((f["end"] for f in faults), default=int(time.monotonic() * 1e6))
        # Quiet: one session timeout for the liveness check, then some.
        time.sleep(max(0.0, stop_faults_at / 1e6 + t_us / 1e6 + quiet_s - time.monotonic()))
    finally:
        stop_at = int(time.monotonic() * 1e6)
        codes = stop_processes(members)
    with open(os.path.join(run_dir, "nemesis.log"), "w") as f:
        for fault in faults:
            f.write(repr(fault) + "\n")
        f.write(repr({"stop_faults": stop_faults_at, "stop": stop_at}) + "\n")
    for i, code in enumerate(codes, start=1):
        if code != 0:
            violations.append(f"member {i} exited with {code}")
    problems, stats = check(run_dir, faults, stop_faults_at, stop_at, t_us)
    violations.extend(problems)
    left = count_left(args, ensemble.hosts, time.monotonic() + t_us / 1e6 + 2)
    if left is not None:
        violations.append(f"nodes left after all members exited: {left}")
    line = (f"barrier: attempts {stats.get('attempts', 0)}, passed enter "
            f"{stats.get('passes', 0)}, left {stats.get('completed', 0)}, failed calls "
            f"{stats.get('failed', 0)}, rounds {stats.get('rounds', 0)} (passes of unknown "
            f"round {stats.get('unknown_rounds', 0)}), faults {len(faults)}, early enters "
            f"{stats.get('early_enter', 0)}, early leaves {stats.get('early_leave', 0)}, "
            f"through after the faults max {stats.get('recovery_max_us', 0) / 1e6:.2f}s, "
            f"violations {len(violations)}")
    return not violations, line, violations
