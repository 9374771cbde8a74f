"""The fault suite's counter mode (faults.py --modes counter): 8 clients, each
behind its own proxy, loop deadline-bounded increments of one ZkrAtomicLong
(clients 1-5 optimistic, 6-8 promoted to a lock after 2 quick retries) while
the nemesis kills and pauses servers, expires clients' sessions, black-holes
their proxies and SIGSTOPs them. integration/faults/counter-worker.c logs
every increment; the checker here replays the logs against the final value.

What the checker holds the counter to. An increment ends one of three ways:
succeeded (the library says it landed once, with its pre and post value),
gave up (the policies ran out: it says nothing changed) or failed (an
error: it may have landed, "whether it landed is unknown" for a lost reply,
and a TIMEOUT, CANCELLED or SESSION_EXPIRED after the write may be applied
too). Let S be the successes, U the failures, F the final value.
- Each success's post is its pre + 1.
- No value is returned twice as new: the posts of S are distinct.
- Every post lies in 1..F (the counter starts missing, i.e. 0, and only
  grows), so F = |S| + k with 0 <= k <= |U|: k, the failures that landed,
  is reported. With no failure the posts are exactly 1..F.
- Real-time order: a success that answered before another started has the
  smaller post (the counter is linearizable as seen by its successes).
- Holes: each value in 1..F no success returned was written by a failed
  increment, which must have started before every success with a larger
  post answered; distinct holes need distinct failures (Hall's condition,
  which for these nested sets is a count per hole).
- Deadlines: every increment answers by min(deadline, cancel) + the suite's
  margin (faults.py's check, on the same `call` lines).
- Liveness: once the faults stopped, every client has a success within one
  session timeout (+ 1 s for a loaded 2-core machine).
- Nodes: after every client exited, only the counter, its parent and the
  promoted clients' (empty) lock parent are left under ROOT; the mode then
  removes ROOT.

A node's life. The nemesis also re-creates the counter's node (fault
recreate-counter): counter-worker --recreate deletes it, at the version it
read, and creates it again holding base n * LIFE_BASE at version 0, in one
transaction (no client ever finds it missing), and logs the old node's last
value. The counter then has lives: life 0 from 0 to the first re-create's
old value, life n from its base to the next one's (the last to the final
value). A version no longer names a node: a write computed from one life's
value and taken by the next (the stale-version lost update) lands a value
of the old life's range in the new node. So the rules above hold with the
lives' ranges in place of 1..F: every post lies in its own life's range
(base, last], the posts are distinct, the sum of the lives' increments is
|S| + k with 0 <= k <= |U|, every value in a range no success returned is a
hole owed to a failure, real-time order holds across lives (a re-create
comes between them), and a life that ends below its base is a violation.
So every increment acknowledged after a re-create is reflected in its life.
"""

import ast
import bisect
import os
import subprocess
import time

from nemesis import now_us, stop_processes

CLIENTS = 8
PROMOTED = 3  # the last 3 clients
ROOT = "/zkr-faults/counter"
PATH = ROOT + "/value"
LOCK_PATH = ROOT + "/lock"
# fault-phase and quiet seconds per run (the nemesis stops starting faults
# 2.5 T before the phase ends; the quiet part follows one T after the last)
RUNS = {"quick": (34, 4), "full": (140, 8)}
COUNTER_FAULT_KINDS = [
    ("kill-leader", 1.5),
    ("pause-member", 1.0),
    ("expire-session", 1.0),
    ("partition-client", 1.5),
    ("pause-client", 1.0),
    ("recreate-counter", 1.5),
]
# Life n of the counter's node starts at n * LIFE_BASE: far above what a
# run's increments reach, so a post tells its life.
LIFE_BASE = 1_000_000_000
LIVENESS_SLACK_US = 1_000_000


class Inc:
    __slots__ = ("client", "seq", "start", "answer", "outcome", "pre", "post", "code",
                 "promoted_tries")

    def __init__(self, client, words):
        # inc SEQ START ANSWER ok PRE POST OPT PROM | gaveup PRE OPT PROM
        #   | error CODE unknown|maybe
        self.client = client
        self.seq, self.start, self.answer = int(words[1]), int(words[2]), int(words[3])
        self.outcome = words[4]
        self.pre = self.post = self.code = None
        self.promoted_tries = 0
        if self.outcome == "ok":
            self.pre, self.post = int(words[5]), int(words[6])
            self.promoted_tries = int(words[8])
        elif self.outcome == "gaveup":
            self.pre = int(words[5])
        else:
            self.code = f"{words[5]} {words[6]}"

    def __repr__(self):
        what = (f"{self.pre} -> {self.post}" if self.outcome == "ok" else self.code or "gave up")
        return f"client {self.client} increment {self.seq} [{self.start}, {self.answer}] {what}"


def make_call_class(suite):
    class IncrementCall(suite.Call):
        __slots__ = ()

        def describe(self):
            return super().describe().replace(" acquire ", " increment ", 1)
    return IncrementCall


def read_history(path, client, call_class, problems):
    incs, calls, sessions, exited = [], [], [], False
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if not words:
                    continue
                if words[0] == "inc":
                    incs.append(Inc(client, words))
                elif words[0] == "call":
                    calls.append(call_class(client, words))
                elif words[0] == "session":
                    sessions.append((int(words[2]), words[1]))
                elif words[0] == "exit":
                    exited = True
    except (OSError, ValueError, IndexError) as e:
        problems.append(f"client {client}: unreadable history: {e}")
    if not exited:
        problems.append(f"client {client} did not exit cleanly")
    return incs, calls, sessions


def lives_of(faults, final):
    """The counter node's lives, [(base, last value)], from the nemesis'
    re-creates (in order) and the final value; None when a re-create's
    outcome is unknown (it is then a problem of its own)."""
    lives, base = [], 0
    for f in faults:
        if f.get("kind") != "recreate-counter":
            continue
        if f.get("error"):
            return None
        if f.get("base") is not None:
            lives.append((base, f["old"]))
            base = f["base"]
    lives.append((base, final))
    return lives


def life_values(lives):
    """Every value some life's increments made: (base, last] per life."""
    values = []
    for base, last in lives:
        values.extend(range(base + 1, last + 1))
    return values


def check_values(incs, lives, problems):
    """The value rules over the node's lives; returns k (the failures that
    landed)."""
    ok = [i for i in incs if i.outcome == "ok"]
    failed = [i for i in incs if i.outcome == "error"]
    for i in ok:
        if i.post != i.pre + 1:
            problems.append(f"post is not pre + 1: {i!r}")
    by_post = {}
    for i in ok:
        by_post.setdefault(i.post, []).append(i)
    for post, same in sorted(by_post.items()):
        if len(same) > 1:
            problems.append(f"value {post} returned as new {len(same)} times: "
                            + "; ".join(map(repr, same)))
    for n, (base, last) in enumerate(lives):
        if last < base:
            problems.append(f"life {n} of the counter's node (base {base}) ended at {last}, "
                            f"below its base: a value of an older life written into it")
    ranges = {n: (base, last) for n, (base, last) in enumerate(lives)}
    for i in ok:
        n = i.post // LIFE_BASE
        base, last = ranges.get(n, (None, None))
        if base is None or not base < i.post <= last:
            problems.append(f"post outside its life's range" +
                            (f" ({base}, {last}]" if base is not None else "") + f": {i!r}")
    made = sum(max(0, last - base) for base, last in lives)
    final = lives[-1][1]
    k = made - len(ok)
    if k < 0:
        problems.append(f"the lives made {made} increments (final value {final}), below the "
                        f"{len(ok)} reported succeeded: a success that did not land")
    elif k > len(failed):
        problems.append(f"the lives made {made} increments (final value {final}) = "
                        f"{len(ok)} succeeded + {k}, but only "
                        f"{len(failed)} increments failed: {k - len(failed)} landed that "
                        f"the library said did not (gave up) or never made")
    values = life_values(lives)
    if not failed and sorted(by_post) != values:
        missing = sorted(set(values) - set(by_post))[:10]
        problems.append(f"no increment failed, yet the posts are not exactly the lives' "
                        f"values: missing {missing}")

    # Real-time order among successes: sweep by start, keeping the largest
    # post among those that answered earlier.
    by_answer = sorted(ok, key=lambda i: i.answer)
    answers = [i.answer for i in by_answer]
    best, j, reported = None, 0, 0
    for b in sorted(ok, key=lambda i: i.start):
        while j < len(by_answer) and answers[j] < b.start:
            if best is None or by_answer[j].post > best.post:
                best = by_answer[j]
            j += 1
        if best is not None and best.post >= b.post:
            reported += 1
            if reported <= 10:
                problems.append(f"out of real-time order: {best!r} answered before "
                                f"{b!r} started")

    # Holes, each written by a distinct failure that started before every
    # success with a larger post answered.
    holes = sorted(set(values) - set(by_post))
    if holes and 0 <= k <= len(failed):
        posts = sorted(by_post)
        suffix = [float("inf")] * (len(posts) + 1)  # earliest answer of a post >= posts[n]
        for n in range(len(posts) - 1, -1, -1):
            suffix[n] = min(suffix[n + 1], min(i.answer for i in by_post[posts[n]]))
        starts = sorted(i.start for i in failed)
        for n, v in enumerate(holes, start=1):
            able = bisect.bisect_left(starts, suffix[bisect.bisect_right(posts, v)])
            if able < n:
                problems.append(f"hole {v} (with the {n - 1} below it) cannot be the work of "
                                f"failed increments: only {able} failed increments started "
                                f"before a success with a larger post answered")
                break
    return k


def check(run_dir, faults, stop_faults_at, stop_at, final, nodes, t_us, suite):
    """Returns (problems, overruns, stats)."""
    problems = []
    call_class = make_call_class(suite)
    incs, calls, sessions = [], [], {}
    for c in range(1, CLIENTS + 1):
        got, got_calls, got_sessions = read_history(
            os.path.join(run_dir, f"w{c}.history"), c, call_class, problems)
        incs.extend(got)
        calls.extend(got_calls)
        sessions[c] = got_sessions
    if len(calls) != len(incs):
        problems.append(f"{len(incs)} increments but {len(calls)} call lines")
    k = None
    lives = lives_of(faults, final)
    if final is None:
        problems.append("the final value could not be read")
    elif lives is None:
        problems.append("a re-create of the counter's node has no known outcome")
    else:
        k = check_values(incs, lives, problems)

    late = []
    for c in range(1, CLIENTS + 1):
        after = sorted(i.answer for i in incs if i.client == c and i.outcome == "ok"
                       and i.answer >= stop_faults_at)
        if not after or after[0] - stop_faults_at > t_us + LIVENESS_SLACK_US:
            late.append(c)
            problems.append(f"client {c}: no increment succeeded within one session timeout "
                            f"after the faults stopped (at {stop_faults_at}): first "
                            f"{after[0] if after else 'never'}")

    allowed = {ROOT, PATH, LOCK_PATH}
    for path, owner in nodes:
        if path not in allowed or owner != "0":
            problems.append(f"node left after every client exited: {path} (owner 0x{owner})")

    deadlines, overruns = suite.check_deadlines(calls, sessions, faults, t_us)
    ok = [i for i in incs if i.outcome == "ok"]
    failed = [i for i in incs if i.outcome == "error"]
    stats = {"increments": len(incs), "succeeded": len(ok),
             "under_lock": sum(1 for i in ok if i.promoted_tries > 0),
             "gave_up": sum(1 for i in incs if i.outcome == "gaveup"),
             "failed": len(failed),
             "unknown": sum(1 for i in failed if i.code.endswith(" unknown")),
             "final": final, "k": k, "late": late, "deadlines": deadlines,
             "lives": len(lives) if lives is not None else None,
             "codes": {}}
    for i in failed:
        stats["codes"][i.code] = stats["codes"].get(i.code, 0) + 1
    return problems, overruns, stats


def read_final(path):
    """final.txt, as counter-worker --final printed it: the value and the
    nodes under ROOT."""
    final, nodes, error = None, [], None
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if words[:1] == ["final"]:
                    final = int(words[1])
                elif words[:1] == ["node"]:
                    nodes.append((words[1], words[2]))
                elif words[:1] == ["final-error"]:
                    error = line.strip()
    except OSError as e:
        error = str(e)
    return final, nodes, error


def summary_line(stats, faults, problems, overruns, deadline_line):
    return (f"counter: {CLIENTS} clients ({CLIENTS - PROMOTED} optimistic, {PROMOTED} promoted), "
            f"increments {stats['increments']}: succeeded {stats['succeeded']} (under the lock "
            f"{stats['under_lock']}), gave up {stats['gave_up']}, failed {stats['failed']} "
            f"(lost reply, landing unknown {stats['unknown']}; by error: "
            + (", ".join(f"{code} {n}" for code, n in sorted(stats["codes"].items()))
               or "none") + f"), final {stats['final']} = "
            f"succeeded + k, k {stats['k']}, node lives {stats['lives']}, faults {faults}, "
            f"violations "
            f"{len(problems) + len(overruns)}; {deadline_line(stats['deadlines'])}")


def check_dir(run_dir, suite):
    """Checks a kept run again (faults.py --check DIR --modes counter), says
    the summary and violations; returns whether it passed."""
    t_us = suite.SESSION_TIMEOUT_MS * 1000
    with open(os.path.join(run_dir, "nemesis.log")) as f:
        records = [ast.literal_eval(line) for line in f if line.strip()]
    ends = records.pop()
    final, nodes, error = read_final(os.path.join(run_dir, "final.txt"))
    problems, overruns, stats = check(run_dir, records, ends["stop_faults"], ends["stop"],
                                      final, nodes, t_us, suite)
    if error:
        problems.append(error)
    suite.say(summary_line(stats, len(records), problems, overruns, suite.deadline_line))
    for problem in (problems + overruns)[:20]:
        suite.say("  VIOLATION", problem)
    return not problems and not overruns




def final_listing(args, hosts, run_dir, deadline):
    """The counter's value and the nodes under ROOT, asked again until
    @deadline while an ephemeral node is left (a client whose close could
    not reach the server leaves its lock node to expiry)."""
    path = os.path.join(run_dir, "final.txt")
    while True:
        with open(path, "w") as out:
            subprocess.run([args.counter_worker, "--hosts", hosts, "--path", PATH,
                            "--final", ROOT], stdout=out, stderr=subprocess.STDOUT, timeout=90)
        final, nodes, error = read_final(path)
        if (final is not None and error is None and all(o == "0" for _, o in nodes)) \
                or time.monotonic() >= deadline:
            return final, nodes, error
        time.sleep(0.5)


def remove_root(args, hosts):
    result = subprocess.run([args.worker, "--hosts", hosts, "--count", ROOT],
                            capture_output=True, text=True, timeout=60)
    out = result.stdout.strip()
    return None if result.returncode == 0 and out.endswith("count 0 rc ok") else out


def with_recreate(nemesis_class, counter_worker):
    """The suite's nemesis, with one more fault: the counter's node deleted
    and created again (a new life, see above)."""
    class CounterNemesis(nemesis_class):
        def fault_recreate_counter(self, length, member):
            base = (1 + sum(1 for f in self.log if f.get("base") is not None)) * LIFE_BASE
            start = now_us()
            result = subprocess.run([counter_worker, "--hosts", self.ensemble.hosts,
                                     "--path", PATH, "--recreate", str(base)],
                                    capture_output=True, text=True, timeout=300)
            words = result.stdout.split()
            record = {"target": f"the counter's node (base {base})", "worker": 0,
                      "scope": "node", "start": start, "end": now_us(),
                      "note": result.stdout.strip()}
            if words[:1] == ["recreate"] and len(words) == 4:
                record["old"], record["base"] = int(words[1]), base
            elif words != ["recreate", "none"]:
                record["error"] = result.stdout.strip() or f"exit {result.returncode}"
            return record
    return CounterNemesis


def run(args, ensemble, proxies, run_dir, seed, full, nemesis_class, session_timeout_ms, say,
        suite=None):
    """Returns (ok, summary line, violations)."""
    fault_s, quiet_s = RUNS["full" if full else "quick"]
    t_us = session_timeout_ms * 1000
    os.makedirs(run_dir, exist_ok=True)
    say(f"counter: {CLIENTS} clients ({CLIENTS - PROMOTED} optimistic, {PROMOTED} promoted) "
        f"incrementing one atomic long, {fault_s}s of faults, {quiet_s}s quiet")
    violations, faults, clients = [], [], []
    # The counter starts missing (0): nothing of an earlier run is left.
    left = remove_root(args, ensemble.hosts)
    if left is not None:
        return False, f"counter: could not clear {ROOT}: {left}", [left]
    stop_faults_at = stop_at = 0
    try:
        for c in range(1, CLIENTS + 1):
            log = open(os.path.join(run_dir, f"w{c}.log"), "w")
            clients.append(subprocess.Popen(
                [args.counter_worker, "--hosts", proxies[c - 1].address, "--path", PATH,
                 "--lock-path", LOCK_PATH, "--dir", run_dir, "--id", str(c),
                 "--session-timeout", str(session_timeout_ms), "--seed", str(seed)]
                + (["--promoted"] if c > CLIENTS - PROMOTED else []),
                stdout=log, stderr=subprocess.STDOUT))
            log.close()
        nemesis = with_recreate(nemesis_class, args.counter_worker)(
            seed, ensemble, proxies[:CLIENTS], clients, run_dir, args, kinds=COUNTER_FAULT_KINDS)
        nemesis.run(time.monotonic() + fault_s)
        faults = nemesis.log
        stop_faults_at = max((f["end"] for f in faults), default=int(time.monotonic() * 1e6))
        time.sleep(max(0.0, stop_faults_at / 1e6 + t_us / 1e6 + quiet_s - time.monotonic()))
    finally:
        stop_at = int(time.monotonic() * 1e6)
        codes = stop_processes(clients)
    with open(os.path.join(run_dir, "nemesis.log"), "w") as f:
        for fault in faults:
            f.write(repr(fault) + "\n")
        f.write(repr({"stop_faults": stop_faults_at, "stop": stop_at}) + "\n")
    for c, code in enumerate(codes, start=1):
        if code != 0:
            violations.append(f"client {c} exited with {code}")
    final, nodes, error = final_listing(args, ensemble.hosts, run_dir,
                                        time.monotonic() + t_us / 1e6 + 2)
    if error:
        violations.append(f"final read: {error}")
    problems, overruns, stats = check(run_dir, faults, stop_faults_at, stop_at, final, nodes,
                                      t_us, suite)
    violations.extend(problems)
    left = remove_root(args, ensemble.hosts)
    if left is not None:
        violations.append(f"{ROOT} not removed: {left}")
    line = summary_line(stats, len(faults), violations, overruns, suite.deadline_line)
    return not violations and not overruns, line, violations + overruns
