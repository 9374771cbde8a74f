/* zkr: the session's ZooKeeper handle. One handle at a time: opened,
 * closed, reopened after LOST (docs/design.md §2.2), and its events turned
 * into the session's transitions, with the timers that drive them: the
 * liveness ping while connected and the deadline while suspended (§2.3).
 *
 * Threads: ZooKeeper's completion thread only posts events to the worker
 * (session_watcher); they are handled there, holding the turn. */

#include <errno.h>
#include <string.h>

#include "error-private.h"
#include "log.h"
#include "ops.h"
#include "session-internal.h"

/* The context a handle's watcher gets: which session, which handle
 * generation. Freed only after zookeeper_close() returned, when no
 * ZooKeeper thread can use it any more. */
struct _ZkrHandleContext {
  ZkrSession *session;
  guint generation;
};

/* ---- timers (turn held) ------------------------------------------ */

static guint
timer_start (ZkrSession *session, guint ms, GSourceFunc func)
{
  return zkr__executor_timer_add (session->executor, ms, 0, func, session, NULL);
}

static void
ping_done (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  (void) session;
  (void) user_data;
  /* zkr_op_* already advanced the clock for an answered request. */
  zkr__debug ("liveness ping: %s", zkr__error_zk_name (reply->rc));
}

static void
ping_send (ZkrSession *session)
{
  zkr__op_exists (session, "/", FALSE, ping_done, NULL);
}

/* Every T/3 while connected, rearmed as it runs (as a repeating GLib
 * timeout would be). */
static gboolean
ping_tick (gpointer data)
{
  ZkrSession *session = data;

  session->ping_timer = timer_start (session, session->ping_period_ms, ping_tick);
  ping_send (session);
  return G_SOURCE_REMOVE;
}

static void
ping_start (ZkrSession *session, int timeout_ms)
{
  zkr__executor_timer_clear (session->executor, &session->ping_timer);
  session->ping_period_ms = (guint) MAX (timeout_ms / 3, 1);
  session->ping_timer = timer_start (session, session->ping_period_ms, ping_tick);
  ping_send (session);
}

void
zkr__session_handle_timers_stop (ZkrSession *session)
{
  zkr__executor_timer_clear (session->executor, &session->ping_timer);
  zkr__executor_timer_clear (session->executor, &session->deadline_timer);
  zkr__executor_timer_clear (session->executor, &session->reopen_timer);
}

/* ---- handles ------------------------------------------------------ */

static void session_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx);

static void
handle_add_auth (ZkrSession *session, zhandle_t *zh)
{
  g_autofree char *cert = NULL;
  int rc;

  if (session->options->auth_user == NULL)
    return;
  cert = g_strdup_printf ("%s:%s", session->options->auth_user, session->options->auth_password);
  rc = zoo_add_auth (zh, "digest", cert, (int) strlen (cert), NULL, NULL);
  memset (cert, 0, strlen (cert));
  if (rc != ZOK)
    zkr__debug ("zoo_add_auth: %s", zkr__error_zk_name (rc));
}

/* Any thread, no lock held. Opens a fresh handle (a new ZooKeeper session).
 * The lock is held across zookeeper_init2() so that the worker cannot look
 * at events of the new generation before the handle is stored. */
gboolean
zkr__session_handle_open (ZkrSession *session, GError **error)
{
  ZkrHandleContext *handle_ctx = g_new0 (ZkrHandleContext, 1);
  zhandle_t *zh;
  int saved_errno;

  handle_ctx->session = session;
  g_mutex_lock (&session->lock);
  handle_ctx->generation = ++session->generation;
  session->handle_opened = g_get_monotonic_time ();
  zh = zookeeper_init2 (session->options->hosts, session_watcher,
                        session->options->session_timeout_ms, NULL, handle_ctx,
                        0, zkr__log_zookeeper_message);
  saved_errno = errno;
  if (zh == NULL)
    {
      g_mutex_unlock (&session->lock);
      g_free (handle_ctx);
      g_set_error (error, ZKR_ERROR,
                   saved_errno == EINVAL ? ZKR_ERROR_INVALID_ARGUMENT : ZKR_ERROR_CONNECTION_LOSS,
                   "could not start a ZooKeeper client for \"%s\": %s",
                   session->hosts.hosts, g_strerror (saved_errno));
      return FALSE;
    }
  zoo_set_servers_resolution_delay (zh, ZKR_SESSION_RESOLUTION_DELAY_MS);
  handle_add_auth (session, zh);
  session->zh = zh;
  session->handle_session_id = 0;
  session->handle_ctx = handle_ctx;
  g_mutex_unlock (&session->lock);
  return TRUE;
}

/* Under the session's lock: takes the handle away (no request leaves on
 * it from now on, and its events are of an old generation). */
static zhandle_t *
handle_steal_locked (ZkrSession *session, ZkrHandleContext **handle_ctx)
{
  *handle_ctx = g_steal_pointer (&session->handle_ctx);
  session->generation++;
  return g_steal_pointer (&session->zh);
}

/* Closes a handle taken away, on whatever thread calls it. zookeeper_close()
 * fails the handle's pending completions with ZCLOSING; they arrive as
 * stale-generation posts and are ignored; the calls it dropped are
 * completed after it returned. The handle's context is freed only then:
 * until then libzookeeper's threads may read it. */
static void
handle_close_taken (ZkrSession *session, zhandle_t *zh, ZkrHandleContext *handle_ctx)
{
  guint stall_ms;

  g_mutex_lock (&session->lock);
  stall_ms = session->close_stall_ms;
  session->close_stall_ms = 0;
  g_mutex_unlock (&session->lock);
  if (stall_ms != 0)
    /* A test's stand-in for libzookeeper waiting for a server that does
     * not answer the close (session-private.h). */
    g_usleep ((gulong) stall_ms * 1000);
  zookeeper_close (zh);
  zkr__op_handle_closed (session, zh, handle_ctx->generation);
  g_free (handle_ctx);
}

/* Worker thread (or the finalizing thread once the worker is gone), no
 * lock held. */
void
zkr__session_handle_close (ZkrSession *session)
{
  ZkrHandleContext *handle_ctx;
  zhandle_t *zh;

  g_mutex_lock (&session->lock);
  zh = handle_steal_locked (session, &handle_ctx);
  g_mutex_unlock (&session->lock);
  if (zh != NULL)
    handle_close_taken (session, zh, handle_ctx);
  else
    g_free (handle_ctx);
}

typedef struct {
  ZkrSession *session;
  zhandle_t *zh;
  ZkrHandleContext *handle_ctx;
} HandleClosing;

static gboolean open_fresh_after_close (gpointer data);

static gpointer
handle_closer_main (gpointer data)
{
  HandleClosing *closing = data;
  ZkrSession *session = closing->session;

  handle_close_taken (session, closing->zh, closing->handle_ctx);
  g_free (closing);
  /* Behind everything the old handle answered (session_reopen). */
  zkr__session_post (session, open_fresh_after_close, session, NULL);
  g_mutex_lock (&session->lock);
  session->closers--;
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
  return NULL;
}

/* Turn held, no lock held: closes the handle on a thread of its own and
 * returns at once: TRUE when there was one (its closer then posts
 * open_fresh_after_close). zookeeper_close() waits for the server's answer to the
 * closeSession it sends while its connection is up: up to 1.5 s (with a
 * 4 s session timeout) when nothing answers, as on a connection whose
 * session another client took over and closed, which stays open on a
 * follower until then (the LOST found through a request answered "session
 * expired"). Closed on the turn, that wait stopped every deadline timer of
 * the session and every call's start (they need the turn), and a caller
 * standing in that ran the LOST returned only after it: an acquire
 * answered SESSION_EXPIRED 1.5 s after a 1 s deadline. The session is
 * freed only once every such closer ended (it posts to the session). */
static gboolean
handle_close_detached (ZkrSession *session)
{
  HandleClosing *closing = g_new0 (HandleClosing, 1);

  closing->session = session;
  g_mutex_lock (&session->lock);
  closing->zh = handle_steal_locked (session, &closing->handle_ctx);
  if (closing->zh != NULL)
    session->closers++;
  g_mutex_unlock (&session->lock);
  if (closing->zh == NULL)
    {
      g_free (closing->handle_ctx);
      g_free (closing);
      return FALSE;
    }
  g_thread_unref (g_thread_new ("zkr-close", handle_closer_main, closing));
  return TRUE;
}

void
zkr__session_handle_wait_closers (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  while (session->closers != 0)
    g_cond_wait (&session->cond, &session->lock);
  g_mutex_unlock (&session->lock);
}

zhandle_t *
zkr__session_handle_lock (ZkrSession *session, gint64 *session_id, guint *generation)
{
  g_mutex_lock (&session->lock);
  if (session->zh == NULL)
    {
      g_mutex_unlock (&session->lock);
      return NULL;
    }
  if (session_id != NULL)
    *session_id = session->handle_session_id;
  if (generation != NULL)
    *generation = session->generation;
  return session->zh;
}

void
zkr__session_handle_unlock (ZkrSession *session)
{
  g_mutex_unlock (&session->lock);
}

static gboolean reopen_tick (gpointer data);

/* Worker thread: starts a fresh session (the old handle is gone); when the
 * client cannot even be created, retries with the policy's backoff (never
 * giving up while the session is open). */
static void
session_open_fresh (ZkrSession *session)
{
  g_autoptr (GError) error = NULL;
  guint sleep_ms = 0;
  gint64 elapsed_ms;

  if (zkr_session_get_state (session) == ZKR_SESSION_STATE_CLOSED)
    return;
  if (session->reopen_attempt == 0)
    session->reopen_started = g_get_monotonic_time ();
  if (zkr__session_handle_open (session, &error))
    {
      session->reopen_attempt = 0;
      return;
    }
  elapsed_ms = (g_get_monotonic_time () - session->reopen_started) / 1000;
  if (!zkr_retry_policy_allow (session->options->retry, session->reopen_attempt,
                               elapsed_ms, g_random_int (), &sleep_ms))
    sleep_ms = 5000;
  session->reopen_attempt++;
  zkr__debug ("reopening the session failed (%s); next try in %u ms", error->message, sleep_ms);
  session->reopen_timer = timer_start (session, sleep_ms, reopen_tick);
}

/* Worker thread. After LOST: drop the old handle and start a fresh
 * session. With an old handle, its closer posts the fresh start once the
 * close is over (handle_close_detached): everything the old handle still
 * answers (its calls failed ZCLOSING, or completed after it) then reaches
 * the worker before any event of the fresh session, as when the close ran
 * here. */
static void
session_reopen (ZkrSession *session)
{
  zkr__session_handle_timers_stop (session);
  if (!handle_close_detached (session))
    session_open_fresh (session);
}
static gboolean
reopen_tick (gpointer data)
{
  ZkrSession *session = data;

  session->reopen_timer = 0;
  session_open_fresh (session);
  return G_SOURCE_REMOVE;
}

static gboolean
open_fresh_after_close (gpointer data)
{
  session_open_fresh (data);
  return G_SOURCE_REMOVE;
}

/* ---- ZooKeeper events (worker thread) ----------------------------- */

static void
session_declare_lost (ZkrSession *session, const char *why)
{
  zkr__debug ("session 0x%" G_GINT64_MODIFIER "x lost: %s", session->session_id, why);
  if (zkr__session_set_state (session, ZKR_SESSION_STATE_LOST))
    session_reopen (session);
}

typedef struct {
  ZkrSession *session;
  gint64 session_id;
  guint generation;
} ExpiredNote;

static gboolean
expired_note_run (gpointer data)
{
  ExpiredNote *note = data;
  ZkrSession *session = note->session;
  gboolean same;

  g_mutex_lock (&session->lock);
  /* The same handle, and the session it has now (or had not yet when the
   * request went out: the first session of that handle). */
  if (note->generation != 0)
    same = session->zh != NULL && session->generation == note->generation &&
           (note->session_id == 0 || note->session_id == session->handle_session_id);
  else
    same = session->zh != NULL && session->session_id == note->session_id;
  g_mutex_unlock (&session->lock);
  if (same && (zkr__session_state_is_connected (zkr_session_get_state (session)) ||
               zkr_session_get_state (session) == ZKR_SESSION_STATE_SUSPENDED))
    session_declare_lost (session, "a request was answered: session expired");
  return G_SOURCE_REMOVE;
}

void
zkr__session_handle_note_expired (ZkrSession *session, gint64 session_id, guint generation)
{
  ExpiredNote *note = g_new0 (ExpiredNote, 1);

  note->session = session;
  note->session_id = session_id;
  note->generation = generation;
  zkr__session_post (session, expired_note_run, note, g_free);
}

static gboolean
deadline_tick (gpointer data)
{
  ZkrSession *session = data;

  session->deadline_timer = 0;
  if (zkr_session_get_state (session) == ZKR_SESSION_STATE_SUSPENDED)
    session_declare_lost (session, "suspended for the whole session timeout");
  return G_SOURCE_REMOVE;
}

static void
on_connected (ZkrSession *session, zhandle_t *zh)
{
  const clientid_t *client = zoo_client_id (zh);
  ZkrSessionState old;
  gint64 previous_id, opened;
  int timeout_ms = zoo_recv_timeout (zh);

  g_mutex_lock (&session->lock);
  old = session->state;
  previous_id = session->session_id;
  session->session_id = client->client_id;
  session->handle_session_id = client->client_id;
  session->timeout_ms = timeout_ms;
  opened = session->handle_opened;
  g_mutex_unlock (&session->lock);

  zkr__executor_timer_clear (session->executor, &session->deadline_timer);
  if (old == ZKR_SESSION_STATE_CONNECTING || old == ZKR_SESSION_STATE_LOST)
    {
      /* A new session: the server started its timer after we asked for
       * it, so the time we asked is a safe start for the clock. */
      zkr__session_clock_reset (session, opened);
      zkr__session_set_state (session, ZKR_SESSION_STATE_CONNECTED);
    }
  else if (old == ZKR_SESSION_STATE_SUSPENDED && previous_id == client->client_id)
    zkr__session_set_state (session, ZKR_SESSION_STATE_RECONNECTED);
  else if (old == ZKR_SESSION_STATE_SUSPENDED)
    {
      zkr__session_clock_reset (session, opened);
      zkr__session_set_state (session, ZKR_SESSION_STATE_LOST);
      zkr__session_set_state (session, ZKR_SESSION_STATE_CONNECTED);
    }
  if (zkr__session_state_is_connected (zkr_session_get_state (session)))
    ping_start (session, timeout_ms);
}

static void
on_disconnected (ZkrSession *session)
{
  gint64 deadline, now;
  int timeout_ms;

  if (!zkr__session_state_is_connected (zkr_session_get_state (session)))
    return;
  zkr__executor_timer_clear (session->executor, &session->ping_timer);
  zkr__session_set_state (session, ZKR_SESSION_STATE_SUSPENDED);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  /* LOST once the server may have expired us: T after the last request it
   * answered was sent. */
  deadline = zkr_session_get_last_ok_send (session) + (gint64) timeout_ms * 1000;
  now = g_get_monotonic_time ();
  zkr__executor_timer_clear (session->executor, &session->deadline_timer);
  session->deadline_timer = timer_start (session,
                                         deadline > now ? (guint) ((deadline - now + 999) / 1000) : 0,
                                         deadline_tick);
}

static void
on_auth_failed (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  session->auth_failed = TRUE;
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
  /* The handle is dead for good; a fresh one would fail the same way, so
   * report LOST and stop (wait_connected reports ZKR_ERROR_AUTH). */
  zkr__executor_timer_clear (session->executor, &session->ping_timer);
  zkr__executor_timer_clear (session->executor, &session->deadline_timer);
  zkr__session_set_state (session, ZKR_SESSION_STATE_LOST);
}

static void
on_zk_state (ZkrSession *session, guint generation, int zk_state)
{
  zhandle_t *zh;

  g_mutex_lock (&session->lock);
  zh = session->zh;
  if (generation != session->generation || zh == NULL ||
      session->state == ZKR_SESSION_STATE_CLOSED)
    {
      g_mutex_unlock (&session->lock);
      return;
    }
  g_mutex_unlock (&session->lock);

  if (zk_state == ZOO_CONNECTED_STATE)
    on_connected (session, zh);
  else if (zk_state == ZOO_EXPIRED_SESSION_STATE)
    {
      if (zkr_session_get_state (session) == ZKR_SESSION_STATE_CONNECTING)
        session_reopen (session);
      else
        session_declare_lost (session, "expired by the server");
    }
  else if (zk_state == ZOO_AUTH_FAILED_STATE)
    on_auth_failed (session);
  else
    on_disconnected (session);
}



/* One allocation per event: its path inline. */
typedef struct {
  ZkrSession *session;
  guint generation;
  int type;
  int state;
  gboolean has_path;
  char path[];
} HandleEvent;

static gboolean
handle_event_dispatch (gpointer data)
{
  HandleEvent *event = data;

  if (event->type == ZOO_SESSION_EVENT)
    on_zk_state (event->session, event->generation, event->state);
  else
    zkr__watches_dispatch (event->session, event->generation, event->type,
                           event->has_path ? event->path : NULL);
  return G_SOURCE_REMOVE;
}

/* ZooKeeper's completion thread: must not block; only posts, and sends the
 * listings of listing watches (their replies then wake the worker, so the
 * event itself need not when no plain watch waits for it). */
static void
session_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  ZkrHandleContext *handle_ctx = ctx;
  ZkrSession *session = handle_ctx->session;
  gsize path_size = path != NULL ? strlen (path) + 1 : 1;
  HandleEvent *event = g_malloc (sizeof (HandleEvent) + path_size);
  ZkrWatchAnswers listings = { NULL, NULL };
  gboolean plain = TRUE;

  (void) zh;
  event->session = session;
  event->generation = handle_ctx->generation;
  event->type = type;
  event->state = state;
  event->has_path = path != NULL;
  memcpy (event->path, path != NULL ? path : "", path_size);
  if (type != ZOO_SESSION_EVENT && path != NULL)
    plain = zkr__watches_fire_listings (session, handle_ctx->generation, type, path, &listings);
  /* The event first: a listing's reply is handled after it. */
  if (plain || listings.first == NULL)
    zkr__session_post (session, handle_event_dispatch, event, g_free);
  else
    zkr__session_post_quiet (session, handle_event_dispatch, event, g_free);
  zkr__watches_send_listings (session, &listings);
}
