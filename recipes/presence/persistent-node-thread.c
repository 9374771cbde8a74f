/* zkr: the persistent node's own thread: one decision function that looks
 * at what is known (our path, whether it was checked, whether our data is
 * on it) and sends the one request that moves the node on, through the
 * public node and watch calls; every answer and event decides again
 * (docs/design.md, "Persistent node"). */
#include <string.h>

#include "context.h"
#include "log.h"
#include "persistent-node-private.h"

#include <zkr/error.h>
#include <zkr/watch.h>

/* A request that failed for a reason other than the session (an ACL, a
 * container parent reaped between its creation and ours) is tried again
 * after this pause rather than in a tight loop. */
#define RETRY_PAUSE_MS 500

static const char *const phase_names[] = {
  "IDLE", "OFFLINE", "CREATING", "CHECKING", "WRITING", "LIVE", "BLOCKED", "CLOSING", "DONE",
};

static void decide (ZkrPersistentCore *core);

static void
set_phase (ZkrPersistentCore *core, Phase phase)
{
  if (core->phase == phase)
    return;
  zkr__debug ("persistent node %s: %s -> %s", core->base_path, phase_names[core->phase],
           phase_names[phase]);
  core->phase = phase;
}

static gboolean
mode_is_sequential (ZkrCreateMode mode)
{
  return mode == ZKR_CREATE_PERSISTENT_SEQUENTIAL || mode == ZKR_CREATE_EPHEMERAL_SEQUENTIAL;
}

static gboolean
mode_is_ephemeral (ZkrCreateMode mode)
{
  return mode == ZKR_CREATE_EPHEMERAL || mode == ZKR_CREATE_EPHEMERAL_SEQUENTIAL;
}

/* The path is read by any thread (dup_actual_path, the listeners'
 * marshal) and written only here. */
static void
set_path (ZkrPersistentCore *core, const char *path)
{
  g_mutex_lock (&core->lock);
  g_free (core->path);
  core->path = g_strdup (path);
  g_mutex_unlock (&core->lock);
}

/* A timeout for one request: bounded, so that a request never outlives a
 * session state by much, and long enough for a slow server. */
static int
request_timeout_ms (ZkrPersistentCore *core)
{
  return MAX (zkr_session_get_timeout_ms (core->session), 2000);
}

/* ==== the node's thread ================================================ */

/* Every request's answer comes back through here: one fewer out, and the
 * thread ends once it is closed and nothing is. */
static void
request_done (ZkrPersistentCore *core)
{
  g_assert (core->outstanding > 0);
  core->outstanding--;
  if (core->phase == PHASE_DONE && core->outstanding == 0)
    g_main_loop_quit (core->loop);
}

static void
unwatch (ZkrPersistentCore *core)
{
  if (core->watch_id != 0)
    zkr_watch_remove (core->session, core->watch_id);
  core->watch_id = 0;
}

static gboolean
retry_fired (gpointer data)
{
  ZkrPersistentCore *core = data;

  core->retry_source = 0;
  if (core->phase == PHASE_OFFLINE)
    decide (core);
  return G_SOURCE_REMOVE;
}

/* A request failed: wait for the session to come back (its listener
 * decides again) or, if it is connected, for a short pause. */
static void
pause_after (ZkrPersistentCore *core, const GError *error)
{
  GSource *source;

  zkr__debug ("persistent node %s: %s", core->base_path, error->message);
  set_phase (core, PHASE_OFFLINE);
  if (zkr__persistent_node_closing_requested (core))
    {
      decide (core);
      return;
    }
  if (core->retry_source != 0)
    return;
  source = g_timeout_source_new (RETRY_PAUSE_MS);
  g_source_set_callback (source, retry_fired, core, NULL);
  core->retry_source = g_source_attach (source, core->context);
  g_source_unref (source);
}

/* The previous node of ours, if a re-creation made a new one beside it
 * (a sequential node re-made, an old session's node not yet reaped):
 * deleted, guaranteed, so that two of ours never stay. */
static void stale_deleted (GObject *source, GAsyncResult *result, gpointer data);

static void
delete_stale (ZkrPersistentCore *core, const char *path)
{
  zkr__debug ("persistent node %s: deleting our previous node %s", core->base_path, path);
  core->outstanding++;
  zkr_node_delete_full_async (core->session, path, -1, ZKR_DELETE_GUARANTEED,
                              request_timeout_ms (core), NULL, stale_deleted, core);
}

static void
stale_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrPersistentCore *core = data;
  g_autoptr (GError) error = NULL;

  (void) source;
  if (!zkr_node_delete_full_finish (core->session, result, &error) &&
      !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    zkr__debug ("persistent node %s: previous node: %s (going on in the background)",
             core->base_path, error->message);
  request_done (core);
}

/* ---- watch --------------------------------------------------------------- */

/* Our one watch fired, in the node's context: whatever it says, what we
 * knew is stale; a delete means our node is gone. */
static void
watch_fired (ZkrSession *session, const char *path, ZkrWatchEvent event, gpointer data)
{
  ZkrPersistentCore *core = data;

  (void) session;
  (void) path;
  core->watch_id = 0;
  if (core->phase == PHASE_DONE || core->phase == PHASE_CLOSING ||
      zkr__persistent_node_closing_requested (core))
    return;
  core->checked = FALSE;
  if (event == ZKR_WATCH_EVENT_DELETED)
    core->gone = TRUE;
  if (event == ZKR_WATCH_EVENT_SESSION_CLOSED)
    return;
  if (!core->busy)
    decide (core);
}

/* ---- create -------------------------------------------------------------- */

static void
create_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrPersistentCore *core = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *made = NULL;
  g_autofree char *previous = NULL;

  (void) source;
  core->busy = FALSE;
  g_mutex_lock (&core->lock);
  previous = g_strdup (core->path);
  g_mutex_unlock (&core->lock);
  if (zkr_node_create_full_finish (core->session, result, &made, NULL, &error))
    {
      zkr__debug ("persistent node %s: made %s", core->base_path, made);
      if (previous != NULL && !core->gone && strcmp (previous, made) != 0)
        delete_stale (core, previous);
      set_path (core, made);
      core->gone = FALSE;
      core->ours = TRUE;
      core->checked = FALSE;
      core->path_unique = core->protection || mode_is_sequential (core->mode);
      zkr__persistent_node_emit_created (core);
      zkr__persistent_node_mark_initialized (core);
    }
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS))
    {
      /* Our plain path is taken: by our own node (a create whose reply was
       * lost, a node of ours left from before) or someone else's; the
       * check tells, by the node's owner. */
      set_path (core, core->base_path);
      core->gone = FALSE;
      core->ours = FALSE;
      core->checked = FALSE;
      core->path_unique = FALSE;
      core->written_serial = 0;
    }
  else if (!core->protection && !mode_is_sequential (core->mode) &&
           (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS) ||
            g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT)))
    {
      /* The server may have made it: the check will see. (A protected
       * create cleans up what it may have made by itself.) */
      set_path (core, core->base_path);
      core->gone = FALSE;
      core->ours = FALSE;
      core->checked = FALSE;
      core->path_unique = FALSE;
      core->written_serial = 0;
      request_done (core);
      pause_after (core, error);
      return;
    }
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT))
    {
      /* Refused before it was sent (over ZooKeeper's size limit, which
       * new() and set_data() check first): every try would be refused the
       * same, so none is made until new data or a new connection; the
       * waiters hear why. */
      g_mutex_lock (&core->lock);
      if (core->init_failure == NULL)
        core->init_failure = g_error_copy (error);
      g_mutex_unlock (&core->lock);
      zkr__persistent_node_answer_waiters (core, error);
      set_phase (core, PHASE_OFFLINE);
      request_done (core);
      return;
    }
  else
    {
      request_done (core);
      pause_after (core, error);
      return;
    }
  request_done (core);
  decide (core);
}

static void
send_create (ZkrPersistentCore *core)
{
  ZkrCreateOptions options = { 0 };
  g_autoptr (GBytes) data = NULL;
  gsize len = 0;
  const void *bytes;

  unwatch (core);
  options.mode = core->mode;
  options.parents = ZKR_CREATE_PARENTS_CONTAINER;
  options.protection = core->protection;
  g_mutex_lock (&core->lock);
  data = g_bytes_ref (core->data);
  core->written_serial = core->data_serial;
  g_mutex_unlock (&core->lock);
  bytes = g_bytes_get_data (data, &len);
  set_phase (core, PHASE_CREATING);
  core->busy = TRUE;
  core->outstanding++;
  zkr_node_create_full_async (core->session, core->base_path, bytes, len, &options,
                              request_timeout_ms (core), NULL, create_answered, core);
}

/* ---- check ---------------------------------------------------------------- */

/* What the node holds is known: our data of that serial, or not ours. */
static void
note_data_found (ZkrPersistentCore *core, GBytes *data)
{
  g_mutex_lock (&core->lock);
  core->written_serial = g_bytes_equal (core->data, data) ? core->data_serial : 0;
  g_mutex_unlock (&core->lock);
}

/* The node at our path exists; is it ours? A persistent node always is;
 * an ephemeral one only if our current session owns it (a node of an
 * earlier session is going, with that session). */
static void
check_found (ZkrPersistentCore *core, GBytes *data, const ZkrStat *stat)
{
  gint64 session_id = zkr_session_get_id (core->session);

  core->gone = FALSE;
  if (mode_is_ephemeral (core->mode) && stat->ephemeral_owner != session_id)
    {
      if (core->path_unique)
        {
          /* Ours, of a session that is gone: make a new one now; the
           * old one is deleted once the new one is there. */
          zkr__debug ("persistent node %s: %s belongs to an earlier session 0x%" G_GINT64_MODIFIER
                   "x", core->base_path, core->path, stat->ephemeral_owner);
          unwatch (core);
          core->checked = FALSE;
          core->gone = FALSE;
          send_create (core);
          return;
        }
      zkr__debug ("persistent node %s: held by session 0x%" G_GINT64_MODIFIER "x, not ours: "
               "waiting for it to go", core->base_path, stat->ephemeral_owner);
      core->ours = FALSE;
      core->checked = TRUE;
      set_phase (core, PHASE_BLOCKED);
      return;
    }
  core->checked = TRUE;
  core->ours = TRUE;
  note_data_found (core, data);
  decide (core);
}

static void
check_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrPersistentCore *core = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  ZkrStat stat = { 0 };
  guint watch_id = 0;

  (void) source;
  core->busy = FALSE;
  bytes = zkr_watch_data_finish (core->session, result, &stat, &watch_id, &error);
  core->watch_id = watch_id;
  request_done (core);
  if (zkr__persistent_node_closing_requested (core))
    {
      decide (core);
      return;
    }
  if (bytes != NULL)
    check_found (core, bytes, &stat);
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      core->gone = TRUE;
      decide (core);
    }
  else
    pause_after (core, error);
}

static void
send_check (ZkrPersistentCore *core)
{
  g_autofree char *path = NULL;

  unwatch (core);
  g_mutex_lock (&core->lock);
  path = g_strdup (core->path);
  g_mutex_unlock (&core->lock);
  set_phase (core, PHASE_CHECKING);
  core->busy = TRUE;
  core->outstanding++;
  zkr_watch_data_async (core->session, path, watch_fired, core, NULL, request_timeout_ms (core),
                        NULL, check_answered, core);
}

/* ---- write ---------------------------------------------------------------- */

typedef struct {
  ZkrPersistentCore *core;
  guint64 serial;
} Write;

static void
write_answered (GObject *source, GAsyncResult *result, gpointer data)
{
  Write write = *(Write *) data;
  ZkrPersistentCore *core = write.core;
  g_autoptr (GError) error = NULL;

  (void) source;
  g_free (data);
  core->busy = FALSE;
  request_done (core);
  if (zkr_node_set_finish (core->session, result, NULL, &error))
    core->written_serial = write.serial;
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      core->gone = TRUE;
      core->checked = FALSE;
    }
  else
    {
      pause_after (core, error);
      return;
    }
  decide (core);
}

static void
send_write (ZkrPersistentCore *core)
{
  Write *write = g_new0 (Write, 1);
  g_autoptr (GBytes) data = NULL;
  g_autofree char *path = NULL;
  gsize len = 0;
  const void *bytes;

  g_mutex_lock (&core->lock);
  data = g_bytes_ref (core->data);
  write->serial = core->data_serial;
  path = g_strdup (core->path);
  g_mutex_unlock (&core->lock);
  write->core = core;
  bytes = g_bytes_get_data (data, &len);
  set_phase (core, PHASE_WRITING);
  core->busy = TRUE;
  core->outstanding++;
  zkr_node_set_async (core->session, path, bytes, len, -1, request_timeout_ms (core), NULL,
                      write_answered, write);
}

/* ---- close ---------------------------------------------------------------- */

static void
closing_answer (ZkrPersistentCore *core, GError *error)
{
  CloseReply *reply = g_atomic_pointer_get (&core->closing);

  g_mutex_lock (&reply->lock);
  reply->done = TRUE;
  reply->error = error;
  g_cond_broadcast (&reply->cond);
  g_mutex_unlock (&reply->lock);
}

static void
final_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrPersistentCore *core = data;
  GError *error = NULL;

  (void) source;
  if (!zkr_node_delete_full_finish (core->session, result, &error) &&
      g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    g_clear_error (&error);
  set_phase (core, PHASE_DONE);
  closing_answer (core, error);
  request_done (core);
}

/* The read before a close's delete of a node not known to be ours. */
static void
close_checked (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrPersistentCore *core = data;
  ZkrStat stat = { 0 };
  GError *error = NULL;
  CloseReply *reply = g_atomic_pointer_get (&core->closing);
  gboolean exists = zkr_node_exists_finish (core->session, result, &stat, &error);

  (void) source;
  if (exists && stat.ephemeral_owner == zkr_session_get_id (core->session))
    {
      g_autofree char *path = g_strdup (core->base_path);

      zkr_node_delete_full_async (core->session, path, stat.version, ZKR_DELETE_GUARANTEED,
                                  reply->timeout_ms, NULL, final_deleted, core);
      return;
    }
  /* Not ours, gone, or unknown (an ephemeral of ours then goes with the
   * session): nothing to delete. */
  set_phase (core, PHASE_DONE);
  closing_answer (core, error);
  request_done (core);
}

/* Closed and nothing of ours out: delete the node (guaranteed: it goes on
 * in the background past the close's deadline). */
static void
close_now (ZkrPersistentCore *core)
{
  g_autofree char *path = NULL;
  CloseReply *reply;

  unwatch (core);
  if (core->retry_source != 0)
    g_source_destroy (g_main_context_find_source_by_id (core->context, core->retry_source));
  core->retry_source = 0;
  g_mutex_lock (&core->lock);
  path = g_steal_pointer (&core->path);
  g_mutex_unlock (&core->lock);
  if (path == NULL || core->gone)
    {
      set_phase (core, PHASE_DONE);
      closing_answer (core, NULL);
      if (core->outstanding == 0)
        g_main_loop_quit (core->loop);
      return;
    }
  set_phase (core, PHASE_CLOSING);
  core->outstanding++;
  reply = g_atomic_pointer_get (&core->closing);
  if (!core->ours && mode_is_ephemeral (core->mode) && !core->path_unique)
    {
      /* Our plain path may hold another session's node (we were waiting
       * for it to go, or our create found the path taken): never delete
       * that one. Read first; delete only our own, at the version read. */
      zkr_node_exists_async (core->session, path, reply->timeout_ms, NULL, close_checked, core);
      return;
    }
  zkr_node_delete_full_async (core->session, path, -1, ZKR_DELETE_GUARANTEED, reply->timeout_ms,
                              NULL, final_deleted, core);
}

/* ---- the decision ---------------------------------------------------------- */

/* Sends the one request that brings the node closer to "ours, watched,
 * with our data", or waits. Runs after every answer and every event that
 * finds nothing out. */
static void
decide (ZkrPersistentCore *core)
{
  guint64 data_serial;
  gboolean have_path;

  if (core->busy || core->phase == PHASE_DONE || core->phase == PHASE_CLOSING)
    return;
  if (zkr__persistent_node_closing_requested (core))
    {
      close_now (core);
      return;
    }
  if (!zkr_session_is_connected (core->session))
    {
      set_phase (core, PHASE_OFFLINE);
      return;
    }
  g_mutex_lock (&core->lock);
  data_serial = core->data_serial;
  have_path = core->path != NULL;
  g_mutex_unlock (&core->lock);
  if (!have_path || core->gone)
    send_create (core);
  else if (!core->checked)
    send_check (core);
  else if (core->phase == PHASE_BLOCKED)
    return;
  else if (core->written_serial != data_serial)
    send_write (core);
  else
    {
      set_phase (core, PHASE_LIVE);
      zkr__persistent_node_mark_initialized (core);
    }
}

static void
session_changed (ZkrSession *session, ZkrSessionState state, gpointer data)
{
  ZkrPersistentCore *core = data;

  (void) session;
  if (core->phase == PHASE_DONE || core->phase == PHASE_CLOSING)
    return;
  switch (state)
    {
    case ZKR_SESSION_STATE_CONNECTED:
    case ZKR_SESSION_STATE_RECONNECTED:
      /* Whatever happened while we were away (a delete, a lost reply),
       * read again rather than create blindly (which made Curator leave
       * a second node: CURATOR-483). */
      core->checked = FALSE;
      if (core->phase == PHASE_BLOCKED)
        set_phase (core, PHASE_IDLE);
      if (!core->busy)
        decide (core);
      break;
    case ZKR_SESSION_STATE_LOST:
      core->checked = FALSE;
      break;
    case ZKR_SESSION_STATE_CLOSED:
      {
        GError *error = g_error_new (ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED,
                                     "persistent node %s: the session was closed",
                                     core->base_path);

        g_mutex_lock (&core->lock);
        if (core->init_failure == NULL)
          core->init_failure = g_error_copy (error);
        g_mutex_unlock (&core->lock);
        zkr__persistent_node_answer_waiters (core, error);
        g_error_free (error);
      }
      break;
    default:
      break;
    }
}

static gboolean
close_requested (gpointer data)
{
  ZkrPersistentCore *core = data;

  if (!core->busy)
    decide (core);
  return G_SOURCE_REMOVE;
}

static gboolean
first_decision (gpointer data)
{
  decide (data);
  return G_SOURCE_REMOVE;
}

gpointer
zkr__persistent_node_thread_run (gpointer data)
{
  ZkrPersistentCore *core = data;

  g_main_context_push_thread_default (core->context);
  core->listener_id = zkr_session_add_state_listener (core->session, session_changed, core, NULL);
  /* The first decision from inside the loop: a close already requested
   * may end the loop at once, which must come after it started. */
  zkr__context_post (core->context, first_decision, core, NULL);
  g_main_loop_run (core->loop);
  zkr_session_remove_state_listener (core->session, core->listener_id);
  unwatch (core);
  /* What the removals posted (their destroy notifies) runs here. */
  while (g_main_context_iteration (core->context, FALSE))
    ;
  g_main_context_pop_thread_default (core->context);
  zkr__persistent_node_core_unref (core);
  return NULL;
}

/* Any thread but the node's: the node's thread closes and ends; @reply
 * (nullable) is answered with the delete's outcome. */
void
zkr__persistent_node_thread_close_core (ZkrPersistentCore *core, CloseReply *reply)
{
  if (reply != NULL)
    g_atomic_ref_count_inc (&reply->ref);
  else
    {
      reply = g_new0 (CloseReply, 1);
      g_atomic_ref_count_init (&reply->ref);
      g_mutex_init (&reply->lock);
      g_cond_init (&reply->cond);
      reply->timeout_ms = -1;
    }
  g_atomic_pointer_set (&core->closing, reply);
  zkr__context_post (core->context, close_requested, core, NULL);
}

gboolean
zkr__persistent_node_thread_wake (gpointer data)
{
  ZkrPersistentCore *core = data;

  if (!core->busy && !zkr__persistent_node_closing_requested (core) &&
      core->phase != PHASE_BLOCKED)
    decide (core);
  return G_SOURCE_REMOVE;
}

