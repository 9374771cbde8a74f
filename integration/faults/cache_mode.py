"""The fault suite's cache mode (faults.py --modes cache): a writer process
makes random creates, sets and deletes in a 3-level tree (10,000 in the full
run) while 3 cache clients, each behind its own proxy, mirror the tree with a
ZkrTreeCache and the nemesis kills and pauses members, expires the caches'
sessions, black-holes their proxies, and deletes and creates again nodes of
the tree at a lower version (after three sets, version 0 with other data, in
one transaction, so no watch sees the node missing; also right after it
expired a cache's session): a cache must know a node by its czxid. Once the faults and the writes have
stopped, each client must find, within one session timeout, its cache and
the replay of its events equal to a fresh read of the server
(integration/faults/cache-worker.c does the comparing)."""

import os
import signal
import subprocess
import time

from nemesis import now_us, stop_processes

CACHES = 3
# writes and fault-phase seconds per run
RUNS = {"quick": (1500, 40), "full": (10000, 140)}
# The faults a cache can meet: the lock modes' menu without the ones that
# need a lock holder or waiter (pausing a client process only delays it).
CACHE_FAULT_KINDS = [
    ("kill-leader", 1.0),
    ("pause-member", 1.0),
    ("expire-session", 1.5),
    ("partition-client", 1.5),
    ("recreate-nodes", 1.0),
    ("expire-and-recreate", 1.0),
]
# nodes each re-creation fault deletes and creates again
RECREATED = 3
PATH = "/zkr-faults/cache"


def wait_for_line(path, prefix, deadline):
    """The first line of @path starting with @prefix, or None by @deadline."""
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(prefix):
                        return line.strip()
        except OSError:
            pass
        time.sleep(0.05)
    return None


def last_line(path):
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip()]
        return lines[-1] if lines else "(no output)"
    except OSError:
        return "(no log)"




def cache_nemesis(base, args):
    """The nemesis class with the cache mode's own faults: nodes deleted
    and created again at a lower version (cache-worker.c --role recreate),
    alone or right after a cache's session was expired."""

    class CacheNemesis(base):
        def recreate(self):
            result = subprocess.run(
                [args.cache_worker, "--role", "recreate", "--hosts", self.ensemble.hosts,
                 "--path", PATH, "--ops", str(RECREATED),
                 "--seed", str(self.targets.randint(1, 1 << 30))],
                capture_output=True, text=True, timeout=60)
            return result.stdout.strip() or f"recreate exited with {result.returncode}"

        def fault_recreate_nodes(self, length, member):
            start = now_us()
            note = self.recreate()
            return {"target": "tree", "start": start, "end": now_us(), "scope": "all",
                    "note": note}

        def fault_expire_and_recreate(self, length, member):
            record = self.fault_expire_session(length, member)
            record["note"] = f"{record.get('note', '')}; {self.recreate()}"
            record["end"] = now_us()
            return record

    return CacheNemesis


def run(args, ensemble, proxies, run_dir, seed, full, nemesis_class, session_timeout_ms, say):
    """Returns (ok, summary line, violations)."""
    ops, fault_s = RUNS["full" if full else "quick"]
    os.makedirs(run_dir, exist_ok=True)
    say(f"cache: {CACHES} caches, a writer making {ops} writes, {fault_s}s of faults")
    violations = []
    caches = []
    for i in range(1, CACHES + 1):
        log = open(os.path.join(run_dir, f"c{i}.log"), "w")
        caches.append(subprocess.Popen(
            [args.cache_worker, "--role", "cache", "--hosts", proxies[i - 1].address,
             "--path", PATH, "--dir", run_dir, "--id", str(i),
             "--session-timeout", str(session_timeout_ms)],
            stdout=log, stderr=subprocess.STDOUT))
        log.close()
    writer = None
    try:
        for i in range(1, CACHES + 1):
            if wait_for_line(os.path.join(run_dir, f"c{i}.log"), "initialized",
                             time.monotonic() + 60) is None:
                raise RuntimeError(f"cache {i} did not start: {last_line(os.path.join(run_dir, f'c{i}.log'))}")
        log = open(os.path.join(run_dir, "writer.log"), "w")
        writer = subprocess.Popen(
            [args.cache_worker, "--role", "writer", "--hosts", ensemble.hosts, "--path", PATH,
             "--ops", str(ops), "--duration-ms", str(fault_s * 1000), "--seed", str(seed)],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        nemesis = cache_nemesis(nemesis_class, args)(seed, ensemble, proxies[:CACHES], caches, run_dir, args,
                                kinds=CACHE_FAULT_KINDS)
        nemesis.run(time.monotonic() + fault_s)
        # The writes end by themselves, spread over the fault phase; slow
        # ones (each has a 2 s deadline) may run past it.
        writer.wait(timeout=fault_s + 2 * ops + 60)
        if writer.returncode != 0:
            violations.append(f"writer exited with {writer.returncode}: "
                              f"{last_line(os.path.join(run_dir, 'writer.log'))}")
        with open(os.path.join(run_dir, "nemesis.log"), "w") as f:
            for fault in nemesis.log:
                f.write(repr(fault) + "\n")
        # Faults and writes have stopped: every cache checks now.
        for proc in caches:
            os.kill(proc.pid, signal.SIGCONT)
            os.kill(proc.pid, signal.SIGUSR1)
        for i, proc in enumerate(caches, start=1):
            try:
                code = proc.wait(timeout=session_timeout_ms / 1000 + 60)
            except subprocess.TimeoutExpired:
                code = "hung"
            verdict = last_line(os.path.join(run_dir, f"c{i}.log"))
            say(f"  cache {i}: {verdict}")
            if code != 0:
                violations.append(f"cache {i} (exit {code}): {verdict}")
        faults = len(nemesis.log)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        violations.append(str(e))
        faults = 0
    finally:
        stop_processes(caches + ([writer] if writer else []), timeout=30)
    result = subprocess.run([args.worker, "--hosts", ensemble.hosts, "--count", PATH],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0 or not result.stdout.strip().endswith("count 0 rc ok"):
        violations.append(f"the tree was not removed: {result.stdout.strip()}")
    writes = last_line(os.path.join(run_dir, "writer.log"))
    line = f"cache: {writes}, faults {faults}, violations {len(violations)}"
    return not violations, line, violations
