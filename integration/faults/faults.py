#!/usr/bin/env python3
"""zkr fault suite: 8 client processes contend on one lock on a 3-server
loopback ensemble of its own while a seeded nemesis kills and pauses members,
expires sessions, partitions clients and pauses client processes; then a
checker reads every client's history and fails on any safety or liveness
violation. One run covers the mutex, the rwlock (6 writers, 2 readers), a
3-lease semaphore and a leader latch, one after the other; then the expiry
storm (3 mutex clients whose sessions are expired from outside every 0.3 s,
each looping blocking 1 s acquires); then the cache
mode (cache_mode.py): tree caches mirroring a tree under random writes must
equal the server's once the faults stop; then the barrier mode
(barrier_mode.py): members looping on a double barrier must never pass early
and must get through within a session timeout once the faults stop; then the
counter mode (counter_mode.py): 8 clients incrementing one atomic long, whose
history must explain its final value; then the group mode (group_mode.py):
10 group members joining and leaving, some killed and restarted, whose views
must follow the group and equal the server's once the faults stop.

Usage: faults.py [--full] [--seed N] [--modes mutex,...,storm,cache,barrier,counter,group]
                 [--worker EXE] [--cache-worker EXE] [--barrier-worker EXE]
                 [--counter-worker EXE] [--group-worker EXE] [--proxy EXE]
                 [--ensemble-sh SH] [--out DIR]
       faults.py --check DIR      (check the histories of a kept run again)

Why the checker is right, in short (docs/testing.md, "The fault suite", has it all):
- A hold is the interval [acquire returned, min(release called, LOST heard)]:
  a holder that was told its lock is lost no longer counts. A hold starts
  at the acquire's answer.
- Too many holders at once among those intervals is a violation, except for
  holds whose process the nemesis SIGSTOPped past its session deadline: a
  stopped process cannot hear anything, so it may overlap the next holder in
  wall time. Those overlaps are counted apart, and what makes them safe is
  checked instead: the fenced resource refuses their stale writes. So are
  holds whose session was expired from outside while they were asked for or
  held: the server drops it at once, before the client can know.
- The resource log (written under flock, in the resource's own order) must
  never show a write accepted with a token below the fence, nor a valid one
  refused.
- Every acquire is deadline-bounded (a `call` line): it must answer by
  min(deadline, the moment it was cancelled) + 100 ms, whatever the answer
  and the session state; later is an overrun. Time the nemesis held the
  client SIGSTOPped is not counted; the client's own timer thread says how
  much of an overrun is the process not being scheduled at all.
All times are CLOCK_MONOTONIC microseconds, which every process on the
machine shares (g_get_monotonic_time() in C, time.monotonic() here).
"""

import argparse
import ast
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import barrier_mode
import cache_mode
import counter_mode
import group_mode
from nemesis import (FAULT_KINDS, SESSION_TIMEOUT_MS, Nemesis, StormNemesis, now_us,
                     say)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Proxies, one per client: the most clients of any mode (the group's 10;
# the lock modes use the first 8).
WORKERS = 10

# A lock kind: the worker modes of its 8 clients and how many may hold at
# once (for the leader latch a hold is a leadership term).
MODES = {
    "mutex": {"workers": ["mutex"] * 8, "leases": 1},
    "rwlock": {"workers": ["writer"] * 6 + ["reader"] * 2, "leases": 1},
    "semaphore": {"workers": ["semaphore"] * 8, "leases": 3},
    "latch": {"workers": ["latch"] * 8, "leases": 1},
    # The expiry storm: 3 mutex clients whose sessions StormNemesis expires
    # from outside every 0.3 s, each looping blocking 1 s acquires
    # (--plain-calls): every answer must still come by its deadline.
    "storm": {"workers": ["mutex"] * 3, "leases": 1, "nemesis": StormNemesis,
              "worker_args": ["--plain-calls"], "phases": {"quick": (35, 14), "full": (100, 14)}},
    # Not a lock: cache_mode.py runs it, with a checker of its own.
    "cache": {"workers": [], "leases": 0},
    # Not a lock either: barrier_mode.py runs it and checks its logs.
    "barrier": {"workers": [], "leases": 0},
    # Nor this: counter_mode.py runs it, with faults.py's deadline check.
    "counter": {"workers": [], "leases": 0},
    # Nor this: group_mode.py runs it (its nemesis also kills members).
    "group": {"workers": [], "leases": 0},
}

# The modes with a runner and a checker of their own.
OWN_RUNNERS = {"cache": cache_mode, "barrier": barrier_mode, "counter": counter_mode,
               "group": group_mode}

# Fault phase and quiet tail per mode, in seconds. The tail is longer than
# 3 session timeouts so the stuck check has room.
# The quick run is ./run test's (three builds, under its 45-minute aim);
# the full run is the one for depth.
PHASES = {"quick": (40, 14), "full": (140, 14)}

# A deadline-bounded call must answer within this much of its deadline or
# of its cancel (the margin the deadline suite holds). --deadline-margin-ms changes it for a
# run on a sanitizer build, where the instrumentation's own cost (up to
# 0.7 s on each client's first calls under TSan) is not zkr's lateness.
DEADLINE_MARGIN_US = 100_000



class Failure(Exception):
    pass


# ---- the ensemble, the proxies, the workers --------------------------------


class Ensemble:
    """integration/ensemble.sh on a state dir and port base of its own, so
    the integration suite's ensemble is never touched."""

    def __init__(self, script):
        self.script = script
        base_dir = os.environ.get("ZKR_ENSEMBLE_DIR", os.path.join(REPO, "build", "ensemble"))
        self.env = dict(os.environ)
        self.env["ZKR_ENSEMBLE_DIR"] = os.environ.get(
            "ZKR_FAULTS_ENSEMBLE_DIR", os.path.abspath(base_dir) + "-faults")
        self.env["ZKR_ENSEMBLE_PORT_BASE"] = os.environ.get(
            "ZKR_FAULTS_PORT_BASE", str(int(os.environ.get("ZKR_ENSEMBLE_PORT_BASE", "21810")) + 40))
        self.env.pop("ZKR_ENSEMBLE_SERVERS", None)

    def run(self, *words, check=True, timeout=120):
        result = subprocess.run([self.script, *words], env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise Failure(f"ensemble.sh {' '.join(words)}: {result.stderr.strip()}")
        return result.stdout.strip()

    def start(self):
        self.run("start", "--servers", "3", "--nosync")
        self.hosts = self.run("hosts")

    def stop(self):
        self.run("stop", check=False)

    def leader(self):
        """The leader's index from each member's `srvr` answer."""
        out = self.run("leader", check=False)
        return int(out) if out.isdigit() else None

    def synced(self):
        """TRUE when there is a leader and both followers are synced with it
        (its `mntr` says zk_synced_followers 2)."""
        leader = self.leader()
        if leader is None:
            return False
        out = self.run("fourlw", str(leader), "mntr", check=False, timeout=10)
        for line in out.splitlines():
            words = line.split()
            if len(words) == 2 and words[0] == "zk_synced_followers":
                return words[1] == "2"
        return False


class Proxy:
    """One zkr-test-proxy per client: a black-hole cuts just that client."""

    def __init__(self, exe, upstreams):
        self.proc = subprocess.Popen([exe, "--upstreams", upstreams], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "listening":
            raise Failure("proxy did not start")
        self.address = line[1]

    def command(self, word):
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if answer != "ok":
            raise Failure(f"proxy {word}: {answer!r}")

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def start_workers(args, mode_name, run_dir, proxies, seed):
    spec = MODES[mode_name]
    workers = []
    for i, worker_mode in enumerate(spec["workers"], start=1):
        log = open(os.path.join(run_dir, f"w{i}.log"), "w")
        proc = subprocess.Popen(
            [args.worker, "--mode", worker_mode, "--hosts", proxies[i - 1].address,
             "--path", f"/zkr-faults/{mode_name}", "--dir", run_dir, "--id", str(i),
             "--session-timeout", str(SESSION_TIMEOUT_MS), "--leases", str(spec["leases"]),
             "--hold-max-us", "3000", "--seed", str(seed), *spec.get("worker_args", [])],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        workers.append(proc)
    return workers


def dump_stuck(workers, run_dir):
    """Before stopping them: the stacks of clients that made no progress for
    3 session timeouts (gdb, when installed), for the report."""
    limit = now_us() - 3 * SESSION_TIMEOUT_MS * 1000
    for i, proc in enumerate(workers, start=1):
        last = 0
        with open(os.path.join(run_dir, f"w{i}.history")) as f:
            for line in f:
                if line.startswith("acq "):
                    last = int(line.split()[4])
        if last < limit and proc.poll() is None and shutil.which("gdb"):
            with open(os.path.join(run_dir, f"w{i}.stuck"), "w") as out:
                subprocess.run(["gdb", "-q", "-batch", "-p", str(proc.pid),
                                "-ex", "thread apply all bt 25"],
                               stdout=out, stderr=subprocess.STDOUT, timeout=120)
            say(f"client {i} made no progress since {last}: stacks in w{i}.stuck")


def stop_workers(workers):
    for proc in workers:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            os.kill(proc.pid, signal.SIGTERM)
    codes = []
    deadline = time.monotonic() + 60
    for proc in workers:
        try:
            codes.append(proc.wait(timeout=max(1, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            codes.append("killed")
    return codes


# ---- the checker ------------------------------------------------------------


class Hold:
    __slots__ = ("worker", "role", "seq", "token", "req", "got", "rel", "lost", "end",
                 "writes", "excluded")

    def __init__(self, worker, role, fields):
        self.worker = worker
        self.role = role
        self.seq, self.token, self.req, self.got = (int(fields[1]), int(fields[2]),
                                                    int(fields[3]), int(fields[4]))
        self.rel = None
        self.lost = None
        self.end = None
        self.writes = []
        self.excluded = False

    def __repr__(self):
        return (f"client {self.worker} hold {self.seq} token {self.token} "
                f"[{self.got}, {self.end}] lost {self.lost}")


class Call:
    """One deadline-bounded acquire, from a `call` line: its bound is the
    earlier of its deadline and the moment its cancellable was cancelled
    (if that came before the answer)."""
    __slots__ = ("worker", "seq", "api", "timeout_ms", "start", "deadline", "cancel_at", "cancel",
                 "answer", "outcome", "timer_max", "timer_sum", "bound", "stopped", "lateness")

    def __init__(self, worker, fields):
        self.worker = worker
        self.seq, self.api, self.timeout_ms = int(fields[1]), fields[2], int(fields[3])
        (self.start, self.deadline, self.cancel_at, self.cancel,
         self.answer) = (int(x) for x in fields[4:9])
        self.outcome = fields[9]
        self.timer_max, self.timer_sum = int(fields[10]), int(fields[11])
        cancelled_first = 0 < self.cancel <= self.answer
        self.bound = min(self.deadline, self.cancel) if cancelled_first else self.deadline
        self.stopped = 0
        self.lateness = self.answer - self.bound

    def describe(self):
        cancel = (f", cancel at +{(self.cancel_at - self.start) / 1e3:.0f} ms"
                  if self.cancel_at else "")
        what = "cancel" if self.bound < self.deadline else "deadline"
        return (f"client {self.worker} acquire {self.seq} ({self.api}, timeout {self.timeout_ms} ms"
                f"{cancel}) answered {self.outcome} {self.lateness / 1e3:.0f} ms after its {what}")


def read_history(path, worker, role, problems):
    holds, losses, info = [], [], {"exit": None, "leftover": None, "calls": [], "sessions": []}
    current = None
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            tag = fields[0]
            if tag == "acq":
                current = Hold(worker, role, fields)
                holds.append(current)
            elif tag == "write" and current is not None:
                current.writes.append((int(fields[2]), fields[3] == "accepted"))
            elif tag == "rel" and current is not None:
                current.rel = int(fields[2])
                current = None
            elif tag == "loss" and fields[1] == "LOST":
                losses.append(int(fields[2]))
            elif tag == "call":
                info["calls"].append(Call(worker, fields))
            elif tag == "session":
                info["sessions"].append((int(fields[2]), fields[1]))
            elif tag == "exit":
                info["exit"] = int(fields[1])
            elif tag == "leftover":
                info["leftover"] = line.strip()
                if fields[1] != "0":
                    problems.append(f"client {worker} left {fields[1]} node(s) of its own session")
            elif tag == "leftover-node":
                problems.append(f"client {worker} left {fields[1]}")
    if info["exit"] is None:
        problems.append(f"client {worker} did not exit cleanly")
    losses.sort()
    for hold in holds:
        stop = hold.rel if hold.rel is not None else (info["exit"] or float("inf"))
        hold.lost = next((t for t in losses if hold.got <= t <= stop), None)
        hold.end = min(stop, hold.lost) if hold.lost is not None else stop
    return holds, info


def too_many(active, capacity):
    """Holders that may not hold together: more than `capacity` of them, or
    a writer with anyone (rwlock)."""
    writers = [h for h in active if h.role == "writer"]
    if writers:
        return len(active) > 1
    if all(h.role == "reader" for h in active):
        return False
    return len(active) > capacity


def overlaps(holds, capacity):
    """Sweep over hold boundaries; returns the sets of holders found
    together in breach of the rule (one per breach start)."""
    points = []
    for h in holds:
        if h.got < h.end:
            points.append((h.end, 0, h))
            points.append((h.got, 1, h))
    points.sort(key=lambda p: (p[0], p[1]))
    active, breaches, in_breach = set(), [], False
    for _, kind, h in points:
        if kind == 0:
            active.discard(h)
        else:
            active.add(h)
        bad = too_many(active, capacity)
        if bad and not in_breach:
            breaches.append(sorted(active, key=lambda x: x.got))
        in_breach = bad
    return breaches


def check_resource(run_dir, leases, holds, problems):
    """Replays the resource log in its own order with an independent fence:
    the `leases` highest accepted tokens; below the lowest of them is stale.
    A refusal is of a stale write when its holder was paused past its
    deadline or already told LOST; any other refusal (only possible with
    several leases: a slow holder overtaken by `leases` newer ones) is
    counted apart, and is a violation for a lock with one holder."""
    top, accepted, refused, conservative = [], 0, 0, 0
    by_token = {(h.worker, h.token): h for h in holds}
    path = os.path.join(run_dir, "resource.log")
    if not os.path.exists(path):
        return 0, 0, 0
    with open(path) as f:
        for line in f:
            t, worker, token, verdict = line.split()
            token = int(token)
            if verdict == "R":
                hold = by_token.get((int(worker), token))
                if hold is not None and not hold.excluded and (
                        hold.lost is None or int(t) < hold.lost):
                    conservative += 1
                    refused -= 1
                    if leases == 1:
                        problems.append(f"refused the write of a holder not told of a loss: {hold}")
            stale = len(top) >= leases and token < top[-1]
            if verdict == "A":
                accepted += 1
                if stale:
                    problems.append(f"stale write accepted: client {worker} token {token} "
                                    f"at {t} below the fence {top[-1]}")
                if token not in top:
                    top = sorted(top + [token], reverse=True)[:leases]
            else:
                refused += 1
                if not stale:
                    problems.append(f"valid write refused: client {worker} token {token} at {t}")
    return accepted, refused, conservative


def check_tokens(holds, ordered, problems):
    # A hold lost between the acquire's answer and the reading of its token
    # has none (a mutex answers 0 once not held): nothing to order.
    holds = [h for h in holds if h.token != 0]
    ordered = [h for h in ordered if h.token != 0]
    tokens = [h.token for h in holds]
    if len(set(tokens)) != len(tokens):
        problems.append("a fencing token was handed out twice")
    # Causality: a hold that began after another had returned carries a
    # larger token (its node was created later).
    by_got = sorted(holds, key=lambda h: h.got)
    by_req = sorted(holds, key=lambda h: h.req)
    best, i = None, 0
    for h in by_req:
        while i < len(by_got) and by_got[i].got < h.req:
            if best is None or by_got[i].token > best.token:
                best = by_got[i]
            i += 1
        if best is not None and best.token >= h.token:
            problems.append(f"token not increasing: {best} returned before {h} asked")
    # Exclusive holds (mutex, writers) follow one another: their tokens
    # increase in the order they were held.
    last = None
    for h in sorted((h for h in ordered if h.got < h.end), key=lambda h: h.got):
        if last is not None and h.token <= last.token:
            problems.append(f"token not increasing: {last} then {h}")
        last = h


def check_progress(holds, faults, stop_at, workers, t_us, problems):
    """No client may go 3 session timeouts without an acquisition once the
    faults stopped: checked in every quiet window, and the tail."""
    windows = []
    for i, fault in enumerate(faults):
        nxt = faults[i + 1]["start"] if i + 1 < len(faults) else stop_at
        windows.append((fault["end"], nxt))
    if not faults:
        windows.append((stop_at - 10 * t_us, stop_at))
    gots = {w: sorted(h.got for h in holds if h.worker == w) for w in range(1, workers + 1)}
    for a, b in windows:
        if b - a <= 3 * t_us:
            continue
        for w, times in gots.items():
            prev = a
            for g in (x for x in times if a < x < b):
                if g - prev > 3 * t_us:
                    problems.append(f"client {w} stuck {(g - prev) / 1e6:.1f}s from {prev}")
                prev = g
            if b - prev > 3 * t_us:
                problems.append(f"client {w} stuck {(b - prev) / 1e6:.1f}s from {prev} to {b}")


def recovery_times(holds, faults, workers):
    """Per fault: from the moment it was undone (for a leader kill: the
    kill) until every client it hit acquired again with an acquire it
    started after that moment (all clients for a member fault)."""
    result = []
    for fault in faults:
        ref = fault["start"] if fault["kind"] == "kill-leader" else fault["end"]
        hit = range(1, workers + 1) if fault["scope"] == "all" else [fault["worker"]]
        worst = 0
        for w in hit:
            later = [h.got for h in holds if h.worker == w and h.req >= ref]
            if not later:
                worst = None
                break
            worst = max(worst, min(later) - ref)
        result.append(worst)
    return result


def fault_at(t, worker, faults, t_us):
    """The fault on this client (its own, or one on the ensemble) in force
    at t, or the last one undone less than 3 session timeouts before: a
    short name to count by, and a phrase for the report."""
    mine = [f for f in faults if f["scope"] == "all" or f["worker"] == worker]
    for f in mine:
        if f["start"] <= t <= f["end"]:
            return f"during {f['kind']}", f"during {f['kind']} {f['target']}"
    before = [f for f in mine if f["end"] < t <= f["end"] + 3 * t_us]
    if before:
        f = max(before, key=lambda f: f["end"])
        return (f"after {f['kind']}",
                f"{(t - f['end']) / 1e6:.1f}s after {f['kind']} {f['target']} was undone")
    return "no fault", "no fault on it"


def session_at(t, sessions):
    state = "?"
    for when, name in sessions:
        if when > t:
            break
        state = name
    return state


def check_deadlines(calls, sessions, faults, t_us):
    """The deadline invariant: every bounded call answers by its bound +
    DEADLINE_MARGIN_US, whatever it answers. Time the nemesis held the
    client SIGSTOPped after the bound is not counted (a stopped process
    answers nothing; like an expected overlap, that is the nemesis' doing);
    everything else is. An overrun is then split by the client's own timer
    thread, which ran every 10 ms after the bound: if the timer's total
    lateness explains all but the margin, the process was not scheduled
    (violation all the same, reported apart); else the library was late."""
    stops = [f for f in faults if f.get("stopped")]
    overruns, stats = [], {
        "calls": len(calls), "async": 0, "cancel_planned": 0, "timeouts": 0, "cancels": 0,
        "cancelled": 0, "granted_after_cancel": 0, "overruns": 0, "library": 0, "unscheduled": 0,
        "stopped_only": 0, "worst": 0, "worst_library": 0, "worst_unscheduled": 0,
        "worst_timer": 0, "by_fault": {}}
    for c in calls:
        c.stopped = sum(max(0, min(c.answer, f["end"]) - max(c.bound, f["start"]))
                        for f in stops if f["worker"] == c.worker)
        raw = c.answer - c.bound
        c.lateness = raw - c.stopped
        stats["async"] += c.api == "async"
        stats["cancel_planned"] += c.cancel_at != 0
        stats["timeouts"] += c.outcome == "timeout"
        stats["cancelled"] += c.outcome == "cancelled"
        if 0 < c.cancel <= c.answer:
            stats["cancels"] += 1
            stats["granted_after_cancel"] += c.outcome == "granted"
        if not c.stopped:
            stats["worst_timer"] = max(stats["worst_timer"], c.timer_max)
        stats["worst"] = max(stats["worst"], c.lateness)
        if raw > DEADLINE_MARGIN_US and c.lateness <= DEADLINE_MARGIN_US:
            stats["stopped_only"] += 1
        if c.lateness <= DEADLINE_MARGIN_US:
            continue
        library = raw - c.timer_sum > DEADLINE_MARGIN_US
        kind = "library" if library else "unscheduled"
        stats["overruns"] += 1
        stats[kind] += 1
        stats["worst_" + kind] = max(stats["worst_" + kind], c.lateness)
        key, where = fault_at(c.bound, c.worker, faults, t_us)
        count, worst = stats["by_fault"].get(key, (0, 0))
        stats["by_fault"][key] = (count + 1, max(worst, c.lateness))
        overruns.append(
            f"deadline overrun ({'library late' if library else 'client not scheduled'}): "
            f"{c.describe()}; the client's timer thread was late {c.timer_sum / 1e3:.0f} ms "
            f"in all (worst {c.timer_max / 1e3:.0f} ms)"
            + (f", SIGSTOPped {c.stopped / 1e3:.0f} ms" if c.stopped else "")
            + f"; {where}; session as the client saw it: "
            f"{session_at(c.bound, sessions.get(c.worker, []))}")
    return stats, overruns


def check_mode(run_dir, mode_name, faults, stop_at):
    spec = MODES[mode_name]
    capacity = spec["leases"]
    t_us = SESSION_TIMEOUT_MS * 1000
    problems = []
    holds, calls, sessions = [], [], {}
    for i, role in enumerate(spec["workers"], start=1):
        path = os.path.join(run_dir, f"w{i}.history")
        if not os.path.exists(path):
            problems.append(f"client {i} wrote no history")
            continue
        got, info = read_history(path, i, role, problems)
        holds.extend(got)
        calls.extend(info["calls"])
        sessions[i] = info["sessions"]

    # A hold whose process was SIGSTOPped past its session deadline (half a
    # session timeout is the least that can carry it past: the deadline is
    # last_ok_send + 0.98 T - margin and last_ok_send is at most T/3 old)
    # cannot hear its loss: its overlaps are expected and fencing's job.
    stops = [f for f in faults if f.get("stopped") and f["end"] - f["start"] >= t_us // 2]
    # Likewise a hold whose session was expired from outside while it was
    # asked for or held: the server drops the session (and the node) at
    # once, not T after it last heard from the client, and the client
    # hears of it only when its connection goes; until then it believes it
    # holds, which no lock can prevent. An expiry that found the session
    # gone already expired nothing.
    cuts = stops + [f for f in faults if f["kind"] in ("expire-session", "expire-storm")
                    and f.get("outcome") not in ("gone", "no-sid")]
    for h in holds:
        h.excluded = any(f["worker"] == h.worker and f["start"] < h.end and f["end"] > h.req
                         for f in cuts)
    counted = [h for h in holds if not h.excluded]
    for breach in overlaps(counted, capacity):
        problems.append("holders overlap: " + "; ".join(map(repr, breach)))
    # Expected overlaps: a paused hold together with any other hold.
    expected, caught = 0, 0
    for h in (h for h in holds if h.excluded and h.got < h.end):
        others = [o for o in holds if o is not h and o.got < h.end and h.got < o.end]
        if too_many(set(others + [h]), capacity) or (capacity > 1 and len(others) >= capacity):
            expected += 1
            resumed = max(f["end"] for f in cuts if f["worker"] == h.worker
                          and f["start"] < h.end and f["end"] > h.req)
            late = [ok for t, ok in h.writes if t >= resumed]
            if late and not any(late):
                caught += 1

    accepted, refused, conservative = check_resource(run_dir, capacity, holds, problems)
    exclusive = [h for h in counted if h.role in ("mutex", "writer")]
    check_tokens(holds, exclusive, problems)
    check_progress(holds, faults, stop_at, len(spec["workers"]), t_us, problems)
    recoveries = recovery_times(holds, faults, len(spec["workers"]))
    for fault, r in zip(faults, recoveries):
        fault["recovery_us"] = r
    deadlines, overruns = check_deadlines(calls, sessions, faults, t_us)
    return {"mode": mode_name, "acquisitions": len(holds), "faults": len(faults),
            "violations": problems, "accepted": accepted, "refused": refused, "conservative": conservative,
            "expected_overlaps": expected, "caught_by_fencing": caught,
            "recoveries": recoveries, "deadlines": deadlines, "overruns": overruns}


# ---- one run ----------------------------------------------------------------


def count_left(args, hosts, mode_name):
    result = subprocess.run([args.worker, "--hosts", hosts, "--count", f"/zkr-faults/{mode_name}"],
                            capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout.strip()


def run_mode(args, ensemble, proxies, mode_name, run_dir, seed, phases):
    os.makedirs(run_dir, exist_ok=True)
    say(f"{mode_name}: {len(MODES[mode_name]['workers'])} clients, "
        f"{phases[0]}s of faults, {phases[1]}s quiet")
    workers = start_workers(args, mode_name, run_dir, proxies, seed)
    nemesis = MODES[mode_name].get("nemesis", Nemesis)(seed, ensemble, proxies, workers, run_dir,
                                                       args)
    try:
        nemesis.run(time.monotonic() + phases[0])
        time.sleep(phases[1])
        dump_stuck(workers, run_dir)
    finally:
        stop_at = now_us()
        codes = stop_workers(workers)
    with open(os.path.join(run_dir, "nemesis.log"), "w") as f:
        for fault in nemesis.log:
            f.write(repr(fault) + "\n")
        f.write(repr({"stop": stop_at}) + "\n")
    result = check_mode(run_dir, mode_name, nemesis.log, stop_at)
    for i, code in enumerate(codes, start=1):
        if code != 0:
            result["violations"].append(f"client {i} exited with {code}")
    rc, out = count_left(args, ensemble.hosts, mode_name)
    if rc != 0 or not out.endswith("count 0 rc ok"):
        result["violations"].append(f"nodes left after all clients exited: {out}")
    return result


def percentile50(values):
    return statistics.median(values) if values else 0


def merge_deadlines(stats):
    total = {}
    for d in stats:
        for key, value in d.items():
            if key == "by_fault":
                merged = total.setdefault(key, {})
                for k, (count, worst) in value.items():
                    c0, w0 = merged.get(k, (0, 0))
                    merged[k] = (c0 + count, max(w0, worst))
            elif key.startswith("worst"):
                total[key] = max(total.get(key, 0), value)
            else:
                total[key] = total.get(key, 0) + value
    return total


def deadline_line(d):
    """Lateness is answer - bound - SIGSTOPped time (ms); the client timer's
    lateness leaves out calls the nemesis stopped."""
    text = (f"deadline-bounded calls {d.get('calls', 0)} (async {d.get('async', 0)}, "
            f"cancel planned {d.get('cancel_planned', 0)}), timeouts {d.get('timeouts', 0)}, "
            f"cancels {d.get('cancels', 0)} (answered cancelled {d.get('cancelled', 0)}, "
            f"granted first {d.get('granted_after_cancel', 0)}), "
            f"overruns {d.get('overruns', 0)} (library late {d.get('library', 0)}, worst "
            f"{d.get('worst_library', 0) / 1e3:.0f} ms; client not scheduled "
            f"{d.get('unscheduled', 0)}, worst {d.get('worst_unscheduled', 0) / 1e3:.0f} ms), "
            f"worst lateness {d.get('worst', 0) / 1e3:.0f} ms, "
            f"worst client timer lateness {d.get('worst_timer', 0) / 1e3:.0f} ms")
    if d.get("stopped_only"):
        text += f"; {d['stopped_only']} late only by the nemesis' SIGSTOP (not counted)"
    if d.get("by_fault"):
        text += "; overruns by fault: " + ", ".join(
            f"{k} {n} (worst {w / 1e6:.2f}s)"
            for k, (n, w) in sorted(d["by_fault"].items(), key=lambda kv: -kv[1][0]))
    return text


def summarize(seed, results):
    total = sum(r["acquisitions"] for r in results)
    faults = sum(r["faults"] for r in results)
    violations = sum(len(r["violations"]) + len(r["overruns"]) for r in results)
    refused = sum(r["refused"] for r in results)
    conservative = sum(r["conservative"] for r in results)
    recoveries = [x for r in results for x in r["recoveries"] if x is not None]
    unrecovered = sum(1 for r in results for x in r["recoveries"] if x is None)
    for r in results:
        rec = [x for x in r["recoveries"] if x is not None]
        say(f"{r['mode']}: acquisitions {r['acquisitions']}, faults {r['faults']}, "
            f"violations {len(r['violations']) + len(r['overruns'])}, "
            f"writes accepted {r['accepted']}, stale refused {r['refused']}"
            + (f", valid refused by the {MODES[r['mode']]['leases']}-lease fence {r['conservative']}"
               if r['conservative'] else "") + ", "
            f"expected overlaps {r['expected_overlaps']} (caught by fencing {r['caught_by_fencing']}), "
            f"recovery max {max(rec, default=0) / 1e6:.2f}s p50 {percentile50(rec) / 1e6:.2f}s")
        for problem in r["violations"][:20]:
            say("  VIOLATION", problem)
        say(f"{r['mode']}: {deadline_line(r['deadlines'])}")
        for problem in r["overruns"][:10]:
            say("  VIOLATION", problem)
        if len(r["overruns"]) > 10:
            say(f"  ... and {len(r['overruns']) - 10} more overruns")
    say(f"summary: seed {seed}, acquisitions {total}, faults injected {faults}, "
        f"violations {violations}, stale writes refused {refused}"
        + (f" (and {conservative} valid ones by the semaphore's fence)" if conservative else "") + ", "
        f"recovery after fault max {max(recoveries, default=0) / 1e6:.2f}s "
        f"p50 {percentile50(recoveries) / 1e6:.2f}s"
        + (f", {unrecovered} not recovered before the next fault" if unrecovered else ""))
    say(f"summary: {deadline_line(merge_deadlines(r['deadlines'] for r in results))}")
    return violations == 0


def check_again(out, modes):
    results = []
    own_failed = False
    for mode_name in modes:
        run_dir = os.path.join(out, mode_name)
        if mode_name == "counter" and os.path.isdir(run_dir):
            own_failed |= not counter_mode.check_dir(run_dir, sys.modules[__name__])
            continue
        if mode_name == "group" and os.path.isdir(run_dir):
            own_failed |= not group_mode.check_dir(run_dir, say)
            continue
        if mode_name in OWN_RUNNERS or not os.path.isdir(run_dir):
            continue
        with open(os.path.join(run_dir, "nemesis.log")) as f:
            records = [ast.literal_eval(line) for line in f if line.strip()]
        stop_at = records.pop()["stop"]
        results.append(check_mode(run_dir, mode_name, records, stop_at))
    ok = summarize("(from the kept run)", results) if results else True
    return 0 if ok and not own_failed else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="the full run (default: quick)")
    parser.add_argument("--quick", action="store_true", help="the quick run (the default)")
    parser.add_argument("--seed", type=int, help="replay the schedule of this seed")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--deadline-margin-ms", type=int,
                        help="how late after its deadline or cancel a call may answer (default 100)")
    parser.add_argument("--worker", default=os.path.join(REPO, "build/integration/faults/zkr-fault-worker"))
    parser.add_argument("--cache-worker",
                        default=os.path.join(REPO, "build/integration/faults/zkr-cache-worker"))
    parser.add_argument("--barrier-worker",
                        default=os.path.join(REPO, "build/integration/faults/zkr-barrier-worker"))
    parser.add_argument("--counter-worker",
                        default=os.path.join(REPO, "build/integration/faults/zkr-counter-worker"))
    parser.add_argument("--group-worker",
                        default=os.path.join(REPO, "build/integration/faults/zkr-group-worker"))
    parser.add_argument("--proxy", default=os.path.join(REPO, "build/integration/proxy/zkr-test-proxy"))
    parser.add_argument("--ensemble-sh", default=os.path.join(REPO, "integration/ensemble.sh"))
    parser.add_argument("--check", metavar="DIR", help="only check the histories kept in DIR")
    parser.add_argument("--out", help="keep the run's histories here (default: a temp dir, "
                                      "removed on success)")
    args = parser.parse_args()
    global DEADLINE_MARGIN_US
    if args.deadline_margin_ms is not None:
        if args.deadline_margin_ms <= 0:
            parser.error(f"--deadline-margin-ms must be positive, not {args.deadline_margin_ms}")
        DEADLINE_MARGIN_US = args.deadline_margin_ms * 1000
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            parser.error(f"unknown mode {m!r} (known: {', '.join(MODES)})")
    if args.check:
        return check_again(args.check, modes)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    phases = PHASES["full" if args.full else "quick"]
    out = args.out or tempfile.mkdtemp(prefix="zkr-faults-")
    os.makedirs(out, exist_ok=True)
    say(f"seed {seed} (replay: --seed {seed}), {'full' if args.full else 'quick'} run, "
        f"session timeout {SESSION_TIMEOUT_MS} ms, histories in {out}")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ensemble = Ensemble(args.ensemble_sh)
    proxies, results, ok = [], [], False
    started = time.monotonic()
    try:
        ensemble.start()
        say(f"ensemble {ensemble.hosts} ({ensemble.env['ZKR_ENSEMBLE_DIR']})")
        proxies = [Proxy(args.proxy, ensemble.hosts) for _ in range(WORKERS)]
        cache_lines, caches_ok = [], True
        for i, mode_name in enumerate(modes):
            if mode_name in OWN_RUNNERS:
                # The counter mode reuses this module's deadline check.
                extra = {"suite": sys.modules[__name__]} if mode_name == "counter" else {}
                mode_ok, line, problems = OWN_RUNNERS[mode_name].run(
                    args, ensemble, proxies, os.path.join(out, mode_name), seed + 1000 * i,
                    args.full, Nemesis, SESSION_TIMEOUT_MS, say, **extra)
                caches_ok = caches_ok and mode_ok
                cache_lines.append((line, problems))
                continue
            mode_phases = MODES[mode_name].get("phases", PHASES)["full" if args.full else "quick"]
            results.append(run_mode(args, ensemble, proxies, mode_name,
                                    os.path.join(out, mode_name), seed + 1000 * i, mode_phases))
        ok = summarize(seed, results) if results else True
        for line, problems in cache_lines:
            say(line)
            for problem in problems[:20]:
                say("  VIOLATION", problem)
        ok = ok and caches_ok
    except Failure as e:
        say("setup failed:", e)
    finally:
        for proxy in proxies:
            proxy.close()
        ensemble.stop()
    say(f"took {time.monotonic() - started:.0f}s")
    if ok and not args.out:
        subprocess.run(["rm", "-rf", out])
    elif not ok:
        say(f"histories kept in {out}; replay with --seed {seed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
