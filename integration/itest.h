/* zkr integration tests: helpers shared by the suites that talk to the
 * real local ensemble (integration/ensemble.sh). A missing ensemble is a
 * failure, never a skip. */
#pragma once

#include <glib.h>
#include <zkr/zkr.h>

#include "ops.h"
#include "proxy.h"

G_BEGIN_DECLS

typedef struct _ItestRecorder ItestRecorder;

/* ZKR_TEST_HOSTS, or a CUnit failure (and NULL) when it is unset. */
const char *itest_hosts (void);
/* The connect string of server @n (1-based) alone. (transfer full) */
char *itest_server_host (guint n);
/* Which server (1-based) listens on "127.0.0.1:PORT", 0 if none. */
guint itest_server_index (const char *host);
/* Runs integration/ensemble.sh with the words of @command ("pause 2"). */
gboolean itest_ensemble (const char *command);
/* The answer of server @n to the four-letter word @word. (transfer full) */
char *itest_fourlw (guint n, const char *word);
/* The connect string of the members that follow (not the quorum leader),
 * waiting up to 30 s until two do (a member restarted or resumed by an
 * earlier test may still be rejoining): losing one of them leaves a
 * quorum with its leader. (transfer full) */
char *itest_followers_hosts (void);
/* Which member (1-based) leads the quorum, waiting up to 30 s for one to;
 * 0 if none does. */
guint itest_leader_index (void);

/* Options for @hosts with a session timeout and a short connection timeout. */
ZkrSessionOptions *itest_options (const char *hosts, int session_timeout_ms);
/* Connects or fails the test. (transfer full) (nullable) */
ZkrSession *itest_connect (const char *hosts, int session_timeout_ms);
/* A new session with a recorder attached before it can connect, then
 * waits for CONNECTED; fails the test otherwise. */
ZkrSession *itest_connect_recorded (const char *hosts, int session_timeout_ms,
                                    ItestRecorder **recorder);

/* Expires @session from outside, the standard way: a second handle with
 * its id and password connects, then closes. TRUE once @session saw the
 * LOST (its lost count grew). */
gboolean itest_expire_session (ZkrSession *session);

/* A unique scratch path for one test: "/zkr-it/<name>-<pid>-<n>". */
char *itest_scratch_path (const char *name);
/* Deletes @path and everything under it; TRUE when nothing is left. */
gboolean itest_delete_tree (ZkrSession *session, const char *path);
/* The number of children of @path (0 when it does not exist). */
guint itest_count_children (ZkrSession *session, const char *path);
/* TRUE once @path has exactly @count children, FALSE if not by @timeout_ms. */
gboolean itest_wait_for_children (ZkrSession *session, const char *path, guint count,
                                  int timeout_ms);
/* Creates a persistent @path (and a CONTAINER /zkr-it), retrying on
 * connection trouble until @timeout_ms; ZNODEEXISTS after a retry counts
 * as created. Returns the last rc. */
int itest_create_with_retries (ZkrSession *session, const char *path, int timeout_ms);
/* TRUE when @path does not exist. */
gboolean itest_node_absent (ZkrSession *session, const char *path);
/* A node as seen through a session, for itest_wait_for (itest_node_gone,
 * &at, ...): TRUE once @path does not exist. */
typedef struct {
  ZkrSession *session;
  const char *path;
} ItestNodeAt;
gboolean itest_node_gone (gpointer data);

/* A call (an unref, a close) run on a thread of its own, to show that it
 * returns: start, itest_wait_for (itest_in_thread_returned, &run, ...),
 * join. */
typedef struct {
  GDestroyNotify func;
  gpointer object;
  gint returned;   /* atomic */
  GThread *thread;
} ItestInThread;
void itest_in_thread_start (ItestInThread *run, const char *name, GDestroyNotify func,
                            gpointer object);
gboolean itest_in_thread_returned (gpointer data);
void itest_in_thread_join (ItestInThread *run);

/* A lock's per-thread hold as one thread saw it, for
 * itest_assert_dead_threads_hold_stays(): @take and @look are the lock's
 * own calls, run on threads of their own. */
typedef struct {
  gpointer lock;
  GThread *self;
  gboolean acquired;        /* the first thread (@take): took the lock */
  gboolean held;            /* a later thread (@look): believed it held */
  guint count;              /* ... the hold count it saw */
  gboolean release_refused; /* ... a release answered NOT_HELD */
  gboolean try_also;        /* ... tries to take it too */
  gboolean try_refused;     /* ... and the try (0 ms) answered TIMEOUT */
} ItestThreadHold;

/* Holds were once kept per GThread address, and a thread started after
 * another ended often gets its address. Runs @take on a first thread,
 * which ends holding @lock, then @look on 64 later threads: none holds it
 * (count 0), none can release it, the first four cannot take it; the
 * first thread's node is still the one under @path. Prints how many later
 * threads had the first one's address. */
void itest_assert_dead_threads_hold_stays (ZkrSession *session, const char *path, gpointer lock,
                                           GThreadFunc take, GThreadFunc look);

/* A GMainContext of its own, run by a thread of its own (thread-default
 * there): where the recorders below hear their listeners. */
typedef struct {
  GMainContext *context;
  GMainLoop *loop;
  GThread *thread;
} ItestLoopThread;

/* Makes the context and its loop; no thread yet. */
void itest_loop_thread_init (ItestLoopThread *runner);
/* Starts the thread running the loop. */
void itest_loop_thread_start (ItestLoopThread *runner, const char *name);
/* Runs @last (@data) on the thread (NULL: nothing), stops and joins the
 * thread, then dispatches what is left in the context (a listener's
 * destroy, a queued delivery) and frees the context and loop. */
void itest_loop_thread_stop (ItestLoopThread *runner, GSourceFunc last, gpointer data);

/* Records the state transitions a session reports, on a thread of its own
 * running a GMainContext (so the test's thread can block and wait). */
ItestRecorder *itest_recorder_new (ZkrSession *session);
void itest_recorder_free (ItestRecorder *recorder);
/* Waits until the @index-th (0-based) recorded state exists; returns it,
 * or -1 on timeout. */
int itest_recorder_wait_nth (ItestRecorder *recorder, guint index, int timeout_ms);
/* Waits until @state has been recorded at least once after position
 * @from; returns its index or -1. @at (optional) gets its monotonic time. */
int itest_recorder_wait_state (ItestRecorder *recorder, ZkrSessionState state,
                               guint from, int timeout_ms, gint64 *at);
guint itest_recorder_count (ItestRecorder *recorder);
/* "CONNECTED,SUSPENDED,..." (transfer full) */
char *itest_recorder_describe (ItestRecorder *recorder);
/* TRUE if every callback ran on the recorder's own thread. */
gboolean itest_recorder_all_on_own_thread (ItestRecorder *recorder);

/* Waits for @predicate(@data) with a deadline, checking every 20 ms
 * (used only for facts no event reports, such as a server-side count). */
gboolean itest_wait_for (gboolean (*predicate) (gpointer data), gpointer data, int timeout_ms);

/* A watch of @session_id on @node_path (as zkr_session_get_id gives it). */
typedef struct {
  const char *node_path;
  gint64 session_id;
} ItestWatchOn;
/* For itest_wait_for (data: an ItestWatchOn): TRUE when some server's
 * `wchp` listing shows the watch. */
gboolean itest_watch_is_set (gpointer data);

/* ---- node calls' helpers (itest-node.c) ------------------------------ */

/* A call that should simply succeed; a wait for facts no event reports. */
#define ITEST_CALL_MS 10000
#define ITEST_WAIT_MS 30000

/* The namespace of a node-call suite's sessions, "zkr-it-@suite-PID", so
 * that runs side by side never share one. (transfer full) */
char *itest_suite_namespace (const char *suite);
/* Connects with namespace @ns (nullable) or fails the test. (transfer full) */
ZkrSession *itest_connect_ns (const char *hosts, const char *ns, int session_timeout_ms);
/* @path (under @ns, nullable) as the server sees it. (transfer full) */
char *itest_server_path (const char *ns, const char *path);
/* Removes @root (under @ns) and checks it is gone; with @ns, the namespace
 * node too once nothing else is under it. */
void itest_cleanup_root (ZkrSession *direct, const char *ns, const char *root);
/* TRUE when @bytes holds exactly @text (without its NUL). */
gboolean itest_bytes_equal (GBytes *bytes, const char *text);
/* A CUnit failure, with both messages printed, unless @error is @code. */
#define ITEST_ASSERT_CODE(error, code) itest_assert_code ((error), (code), __FILE__, __LINE__)
void itest_assert_code (const GError *error, ZkrError code, const char *file, int line);
/* A cancelled call's error (G_IO_ERROR_CANCELLED, include/zkr/error.h)
 * whose message says "cancelled", or a CUnit failure. */
#define ITEST_ASSERT_CANCELLED(error) itest_assert_cancelled ((error), __FILE__, __LINE__)
void itest_assert_cancelled (const GError *error, const char *file, int line);
/* An INVALID_ARGUMENT whose message names @value (escaped as zkr quotes
 * it), or a CUnit failure. */
void itest_assert_invalid_naming (const GError *error, const char *value);
/* Every test ends here: nothing left under @path (no namespace). */
void itest_assert_path_clean (ZkrSession *session, const char *path);
/* Milliseconds since @since (a g_get_monotonic_time). */
gint64 itest_elapsed_ms (gint64 since);
/* For itest_wait_for (data: a ZkrSession): TRUE once a read answers. */
gboolean itest_session_answers (gpointer session);

/* An async call's answer, awaited in the thread-default context of the
 * thread that made the call: begin, make the call with itest_async_done
 * and the ItestAsync as callback, wait (fails the test if the callback ran
 * before the call returned or in another context), end. */
typedef struct {
  GMainContext *context;
  GAsyncResult *result;
  gboolean returned;
  gboolean early;
  gboolean wrong_context;
} ItestAsync;

void itest_async_begin (ItestAsync *wait);
void itest_async_done (GObject *source, GAsyncResult *result, gpointer user_data);
/* Runs the context until the callback ran, at most @timeout_ms; returns
 * the result (owned by @wait) or NULL. */
GAsyncResult *itest_async_wait (ItestAsync *wait, int timeout_ms);
void itest_async_end (ItestAsync *wait);

/* An async call of @object with a cancellable and a boolean answer (a
 * lock's release_async), and its finish. */
typedef void (*ItestAsyncStart) (gpointer object, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
typedef gboolean (*ItestAsyncFinish) (gpointer object, GAsyncResult *result, GError **error);
/* Makes the call from this thread and waits for its answer as
 * itest_async_wait() does (ITEST_CALL_MS at most: no answer fails the
 * test); returns what @finish returns. */
gboolean itest_async_call (gpointer object, ItestAsyncStart start, ItestAsyncFinish finish,
                           GCancellable *cancellable, GError **error);

/* A lock's release_async and what it changes (a mutex, a lease, a
 * multi-lock), for the checks below; each takes the lock as @lock. */
typedef struct {
  ItestAsyncStart start;     /* its release_async */
  ItestAsyncFinish finish;   /* its release_finish */
  gboolean (*is_held) (gpointer lock);
  gboolean (*is_release_pending) (gpointer lock);
} ItestRelease;

/* release_async of the held @lock answers TRUE, in the caller's context
 * after the call returned (itest_async_call()), and leaves it neither
 * held nor pending: its nodes are gone by then. */
void itest_assert_release_async_releases (gpointer lock, const ItestRelease *release);
/* release_async of @lock, not held, answers NOT_HELD; with @named, its
 * message names @named (the lost lock's path). */
void itest_assert_release_async_not_held (gpointer lock, const ItestRelease *release,
                                          const char *named);
/* release_async of the held @lock with a cancellable cancelled beforehand
 * answers CANCELLED; the lock is not held all the same, and the release
 * under way in the background ends within ITEST_WAIT_MS. */
void itest_assert_release_async_cancelled (gpointer lock, const ItestRelease *release);

/* A session with namespace @ns through a proxy of its own (to black-hole
 * its link), its state recorder, a direct session, and a scratch root made
 * through the proxied one. */
typedef struct {
  ZkrTestProxy *proxy;
  ZkrSession *proxied;      /* a test may unref it and set it NULL */
  ItestRecorder *recorder;  /* freed with the proxied session */
  ZkrSession *direct;
  const char *ns;           /* (nullable) not owned */
  char *root;               /* under ns */
} ItestProxied;

/* Connects and makes the root, or fails the test (fatally). */
void itest_proxied_init (ItestProxied *f, const char *ns, const char *name,
                         int session_timeout_ms);
/* A round trip first, so the last byte is now, then the black hole. */
void itest_proxied_black_hole (ItestProxied *f);
/* Heals the link, waits for the proxied session to answer and frees it
 * (or, dropped by the test, removes the tree once its late writes landed);
 * with @ephemerals, waits for the root's ephemeral children to go with
 * their sessions; then removes the root, checks it is gone, frees all. */
void itest_proxied_finish (ItestProxied *f, gboolean ephemerals);

/* ---- loss recorder -----------------------------------------------------
 * A lock's loss listener on a thread (and GMainContext) of its own,
 * recording every event, its monotonic time, and whether the listener's
 * lock argument was the lock it was added to. */
typedef struct _ItestLossRecorder ItestLossRecorder;
/* Adds the recorder's listener to @lock: a call of the recipe's
 * zkr_*_add_loss_listener (@lock, @func, @user_data, NULL). */
typedef void (*ItestAddLossListener) (gpointer lock, ZkrLockLossFunc func, gpointer user_data);

/* Returns once the listener is added, from the recorder's thread. */
ItestLossRecorder *itest_loss_recorder_new (gpointer lock, ItestAddLossListener add);
void itest_loss_recorder_free (ItestLossRecorder *recorder);
/* Waits until @event was seen @times times; returns the monotonic time of
 * the @times-th, or 0 when @timeout_ms passed first. */
gint64 itest_loss_wait (ItestLossRecorder *recorder, ZkrLockEvent event, guint times,
                        int timeout_ms);
guint itest_loss_count (ItestLossRecorder *recorder, ZkrLockEvent event);
/* TRUE if every event named the lock the listener was added to. */
gboolean itest_loss_right_source (ItestLossRecorder *recorder);
/* Returns once every event already posted to the recorder was recorded. */
void itest_loss_flush (ItestLossRecorder *recorder);
/* The events so far, in order (transfer full). */
GArray *itest_loss_events (ItestLossRecorder *recorder);

G_END_DECLS
