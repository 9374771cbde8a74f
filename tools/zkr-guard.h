/* zkr CLI: a command run under a lock (or under leadership). The guard
 * owns the child process: it spawns CMD with extra environment, forwards
 * SIGINT/SIGTERM/SIGHUP to it, and when told that the lock is lost stops it
 * (SIGTERM, then SIGKILL after a grace period shorter than the session's
 * safety margin) so that CMD has stopped before anyone else can hold the
 * lock (docs/design.md §3.6). Before CMD runs, the same signals cancel the
 * guard's GCancellable instead, so a wait for the lock ends promptly.
 *
 * Threads: everything runs in the thread-default GMainContext of the thread
 * that created the guard (zkr: the main thread, default context); a lock's
 * loss listener added from that thread calls zkr_guard_lost() there. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What to do with CMD when the lock is lost (--on-loss). */
typedef enum {
  ZKR_ON_LOSS_TERM,    /* SIGTERM, then SIGKILL after the grace period */
  ZKR_ON_LOSS_KILL,    /* SIGKILL at once */
  ZKR_ON_LOSS_IGNORE,  /* let CMD run on; zkr still exits 70 */
} ZkrOnLoss;

/* Parses "term", "kill", "ignore". */
gboolean zkr_on_loss_parse (const char *text, ZkrOnLoss *on_loss);

typedef struct _ZkrGuard ZkrGuard;

/* @name: "zkr lock", for messages. Installs the signal handlers at once.
 * (transfer full) */
ZkrGuard *zkr_guard_new (const char *name, ZkrOnLoss on_loss, gboolean quiet);
/* Removes the signal handlers. The child, if still running, is left alone. */
void zkr_guard_free (ZkrGuard *guard);

/* Cancelled when a forwarded signal arrives before CMD runs. (transfer none) */
GCancellable *zkr_guard_get_cancellable (ZkrGuard *guard);
/* The first signal received (SIGINT, ...), 0 if none. */
int zkr_guard_get_signal (ZkrGuard *guard);

/* The grace period between SIGTERM and SIGKILL. Set it from the session:
 * zkr_guard_grace_for_session_ms(). */
void zkr_guard_set_grace_ms (ZkrGuard *guard, int grace_ms);
/* Half the session's safety margin: the lock-loss deadline comes margin
 * (plus the clock-drift allowance) before the server can expire the
 * session, so a SIGKILL sent grace ms after it still lands in time. */
int zkr_guard_grace_for_session_ms (int session_timeout_ms);

/**
 * zkr_guard_run:
 * @argv: CMD and its arguments (searched in PATH)
 * @env: extra "NAME=VALUE" variables on top of zkr's environment
 * Spawns CMD and runs the main context until it has exited. If a
 * forwarded signal arrived or zkr_guard_lost() was called before, CMD is
 * not started.
 * Returns: the exit status for zkr: 128 + N if signal N arrived before CMD
 * could start; ZKR_EXIT_LOCK_LOST (70) if the lock
 * was lost while CMD ran (or before it started), ZKR_EXIT_REVOKED (79) if
 * it was revoked, else CMD's exit status,
 * or 128 + N if it died of signal N; 127 if CMD was not found, 126 if it
 * could not be run (the reason printed).
 */
int zkr_guard_run (ZkrGuard *guard, char **argv, char **env);

/* The lock is lost: print @why (unless quiet) and act per --on-loss. */
void zkr_guard_lost (ZkrGuard *guard, const char *why);

/* zkr lock --revocable's status when CMD was stopped on a revocation
 * request: not 70, so that a script that takes the lock again after a
 * loss does not undo a revocation; outside sysexits' range (64-78), whose
 * meanings zkr's other statuses take. */
#define ZKR_EXIT_REVOKED 79
/* Someone asked for the lock (zkr revoke, Curator's Revoker): print @why
 * and stop CMD as on loss (SIGTERM, then SIGKILL after the grace; SIGKILL
 * at once with --on-loss=kill; --on-loss=ignore does not apply: a
 * revocable lock is given up on request). zkr_guard_run() then returns
 * ZKR_EXIT_REVOKED, unless the lock was lost first. */
void zkr_guard_revoked (ZkrGuard *guard, const char *why);
/* How loss messages start: "lock lost" (the default) or e.g. "leadership
 * lost"; @label must outlive the guard (a string literal). */
void zkr_guard_set_lost_label (ZkrGuard *guard, const char *label);
/* A note about the lock that does not stop CMD (in doubt, restored). */
void zkr_guard_note (ZkrGuard *guard, const char *note);

G_END_DECLS
