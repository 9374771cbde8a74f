/* zkr: the session manager's state machine (docs/design.md §2): its
 * states and the one place they change, state listeners (internal ones on
 * the worker, public ones in their own GMainContexts), the liveness clock,
 * construction, close and free, and the getters. The handle and its events
 * are in session-handle.c, the wait for the connection in session-wait.c,
 * the watches in watches.c, the worker in the
 * executor (executor.c), which the session's posts and timers go through.
 *
 * Threads: every transition happens on the worker, holding the turn,
 * through zkr__session_set_state(); public listeners run in their captured
 * contexts. */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "error-private.h"
#include "log.h"
#include "nodes.h"
#include "notifier.h"
#include "path.h"
#include "ref.h"
#include "session-internal.h"
#include "wait.h"

typedef struct {
  guint id;
  ZkrSessionStateFunc func;
  gpointer user_data;
} InternalListener;

static const char *const state_names[] = {
  [ZKR_SESSION_STATE_CONNECTING] = "CONNECTING",
  [ZKR_SESSION_STATE_CONNECTED] = "CONNECTED",
  [ZKR_SESSION_STATE_SUSPENDED] = "SUSPENDED",
  [ZKR_SESSION_STATE_RECONNECTED] = "RECONNECTED",
  [ZKR_SESSION_STATE_LOST] = "LOST",
  [ZKR_SESSION_STATE_CLOSED] = "CLOSED",
};

const char *
zkr_session_state_name (ZkrSessionState state)
{
  if ((gsize) state >= G_N_ELEMENTS (state_names))
    return "INVALID";
  return state_names[state];
}

gboolean
zkr__session_state_is_connected (ZkrSessionState state)
{
  return state == ZKR_SESSION_STATE_CONNECTED || state == ZKR_SESSION_STATE_RECONNECTED;
}

/* The allowed edges of the table in session.h. */
static gboolean
transition_allowed (ZkrSessionState from, ZkrSessionState to)
{
  if (from == ZKR_SESSION_STATE_CLOSED)
    return FALSE;
  switch (to)
    {
    case ZKR_SESSION_STATE_CONNECTED:
      return from == ZKR_SESSION_STATE_CONNECTING || from == ZKR_SESSION_STATE_LOST;
    case ZKR_SESSION_STATE_SUSPENDED:
      return zkr__session_state_is_connected (from);
    case ZKR_SESSION_STATE_RECONNECTED:
      return from == ZKR_SESSION_STATE_SUSPENDED;
    case ZKR_SESSION_STATE_LOST:
      return zkr__session_state_is_connected (from) || from == ZKR_SESSION_STATE_SUSPENDED;
    case ZKR_SESSION_STATE_CLOSED:
      return TRUE;
    case ZKR_SESSION_STATE_CONNECTING:
    default:
      return FALSE;
    }
}

/* ---- the worker: the executor's calls, for the session's users ---- */

void
zkr__session_post (ZkrSession *session, GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  zkr__executor_post (session->executor, func, data, destroy);
}

void
zkr__session_post_quiet (ZkrSession *session, GSourceFunc func, gpointer data,
                         GDestroyNotify destroy)
{
  zkr__executor_post_quiet (session->executor, func, data, destroy);
}

void
zkr__session_post_in_place (ZkrSession *session, GSourceFunc func, gpointer data,
                            GDestroyNotify destroy, gboolean wake)
{
  zkr__executor_post_in_place (session->executor, func, data, destroy, wake);
}

gboolean
zkr__session_in_place (ZkrSession *session)
{
  return zkr__executor_in_place (session->executor);
}

gboolean
zkr__session_code_running (void)
{
  return zkr__executor_code_running ();
}

void
zkr__session_stand_in_begin (ZkrSession *session)
{
  zkr__executor_stand_in_begin (session->executor);
}

void
zkr__session_stand_in_end (ZkrSession *session)
{
  zkr__executor_stand_in_end (session->executor);
}

void
zkr__session_block_standing_in (ZkrSession *session, ZkrWait *wait, gint64 deadline)
{
  zkr__executor_block_standing_in (session->executor, wait, deadline);
}

GMainContext *
zkr__session_get_worker_context (ZkrSession *session)
{
  return zkr__executor_get_context (session->executor);
}

gboolean
zkr__session_in_worker (ZkrSession *session)
{
  return zkr__executor_in_worker (session->executor);
}

guint
zkr__session_timer_add (ZkrSession *session, guint delay_ms, guint slack_ms, GSourceFunc func,
                        gpointer data)
{
  return zkr__executor_timer_add (session->executor, delay_ms, slack_ms, func, data, NULL);
}

guint
zkr__session_timer_add_full (ZkrSession *session, guint delay_ms, guint slack_ms,
                             GSourceFunc func, gpointer data, GDestroyNotify destroy)
{
  return zkr__executor_timer_add (session->executor, delay_ms, slack_ms, func, data, destroy);
}

void
zkr__session_timer_remove (ZkrSession *session, guint id)
{
  zkr__executor_timer_remove (session->executor, id);
}

/* Reads @session only when there is a timer: an owner with none may not
 * have a session yet. */
void
zkr__session_timer_clear (ZkrSession *session, guint *id)
{
  if (*id != 0)
    zkr__executor_timer_remove (session->executor, *id);
  *id = 0;
}

/* ---- listeners ---------------------------------------------------- */

/* NULL once the last reference is gone (the session being finalized):
 * a listener or a watch delivery then has nobody to tell. */
ZkrSession *
zkr__session_try_ref (ZkrSession *session)
{
  return zkr__ref_try (&session->ref) ? session : NULL;
}

/* A session being finalized still closes and so still transitions to
 * CLOSED; listeners are not told then, since nobody holds it any more. */
static gpointer
session_try_ref (gpointer data)
{
  return zkr__session_try_ref (data);
}

static void
state_marshal (GCallback func, gpointer source, int event, gpointer user_data)
{
  ((ZkrSessionStateFunc) (void (*) (void)) func) (source, (ZkrSessionState) event, user_data);
}

guint
zkr_session_add_state_listener (ZkrSession *session,
                                ZkrSessionStateFunc func,
                                gpointer user_data,
                                GDestroyNotify destroy)
{
  g_return_val_if_fail (session != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__notifier_add (session->listeners, (GCallback) (void (*) (void)) func, user_data, destroy);
}

void
zkr_session_remove_state_listener (ZkrSession *session, guint listener_id)
{
  g_return_if_fail (session != NULL);
  zkr__notifier_remove (session->listeners, listener_id);
}

guint
zkr__session_add_internal_listener (ZkrSession *session,
                                    ZkrSessionStateFunc func,
                                    gpointer user_data)
{
  InternalListener entry = { 0, func, user_data };

  g_mutex_lock (&session->lock);
  entry.id = ++session->next_id;
  g_array_append_val (session->internal_listeners, entry);
  g_mutex_unlock (&session->lock);
  return entry.id;
}

/* Under the lock: the index of listener @id, or -1 (never added, or
 * removed). Ids only grow, so the array is in id order: a binary search,
 * not a walk (an acquire in flight has a listener each: thousands at
 * once). */
static gint
internal_listener_find_locked (ZkrSession *session, guint id)
{
  GArray *listeners = session->internal_listeners;
  guint low = 0, high = listeners->len;

  while (low < high)
    {
      guint mid = low + (high - low) / 2;
      InternalListener *entry = &g_array_index (listeners, InternalListener, mid);

      if (entry->id == id)
        return entry->func != NULL ? (gint) mid : -1;
      if (entry->id < id)
        low = mid + 1;
      else
        high = mid;
    }
  return -1;
}

/* Under the lock: drops the holes once they are half of the array (so a
 * removal costs O(log n), amortized). */
static void
internal_listeners_compact_locked (ZkrSession *session)
{
  GArray *listeners = session->internal_listeners;
  guint kept = 0;

  if (session->internal_holes < 16 || session->internal_holes * 2 < listeners->len)
    return;
  for (guint i = 0; i < listeners->len; i++)
    if (g_array_index (listeners, InternalListener, i).func != NULL)
      g_array_index (listeners, InternalListener, kept++) = g_array_index (listeners,
                                                                           InternalListener, i);
  g_array_set_size (listeners, kept);
  session->internal_holes = 0;
}

void
zkr__session_remove_internal_listener (ZkrSession *session, guint id)
{
  gint index;

  g_mutex_lock (&session->lock);
  index = internal_listener_find_locked (session, id);
  if (index >= 0)
    {
      g_array_index (session->internal_listeners, InternalListener, index).func = NULL;
      session->internal_holes++;
      internal_listeners_compact_locked (session);
    }
  g_mutex_unlock (&session->lock);
}

static gboolean
internal_listener_is_registered (ZkrSession *session, guint id)
{
  gboolean found;

  g_mutex_lock (&session->lock);
  found = internal_listener_find_locked (session, id) >= 0;
  g_mutex_unlock (&session->lock);
  return found;
}

/* ---- the state funnel --------------------------------------------- */

/* Worker thread, no lock held. The only place the state changes. Internal
 * listeners (recipes) hear of it first, synchronously, so that a lock is
 * marked in doubt or lost before any user callback can run. */
gboolean
zkr__session_set_state (ZkrSession *session, ZkrSessionState state)
{
  ZkrSessionState old;
  g_autoptr (GArray) internal = NULL;

  g_mutex_lock (&session->lock);
  old = session->state;
  if (!transition_allowed (old, state))
    {
      g_mutex_unlock (&session->lock);
      zkr__debug ("session 0x%" G_GINT64_MODIFIER "x: refused %s -> %s",
               session->session_id, zkr_session_state_name (old),
               zkr_session_state_name (state));
      return FALSE;
    }
  session->state = state;
  if (state == ZKR_SESSION_STATE_LOST)
    session->lost_count++;
  g_cond_broadcast (&session->cond);
  internal = g_array_copy (session->internal_listeners);
  g_mutex_unlock (&session->lock);

  zkr__debug ("session 0x%" G_GINT64_MODIFIER "x: %s -> %s", session->session_id,
           zkr_session_state_name (old), zkr_session_state_name (state));
  for (guint i = 0; i < internal->len; i++)
    {
      InternalListener *entry = &g_array_index (internal, InternalListener, i);

      /* An earlier listener may have removed this one (and freed its
       * data): an acquire failing on LOST abandons its protected create,
       * whose connection wait is further down this copy. A hole was
       * removed before the copy. */
      if (entry->func != NULL && internal_listener_is_registered (session, entry->id))
        entry->func (session, state, entry->user_data);
    }
  zkr__notifier_emit (session->listeners, state);
  return TRUE;
}

/* ---- the liveness clock ------------------------------------------- */

void
zkr__session_note_answer (ZkrSession *session, gint64 send_time)
{
  g_mutex_lock (&session->clock_lock);
  if (send_time > session->last_ok_send)
    session->last_ok_send = send_time;
  g_mutex_unlock (&session->clock_lock);
}

void
zkr__session_clock_reset (ZkrSession *session, gint64 send_time)
{
  g_mutex_lock (&session->clock_lock);
  session->last_ok_send = send_time;
  g_mutex_unlock (&session->clock_lock);
}

gint64
zkr_session_get_last_ok_send (ZkrSession *session)
{
  gint64 value;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->clock_lock);
  value = session->last_ok_send;
  g_mutex_unlock (&session->clock_lock);
  return value;
}

static int
liveness_margin_ms (ZkrSession *session, int timeout_ms)
{
  if (session->options->margin_ms >= 0)
    return session->options->margin_ms;
  return MIN (timeout_ms / 10, 1000);
}

gint64
zkr_session_get_safe_deadline (ZkrSession *session)
{
  gint64 last_ok_send;
  int timeout_ms;
  double usable;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  last_ok_send = zkr_session_get_last_ok_send (session);
  if (last_ok_send == 0)
    return 0;
  /* docs/design.md §2.3: the server expires us no earlier than T after it
   * last heard from us, which was no earlier than last_ok_send; shrink T by
   * the worst clock-rate difference and keep a margin to stop work in. */
  usable = timeout_ms * 1000.0 * (1.0 - session->options->drift);
  return last_ok_send + (gint64) usable - (gint64) liveness_margin_ms (session, timeout_ms) * 1000;
}

/* ---- construction ------------------------------------------------- */

/* Sessions made and not yet freed: after its last unref a session may
 * still be closing on its worker. */
static GMutex live_lock;
static GCond live_cond;
static GList *live_sessions; /* of ZkrSession *, not owned */

static void
live_sessions_add (ZkrSession *session)
{
  g_mutex_lock (&live_lock);
  live_sessions = g_list_prepend (live_sessions, session);
  g_mutex_unlock (&live_lock);
}

static void
live_sessions_remove (ZkrSession *session)
{
  g_mutex_lock (&live_lock);
  live_sessions = g_list_remove (live_sessions, session);
  if (live_sessions == NULL)
    g_cond_broadcast (&live_cond);
  g_mutex_unlock (&live_lock);
}


static void
session_setup_acl (ZkrSession *session)
{
  static struct Id world = { (char *) "world", (char *) "anyone" };
  static struct Id auth = { (char *) "auth", (char *) "" };

  switch (session->options->acl)
    {
    case ZKR_ACL_CREATOR_ALL:
      session->acl = ZOO_CREATOR_ALL_ACL;
      break;
    case ZKR_ACL_CREATOR_ALL_WORLD_READ:
      session->acl.count = 2;
      session->acl.data = g_new0 (struct ACL, 2);
      session->acl.data[0].perms = ZOO_PERM_ALL;
      session->acl.data[0].id = auth;
      session->acl.data[1].perms = ZOO_PERM_READ;
      session->acl.data[1].id = world;
      session->acl_owned = TRUE;
      break;
    case ZKR_ACL_OPEN:
    default:
      session->acl = ZOO_OPEN_ACL_UNSAFE;
      break;
    }
}

ZkrSession *
zkr_session_new (const ZkrSessionOptions *options, GError **error)
{
  ZkrSession *session;
  ZkrHosts hosts = { 0 };

  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!zkr__session_options_validate (options, &hosts, error))
    {
      zkr__hosts_clear (&hosts);
      return NULL;
    }
  zkr__log_init ();
  session = g_new0 (ZkrSession, 1);
  live_sessions_add (session);
  g_atomic_ref_count_init (&session->ref);
  session->options = zkr_session_options_copy (options);
  session->hosts = hosts;
  session_setup_acl (session);
  g_mutex_init (&session->lock);
  g_cond_init (&session->cond);
  g_mutex_init (&session->clock_lock);
  session->state = ZKR_SESSION_STATE_CONNECTING;
  session->timeout_ms = options->session_timeout_ms;
  session->internal_listeners = g_array_new (FALSE, FALSE, sizeof (InternalListener));
  session->listeners = zkr__notifier_new (session, session_try_ref,
                                          (void (*) (gpointer)) zkr_session_unref, state_marshal);
  session->watches = zkr__watches_new ();
  session->executor = zkr__executor_new ("zkr-session", &session->ref,
                                         (GDestroyNotify) zkr_session_unref, session);
  if (!zkr__session_handle_open (session, error))
    {
      session->state = ZKR_SESSION_STATE_CLOSED;
      zkr_session_unref (session);
      return NULL;
    }
  return session;
}

ZkrSession *
zkr_session_connect (const ZkrSessionOptions *options, GError **error)
{
  ZkrSession *session;

  g_return_val_if_fail (options != NULL, NULL);
  session = zkr_session_new (options, error);
  if (session == NULL)
    return NULL;
  if (!zkr_session_wait_connected (session, options->connection_timeout_ms, NULL, error))
    {
      zkr_session_close (session);
      zkr_session_unref (session);
      return NULL;
    }
  return session;
}

/* ---- close and free ----------------------------------------------- */

void
zkr__session_close_in_worker (ZkrSession *session)
{
  zkr__session_handle_timers_stop (session);
  if (zkr_session_get_state (session) != ZKR_SESSION_STATE_CLOSED)
    {
      zkr__session_set_state (session, ZKR_SESSION_STATE_CLOSED);
      /* Closing the handle sends closeSession: the server deletes our
       * ephemeral nodes now instead of after the timeout. */
      zkr__session_handle_close (session);
    }
  g_mutex_lock (&session->lock);
  session->close_done = TRUE;
  g_cond_broadcast (&session->cond);
  g_mutex_unlock (&session->lock);
}

static gboolean
close_dispatch (gpointer data)
{
  zkr__session_close_in_worker (data);
  return G_SOURCE_REMOVE;
}

void
zkr_session_close (ZkrSession *session)
{
  g_return_if_fail (session != NULL);
  if (zkr__session_in_worker (session))
    {
      zkr__session_close_in_worker (session);
      return;
    }
  zkr__session_post (session, close_dispatch, session, NULL);
  g_mutex_lock (&session->lock);
  while (!session->close_done)
    g_cond_wait (&session->cond, &session->lock);
  g_mutex_unlock (&session->lock);
}

static void
session_free (ZkrSession *session)
{
  /* First: from here on the diagnostics of zkr__session_wait_all_freed()
   * no longer read it. */
  live_sessions_remove (session);
  /* An old handle closed off the turn posts to the session until then. */
  zkr__session_handle_wait_closers (session);
  zkr__notifier_free (session->listeners);
  g_array_unref (session->internal_listeners);
  g_hash_table_unref (session->watches);
  zkr__executor_free (session->executor);
  if (session->acl_owned)
    g_free (session->acl.data);
  zkr__hosts_clear (&session->hosts);
  zkr_session_options_free (session->options);
  g_free (session->rewrite_prefix);
  g_mutex_clear (&session->lock);
  g_cond_clear (&session->cond);
  g_mutex_clear (&session->clock_lock);
  g_free (session);
}

ZkrSession *
zkr_session_ref (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  g_atomic_ref_count_inc (&session->ref);
  return session;
}

/* Worker, after the last unref: closes the session if it is still open,
 * waits for the closers of old handles (a handle left at LOST closes on a
 * thread of its own; what it had in flight is answered by posts to this
 * worker once its close returned: posted behind the quit they were
 * dropped, and their owners, a guaranteed delete say, leaked), then stops
 * behind what all that queued (the recipes' reactions to CLOSED: they
 * hold no references) and frees the session as it ends, detached. The
 * closers need nothing of the worker. */
static gboolean
last_unref_dispatch (gpointer data)
{
  ZkrSession *session = data;

  zkr__session_close_in_worker (session);
  zkr__session_handle_wait_closers (session);
  zkr__executor_stop_detached (session->executor, (GDestroyNotify) session_free, session);
  return G_SOURCE_REMOVE;
}

void
zkr_session_unref (ZkrSession *session)
{
  g_return_if_fail (session != NULL);
  if (!g_atomic_ref_count_dec (&session->ref))
    return;
  /* Never waits (docs/design.md §2.6). */
  zkr__session_post (session, last_unref_dispatch, session, NULL);
}

gboolean
zkr__session_wait_all_freed (int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean none;

  g_mutex_lock (&live_lock);
  while (live_sessions != NULL && g_cond_wait_until (&live_cond, &live_lock, deadline))
    ;
  none = live_sessions == NULL;
  /* What the tests need to find the one left: the references (0: closing
   * on its worker) and the state. */
  for (GList *l = live_sessions; l != NULL; l = l->next)
    {
      ZkrSession *session = l->data;

      g_printerr ("zkr: session %p to \"%s\" not freed: %u reference(s), %s\n", session,
                  session->hosts.hosts, g_atomic_int_get ((gint *) &session->ref),
                  zkr_session_state_name (zkr_session_get_state (session)));
    }
  g_mutex_unlock (&live_lock);
  return none;
}

/* ---- getters ------------------------------------------------------ */

gboolean
zkr__session_has_namespace (ZkrSession *session)
{
  const char *name_space = session->options->name_space;

  return name_space != NULL && name_space[0] != '\0';
}

ZkrSessionState
zkr_session_get_state (ZkrSession *session)
{
  ZkrSessionState state;

  g_return_val_if_fail (session != NULL, ZKR_SESSION_STATE_CLOSED);
  g_mutex_lock (&session->lock);
  state = session->state;
  g_mutex_unlock (&session->lock);
  return state;
}

gboolean
zkr_session_is_connected (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, FALSE);
  return zkr__session_state_is_connected (zkr_session_get_state (session));
}

gint64
zkr_session_get_id (ZkrSession *session)
{
  gint64 id;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  id = session->session_id;
  g_mutex_unlock (&session->lock);
  return id;
}

int
zkr_session_get_timeout_ms (ZkrSession *session)
{
  int timeout_ms;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  timeout_ms = session->timeout_ms;
  g_mutex_unlock (&session->lock);
  return timeout_ms;
}

guint
zkr_session_get_lost_count (ZkrSession *session)
{
  guint count;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  count = session->lost_count;
  g_mutex_unlock (&session->lock);
  return count;
}

static char *
format_sockaddr (const struct sockaddr_storage *address)
{
  char text[INET6_ADDRSTRLEN] = "";

  if (address->ss_family == AF_INET)
    {
      const struct sockaddr_in *in = (const struct sockaddr_in *) address;
      inet_ntop (AF_INET, &in->sin_addr, text, sizeof text);
      return g_strdup_printf ("%s:%u", text, ntohs (in->sin_port));
    }
  if (address->ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) address;
      inet_ntop (AF_INET6, &in6->sin6_addr, text, sizeof text);
      return g_strdup_printf ("[%s]:%u", text, ntohs (in6->sin6_port));
    }
  return NULL;
}

char *
zkr_session_dup_connected_host (ZkrSession *session)
{
  struct sockaddr_storage address;
  socklen_t len = sizeof address;
  char *text = NULL;

  g_return_val_if_fail (session != NULL, NULL);
  g_mutex_lock (&session->lock);
  if (session->zh != NULL && zkr__session_state_is_connected (session->state) &&
      zookeeper_get_connected_host (session->zh, (struct sockaddr *) &address, &len) != NULL)
    text = format_sockaddr (&address);
  g_mutex_unlock (&session->lock);
  return text;
}

const char *
zkr_session_get_client_id (ZkrSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->options->client_id;
}

char *
zkr__session_resolve_path (ZkrSession *session, const char *path)
{
  return zkr__path_prefix_namespace (session->options->name_space, path);
}

const struct ACL_vector *
zkr__session_get_acl_vector (ZkrSession *session)
{
  return &session->acl;
}

gsize
zkr__session_get_chroot_len (ZkrSession *session)
{
  return session->hosts.chroot != NULL ? strlen (session->hosts.chroot) : 0;
}

ZkrRetryPolicy *
zkr__session_get_retry_policy (ZkrSession *session)
{
  return session->options->retry;
}

const ZkrSessionOptions *
zkr__session_get_options (ZkrSession *session)
{
  return session->options;
}

void
zkr__session_pending_deletes_add (ZkrSession *session, int delta)
{
  g_mutex_lock (&session->lock);
  session->pending_deletes = (guint) ((int) session->pending_deletes + delta);
  g_mutex_unlock (&session->lock);
}

guint
zkr__session_get_pending_deletes (ZkrSession *session)
{
  guint count;

  g_return_val_if_fail (session != NULL, 0);
  g_mutex_lock (&session->lock);
  count = session->pending_deletes;
  g_mutex_unlock (&session->lock);
  return count;
}


/* The tests' fault hooks, consulted by every request (op.c): their
 * setters are in session-test.c, linked only into the tests. */

gboolean
zkr__session_test_take_drop_create_reply (ZkrSession *session)
{
  gboolean drop;

  g_mutex_lock (&session->lock);
  drop = session->drop_next_create_reply;
  session->drop_next_create_reply = FALSE;
  g_mutex_unlock (&session->lock);
  return drop;
}

gboolean
zkr__session_test_take_drop_set_reply (ZkrSession *session)
{
  gboolean drop;

  g_mutex_lock (&session->lock);
  drop = session->drop_next_set_reply;
  session->drop_next_set_reply = FALSE;
  g_mutex_unlock (&session->lock);
  return drop;
}

gboolean
zkr__session_test_rewrite_applies (ZkrSession *session, const char *path)
{
  gboolean applies;

  if (g_atomic_int_get (&session->rewrite_left) == 0)
    return FALSE;
  g_mutex_lock (&session->lock);
  applies = session->rewrite_prefix == NULL ||
            (path != NULL && g_str_has_prefix (path, session->rewrite_prefix));
  g_mutex_unlock (&session->lock);
  return applies;
}

gboolean
zkr__session_test_take_rewrite (ZkrSession *session, int *rc)
{
  gint left;

  do
    {
      left = g_atomic_int_get (&session->rewrite_left);
      if (left == 0)
        return FALSE;
    }
  while (left > 0 && !g_atomic_int_compare_and_exchange (&session->rewrite_left, left, left - 1));
  *rc = g_atomic_int_get (&session->rewrite_rc);
  g_atomic_int_inc (&session->rewritten);
  return TRUE;
}
