"""The fault suite's group mode (faults.py --modes group): 10 processes, each
behind its own proxy, are members w1..w10 of one ZkrGroupMember group; each
joins, stays, leaves and joins again at seeded random times (sometimes
changing its payload) while the nemesis kills and pauses servers, expires
members' sessions, black-holes and SIGSTOPs them, and kill -9s member
processes (a killed member is started again, as a new process, after
0.25-1 session timeout). integration/faults/group-worker.c logs every step
and every event its listener hears; a payload "p<pid>.<inc>.<version>"
names the process and the incarnation (one ZkrGroupMember) that set it.

What the checker holds the group to. A view is what an incarnation's
listener events add up to, from its join until its leave (or its
process' death). W is one session timeout plus SLACK_US; a fault counts
against an observer when it hit the ensemble (scope "all") or that
observer's process, and a "quiet deadline" from t0 is t0 + W, pushed to
f.end + W by every such fault that starts before it and ends after t0.
- Events: no JOINED of a member already in the view, no CHANGED or LEFT
  of one not in it; every payload seen was set by a process of that id.
- Gone: once an incarnation left (its close answered) or its process was
  killed (its node goes when the server expires its session), no other
  view holds its payloads past the quiet deadline from then (a close that
  failed also counts the faults on its own process: its delete goes on in
  the background).
- Seen: an incarnation that joined (wait_joined answered TRUE) is in every
  other view by the quiet deadline from when both were in (faults on
  either process count), if both are still in then. The first
  incarnation of every process stays 1.5-3 session timeouts, so a member
  restarted after a kill is seen to come back.
- Settled: once the faults stopped (SIGUSR1 to every process), each
  process joins for good, or sets a payload "p<pid>.<inc>.s" if it was
  in, and must find, within W of the faults' end, its view
  (zkr_group_member_dup_members) equal to a fresh read of the server,
  with all 10 members in, each with such a settled payload (the node of
  a process killed just before stays until its session expires; its
  restarted process joins once it is gone); the checker also holds that
  all 10 views are one, that each member's payload is its last one, and
  that each view is what that incarnation's events add up to.
- At the end (SIGTERM to every process) every process exits 0 (a crash or
  a sanitizer report is a failure), and no node is left under PATH.
"""

import ast
import glob
import os
import re
import signal
import subprocess
import time

from nemesis import now_us, stop_processes

MEMBERS = 10
PATH = "/zkr-faults/group"
# fault-phase seconds per run (the nemesis stops starting faults 2.5
# session timeouts before the phase ends)
RUNS = {"quick": 45, "full": 140}
GROUP_FAULT_KINDS = [
    ("kill-leader", 1.0),
    ("pause-member", 1.0),
    ("expire-session", 1.0),
    ("partition-client", 1.0),
    ("pause-client", 1.0),
    ("kill-client", 2.0),
]
# The server notices an expiry at its next tick (500 ms, integration/
# ensemble.sh), and a loaded 2-core machine gets 1 s, as the barrier mode.
SLACK_US = 1_500_000


# ---- running --------------------------------------------------------------


class Launcher:
    """Starts member processes: launch L of member I logs to g<I>-<L>.log
    (its stdout and stderr, sanitizer reports included, to g<I>-<L>.out)."""

    def __init__(self, args, proxies, run_dir, seed, session_timeout_ms):
        self.args, self.proxies, self.run_dir = args, proxies, run_dir
        self.seed, self.session_timeout_ms = seed, session_timeout_ms
        self.launches = {}

    def start(self, i):
        n = self.launches[i] = self.launches.get(i, 0) + 1
        out = open(os.path.join(self.run_dir, f"g{i}-{n}.out"), "w")
        proc = subprocess.Popen(
            [self.args.group_worker, "--hosts", self.proxies[i - 1].address, "--path", PATH,
             "--dir", self.run_dir, "--id", str(i), "--launch", str(n),
             "--members", str(MEMBERS), "--session-timeout", str(self.session_timeout_ms),
             "--slack-ms", str(SLACK_US // 1000), "--seed", str(self.seed + 100 * i + n)],
            stdout=out, stderr=subprocess.STDOUT)
        out.close()
        return proc


def group_nemesis(nemesis_class, launcher):
    class GroupNemesis(nemesis_class):
        def fault_kill_client(self, length, member):
            """kill -9 a member process, then start it again (a new
            process, a new session) after 0.25-1 session timeout. The
            fault ends at the restart: the new process never ran under
            it."""
            client, holding = self.pick_client()
            proc = self.workers[client - 1]
            crashed = proc.poll()
            start = now_us()
            if crashed is None:
                proc.kill()
                proc.wait()
            time.sleep(self.t * (0.25 + 0.75 * length))
            restart = now_us()
            self.workers[client - 1] = launcher.start(client)
            record = {"target": f"client {client}", "worker": client, "holding": holding,
                      "start": start, "end": restart, "scope": "client",
                      "killed_pid": proc.pid, "new_pid": self.workers[client - 1].pid}
            if crashed is not None:
                record["crashed"] = crashed
            return record
    return GroupNemesis


def wait_for_verdicts(run_dir, launcher, deadline):
    """Until every current process logged its check's verdict."""
    while time.monotonic() < deadline:
        missing = [i for i, n in launcher.launches.items()
                   if not any(line.startswith("check ")
                              for line in read_lines(os.path.join(run_dir, f"g{i}-{n}.log")))]
        if not missing:
            return
        time.sleep(0.1)


def read_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []




def count_left(args, hosts, deadline):
    """The nodes left under PATH, asked again until @deadline (a close that
    could not reach the server leaves its node to the session's end);
    removes PATH once empty."""
    while True:
        result = subprocess.run([args.worker, "--hosts", hosts, "--count", PATH],
                                capture_output=True, text=True, timeout=60)
        out = result.stdout.strip()
        if result.returncode == 0 and out.endswith("count 0 rc ok"):
            return None
        if time.monotonic() >= deadline:
            return out
        time.sleep(0.5)


# ---- the logs ---------------------------------------------------------------


class Incarnation:
    """One ZkrGroupMember of one process."""
    __slots__ = ("proc", "n", "open", "payloads", "joined", "leave", "left", "left_ok",
                 "events", "end", "intervals")

    def __init__(self, proc, n, t, payload):
        self.proc, self.n, self.open = proc, n, t
        self.payloads = [payload]
        self.joined = self.leave = self.left = self.left_ok = self.end = None
        self.events = []        # (t, kind, id, payload)
        self.intervals = {}     # key -> [[from, to]]: when the view held that key

    @property
    def key(self):
        return f"p{self.proc.pid}.{self.n}"

    def __repr__(self):
        return f"member w{self.proc.worker} (pid {self.proc.pid}) incarnation {self.n}"


class Process:
    __slots__ = ("worker", "launch", "pid", "start", "exit", "killed", "incs", "verdict",
                 "check_inc", "checked", "view")

    def __init__(self, worker, launch):
        self.worker, self.launch = worker, launch
        self.pid = self.start = self.exit = self.killed = None
        self.verdict = self.check_inc = self.checked = self.view = None
        self.incs = {}

    def end(self, stop_at):
        return self.killed or self.exit or stop_at


def read_process(path, problems):
    m = re.search(r"g(\d+)-(\d+)\.log$", path)
    p = Process(int(m.group(1)), int(m.group(2)))
    for line in read_lines(path):
        w = line.split()
        try:
            if not w:
                continue
            if w[0] == "start":
                p.pid, p.start = int(w[1]), int(w[2])
            elif w[0] == "join":
                p.incs[int(w[1])] = Incarnation(p, int(w[1]), int(w[2]), w[3])
            elif w[0] == "exit":
                p.exit = int(w[1])
            elif w[0] == "check":
                p.verdict = line
                if w[1] == "ok":
                    p.check_inc, p.checked = int(w[2]), int(w[3])
                    p.view = dict(x.split("=", 1) for x in w[5].split(",")) if len(w) > 5 else {}
            elif w[0] in ("joined", "payload", "leave", "left", "ev", "join-fail"):
                inc = p.incs[int(w[1])]
                t = int(w[2])
                if w[0] == "joined":
                    inc.joined = t if w[3] == "ok" else None
                elif w[0] == "payload":
                    inc.payloads.append(w[3])
                elif w[0] == "leave":
                    inc.leave = t
                elif w[0] == "left":
                    inc.left, inc.left_ok = t, w[3] == "ok"
                elif w[0] == "join-fail":
                    inc.leave = inc.left = t
                else:
                    inc.events.append((t, w[3], w[4], w[5]))
        except (ValueError, IndexError, KeyError) as e:
            problems.append(f"{path}: unreadable line {line!r}: {e!r}")
    return p


def payload_key(payload):
    return payload.rsplit(".", 1)[0]


def replay(inc, owners, stop_at, problems):
    """The incarnation's view from its events: fills inc.intervals and
    returns the view at @stop_at (id -> payload), before any process was
    told to exit."""
    view, opened, at_stop = {}, {}, None
    for t, kind, mid, payload in inc.events:
        if t > stop_at and at_stop is None:
            at_stop = dict(view)
        owner = owners.get(payload_key(payload))
        if owner is None:
            problems.append(f"{inc!r} heard {kind} {mid} with a payload nobody set: {payload}")
        elif f"w{owner}" != mid:
            problems.append(f"{inc!r} heard {kind} {mid} with w{owner}'s payload {payload}")
        known = mid in view
        if (kind == "JOINED") == known:
            problems.append(f"{inc!r} heard {kind} of {mid}, which its view "
                            f"{'held' if known else 'did not hold'}")
        if known:
            old = payload_key(view.pop(mid))
            since = opened.pop(old, None) if kind == "LEFT" or old != payload_key(payload) else None
            if since is not None:
                inc.intervals.setdefault(old, []).append([since, t])
        if kind != "LEFT":
            opened.setdefault(payload_key(payload), t)
            view[mid] = payload
    for key, since in opened.items():
        inc.intervals.setdefault(key, []).append([since, inc.end])
    # The view is empty from the close on (a listener call may still end
    # while close runs).
    for key, spans in inc.intervals.items():
        inc.intervals[key] = [[a, min(b, inc.end)] for a, b in spans if a < inc.end]
    return view if at_stop is None else at_stop


def quiet_deadline(t0, faults, w_us):
    """t0 + W, pushed past every fault in @faults that is in force then."""
    deadline = t0 + w_us
    for f in sorted(faults, key=lambda f: f["start"]):
        if f["start"] <= deadline and f["end"] > t0:
            deadline = max(deadline, f["end"] + w_us)
    return deadline


def faults_on(proc, faults, stop_at):
    """The faults on @proc's member while @proc ran (a kill that ended
    before it started is its predecessor's)."""
    return [f for f in faults if f.get("worker") == proc.worker
            and f["end"] > proc.start and f["start"] < proc.end(stop_at)]


def check_dir(run_dir, say):
    """Checks the logs of a kept run again (faults.py --check); TRUE if
    they pass. Exit codes and leftover nodes were checked by the run."""
    with open(os.path.join(run_dir, "nemesis.log")) as f:
        records = [ast.literal_eval(line) for line in f if line.strip()]
    final = records.pop()
    problems, stats = check(run_dir, records, final)
    say(summary_line(stats, len(records), problems))
    for problem in problems[:20]:
        say("  VIOLATION", problem)
    return not problems


def summary_line(stats, faults, violations):
    return (f"group: {stats['processes']} processes ({stats['kills']} killed and restarted), "
            f"{stats['incarnations']} joins, {stats['payload_changes']} payload changes, "
            f"faults {faults}; gone from every view {stats['gone_checks']} checks "
            f"({stats['kill_gone_checks']} after kills, the slowest "
            f"{stats['kill_gone_max'] / 1e6:.2f}s after its kill), late {stats['late_gone']}; "
            f"seen by every view {stats['seen_checks']} checks, unseen {stats['unseen']}; "
            f"settled views equal the server's after max {stats['settle_max_ms'] / 1e3:.2f}s; "
            f"violations {len(violations)}")


def check(run_dir, faults, final):
    settle_at, stop_at, t_us = final["settle"], final["stop"], final["t_us"]
    w_us = t_us + SLACK_US
    problems = []
    procs = []
    for path in sorted(glob.glob(os.path.join(run_dir, "g*-*.log"))):
        p = read_process(path, problems)
        if p.pid is None:
            problems.append(f"member w{p.worker} launch {p.launch} did not start")
        else:
            procs.append(p)
    killed = {f["killed_pid"]: f for f in faults if "killed_pid" in f}
    for f in faults:
        if "crashed" in f:
            problems.append(f"member process {f['killed_pid']} had already exited "
                            f"({f['crashed']}) when the nemesis came to kill it")
    owners = {}
    for p in procs:
        if p.pid in killed:
            p.killed = killed[p.pid]["start"]
        elif p.exit is None:
            problems.append(f"member w{p.worker} (pid {p.pid}) did not exit cleanly")
        for inc in p.incs.values():
            for payload in inc.payloads:
                owners[payload_key(payload)] = p.worker
    incs = [inc for p in procs for inc in p.incs.values()]
    finals = {}
    for inc in incs:
        inc.end = inc.leave if inc.leave is not None else inc.proc.end(stop_at)
        finals[id(inc)] = replay(inc, owners, stop_at, problems)
    ensemble_faults = [f for f in faults if f["scope"] == "all"]
    on = {id(p): faults_on(p, faults, stop_at) for p in procs}
    stats = {"processes": len(procs), "kills": len(killed), "incarnations": len(incs),
             "payload_changes": sum(len(i.payloads) - 1 for i in incs),
             "gone_checks": 0, "kill_gone_checks": 0, "kill_gone_max": 0,
             "seen_checks": 0, "late_gone": 0, "unseen": 0}

    def held_after(y, key, t):
        return [iv for iv in y.intervals.get(key, []) if iv[1] > t]

    def holds_at(y, key, t):
        return any(a <= t < b for a, b in y.intervals.get(key, []))

    # Gone: a left or killed incarnation's payloads leave every other view.
    for x in incs:
        if x.left is not None and x.left <= settle_at:
            # Its close answered: the node is gone (ok), or its delete
            # goes on in the background (failed), so the faults on its
            # own process count too.
            base, subject, why = x.left, ([] if x.left_ok else on[id(x.proc)]), "left"
        elif x.proc.killed is not None and x.left is None:
            # In, or closing, when its process was killed: the node goes
            # when the server expires the session.
            base, subject, why = x.proc.killed, [], "was killed"
        else:
            continue
        for y in incs:
            if y is x or y.end <= base:
                continue
            deadline = quiet_deadline(base, ensemble_faults + on[id(y.proc)] + subject, w_us)
            stats["gone_checks"] += 1
            late = held_after(y, x.key, deadline)
            if why == "was killed":
                stats["kill_gone_checks"] += 1
                drop = max((iv[1] for iv in y.intervals.get(x.key, []) if iv[1] > base),
                           default=base)
                stats["kill_gone_max"] = max(stats["kill_gone_max"], drop - base)
            if late:
                stats["late_gone"] += 1
                if stats["late_gone"] <= 10:
                    problems.append(f"{x!r} {why} at {base}, but {y!r} still held it at "
                                    f"{late[0][1]}, past {deadline} (W after {base} and the "
                                    f"faults in force)")

    # Seen: a joined incarnation is in every other view once both are in.
    for x in incs:
        if x.joined is None or x.joined >= settle_at:
            continue
        for y in incs:
            if y is x or y.open >= x.end or y.end <= x.joined:
                continue
            t0 = max(x.joined, y.open)
            deadline = quiet_deadline(t0, ensemble_faults + on[id(y.proc)] + on[id(x.proc)],
                                      w_us)
            if deadline >= min(x.end, y.end):
                continue
            stats["seen_checks"] += 1
            if not holds_at(y, x.key, deadline):
                stats["unseen"] += 1
                if stats["unseen"] <= 10:
                    problems.append(f"{x!r} joined at {x.joined} and stayed until {x.end}, "
                                    f"but {y!r} (in since {y.open}) did not hold it at "
                                    f"{deadline}")

    # Settled: every last process' view equals the server's, one for all.
    lasts = {}
    for p in procs:
        if p.killed is None and (p.worker not in lasts or p.launch > lasts[p.worker].launch):
            lasts[p.worker] = p
    views, settle_ms = [], []
    for i in range(1, MEMBERS + 1):
        p = lasts.get(i)
        if p is None:
            problems.append(f"member w{i}: no process alive at the end")
            continue
        if p.view is None:
            problems.append(f"member w{i} (pid {p.pid}): {p.verdict or 'no check verdict'}")
            continue
        settle_ms.append((p.checked - settle_at) / 1e3)
        if p.checked > settle_at + w_us:
            problems.append(f"member w{i} (pid {p.pid}) found its view equal to the server's "
                            f"{(p.checked - settle_at) / 1e6:.2f}s after the faults stopped, "
                            f"past W")
        views.append((p, p.view))
        inc = p.incs.get(p.check_inc)
        replayed = finals.get(id(inc)) if inc is not None else None
        if replayed != p.view:
            problems.append(f"member w{i} (pid {p.pid}): its events add up to {replayed}, "
                            f"not to the view it checked {p.view}")
    if views:
        first = views[0][1]
        for p, view in views[1:]:
            if view != first:
                problems.append(f"member w{p.worker}'s settled view {view} differs from "
                                f"w{views[0][0].worker}'s {first}")
        for i, p in lasts.items():
            mine = p.incs[max(p.incs)].payloads[-1] if p.incs else None
            if first.get(f"w{i}") != mine:
                problems.append(f"member w{i}'s payload in the settled views is "
                                f"{first.get(f'w{i}')}, its own last one {mine}")
    stats["settle_max_ms"] = max(settle_ms, default=0)
    return problems, stats


# ---- the mode ---------------------------------------------------------------


def run(args, ensemble, proxies, run_dir, seed, full, nemesis_class, session_timeout_ms, say):
    """Returns (ok, summary line, violations)."""
    fault_s = RUNS["full" if full else "quick"]
    t_us = session_timeout_ms * 1000
    os.makedirs(run_dir, exist_ok=True)
    say(f"group: {MEMBERS} member processes joining and leaving, {fault_s}s of faults "
        f"(member processes killed and restarted among them)")
    violations, faults, procs, codes = [], [], [], []
    launcher = Launcher(args, proxies, run_dir, seed, session_timeout_ms)
    settle_at = stop_at = 0
    try:
        procs = [launcher.start(i) for i in range(1, MEMBERS + 1)]
        nemesis = group_nemesis(nemesis_class, launcher)(
            seed, ensemble, proxies[:MEMBERS], procs, run_dir, args, kinds=GROUP_FAULT_KINDS)
        phase_end = time.monotonic() + fault_s
        nemesis.run(phase_end)
        # The members go on joining and leaving for the whole phase; the
        # nemesis starts no fault in its last 2.5 session timeouts.
        time.sleep(max(0.0, phase_end - time.monotonic()))
        faults = nemesis.log
        # The faults stopped: every member joins for good and checks (a
        # process restarted a moment ago is told once its handler is in).
        settle_at = now_us()
        for i, proc in enumerate(procs, start=1):
            started = os.path.join(run_dir, f"g{i}-{launcher.launches[i]}.log")
            deadline = time.monotonic() + 30
            while not read_lines(started) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGUSR1)
            else:
                violations.append(f"member w{i} (pid {proc.pid}) exited with {proc.returncode} "
                                  f"during the faults")
        wait_for_verdicts(run_dir, launcher,
                          time.monotonic() + (t_us + SLACK_US) / 1e6 + 30)
    finally:
        stop_at = now_us()
        codes = stop_processes(procs)
    with open(os.path.join(run_dir, "nemesis.log"), "w") as f:
        for fault in faults:
            f.write(repr(fault) + "\n")
        f.write(repr({"settle": settle_at, "stop": stop_at, "t_us": t_us}) + "\n")
    for i, code in enumerate(codes, start=1):
        if code != 0:
            violations.append(f"member w{i} (launch {launcher.launches.get(i)}) exited with "
                              f"{code}")
    problems, stats = check(run_dir, faults, {"settle": settle_at, "stop": stop_at, "t_us": t_us})
    violations.extend(problems)
    left = count_left(args, ensemble.hosts, time.monotonic() + t_us / 1e6 + 2)
    if left is not None:
        violations.append(f"nodes left after every member exited: {left}")
    return not violations, summary_line(stats, len(faults), violations), violations
