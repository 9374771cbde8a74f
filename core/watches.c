/* zkr: the session's watch registry. Node watches (plain ones, and those
 * answered with reads: a listing, or a persistent watch's own reads)
 * registered per path, and the node events of the session's handle
 * dispatched to them: an answered watch's reads are sent from the thread
 * the event arrives on, a plain watch runs on the worker, only for the
 * event types it asked for. */

#include "ops.h"
#include "ref.h"
#include "session-internal.h"

typedef struct {
  guint id;
  char *path;
  ZkrWatchFunc func;                /* (nullable) a plain watch, or: */
  guint event_mask;                 /* plain watch: ZKR_WATCH_TYPE_BIT()s it
                                     * fires on; 0: any */
  GDestroyNotify destroy;           /* (nullable) on user_data */
  /* An answered watch: one of these two, and its reads. */
  ZkrWatchListingFunc listing_func; /* one-shot: ends with its listing */
  ZkrWatchReadFunc read_func;       /* persistent: every event, until removed */
  ZkrWatchRead *reads;              /* (owned) each path owned */
  guint n_reads;
  ZkrWake wake;                     /* how the reads' replies run */
  gboolean answered;                /* one-shot: fired; its reads are on
                                     * their way and their reply runs it */
  gpointer user_data;
} Watch;

static void
watch_free (gpointer data)
{
  Watch *watch = data;

  if (watch->destroy != NULL)
    watch->destroy (watch->user_data);
  for (guint i = 0; i < watch->n_reads; i++)
    g_free ((char *) watch->reads[i].path);
  g_free (watch->reads);
  g_free (watch->path);
  g_free (watch);
}

GHashTable *
zkr__watches_new (void)
{
  return g_hash_table_new_full (NULL, NULL, NULL, watch_free);
}

/* One read an answered watch sent for an event; the path and flags copied
 * under the session lock, so the send needs no watch. */
typedef struct {
  guint watch_id;
  int type;           /* the event's type */
  guint index;        /* which of the watch's reads */
  gboolean last;      /* the watch's last read (a one-shot watch ends) */
  ZkrWatchReadKind kind;
  gboolean watch;
  ZkrWake wake;
  char *path;
} WatchAnswer;

static gboolean
watch_is_answered (const Watch *watch)
{
  return watch->listing_func != NULL || watch->read_func != NULL;
}

/* Worker (or in its place: the wake the watch asked for): a read an
 * answered watch sent came back; the watch runs with it unless it was
 * removed meanwhile. A one-shot watch leaves the registry with its last
 * reply; a persistent one stays, and is removed only by the turn's holder,
 * so it cannot go while its function runs here. */
static void
watch_answer_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  WatchAnswer *answer = user_data;
  gpointer key = GUINT_TO_POINTER (answer->watch_id);
  Watch *watch;
  gboolean ends;

  g_mutex_lock (&session->lock);
  watch = g_hash_table_lookup (session->watches, key);
  ends = watch != NULL && watch->listing_func != NULL && answer->last;
  if (ends)
    g_hash_table_steal (session->watches, key);
  g_mutex_unlock (&session->lock);
  if (watch != NULL && watch->listing_func != NULL)
    watch->listing_func (session, answer->type, reply, watch->user_data);
  else if (watch != NULL)
    watch->read_func (session, answer->type, answer->index, reply, watch->user_data);
  if (ends)
    watch_free (watch);
  g_free (answer->path);
  g_free (answer);
}

/* Under the session lock: @watch, answered, fired by an event of @type:
 * adds its reads to @out (WatchAnswer*). */
static void
watch_answer_locked (Watch *watch, int type, GPtrArray *out)
{
  for (guint i = 0; i < watch->n_reads; i++)
    {
      WatchAnswer *answer = g_new0 (WatchAnswer, 1);

      answer->watch_id = watch->id;
      answer->type = type;
      answer->index = i;
      answer->last = i + 1 == watch->n_reads;
      answer->kind = watch->reads[i].kind;
      answer->watch = watch->reads[i].watch;
      answer->wake = watch->wake;
      answer->path = g_strdup (watch->reads[i].path != NULL ? watch->reads[i].path : watch->path);
      g_ptr_array_add (out, answer);
    }
  watch->answered = TRUE;
}

/* Under the session lock: collects into @out the reads of the answered
 * watches on @path that this event fires: on the completion thread every
 * one not yet fired; on the worker (@on_worker) only the one-shot ones
 * added after the event passed the completion thread (a persistent one was
 * registered before its first read, which tells more than an event that
 * came before it). Returns whether the event must wake the worker: a
 * plain watch is on @path, or an answered one's replies may run in place
 * (the event, posted quietly, would hold them back until the worker ran
 * it: woken now, it runs while the reads are on their way). */
static gboolean
watches_answer_locked (ZkrSession *session, int type, const char *path, gboolean on_worker,
                       GPtrArray *out)
{
  GHashTableIter iter;
  gpointer value;
  gboolean wake = FALSE;

  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;

      if (g_strcmp0 (watch->path, path) != 0)
        continue;
      if (!watch_is_answered (watch))
        wake = TRUE;
      else if (watch->listing_func != NULL ? !watch->answered : !on_worker)
        {
          watch_answer_locked (watch, type, out);
          wake = wake || (watch->wake & ZKR_WAKE_IN_PLACE) != 0;
        }
    }
  return wake;
}

gboolean
zkr__watches_fire_listings (ZkrSession *session, guint generation, int type, const char *path,
                            GPtrArray *listings)
{
  gboolean wake = TRUE;

  g_mutex_lock (&session->lock);
  if (generation == session->generation)
    wake = watches_answer_locked (session, type, path, FALSE, listings);
  g_mutex_unlock (&session->lock);
  return wake;
}

void
zkr__watches_send_listings (ZkrSession *session, GPtrArray *listings)
{
  for (guint i = 0; i < listings->len; i++)
    {
      WatchAnswer *answer = g_ptr_array_index (listings, i);

      if (answer->kind == ZKR_WATCH_READ_CHILDREN)
        zkr__op_get_children_full (session, answer->path, answer->watch, answer->wake,
                                   watch_answer_reply, answer);
      else
        zkr__op_get_full (session, answer->path, answer->watch, answer->wake, watch_answer_reply,
                          answer);
    }
  g_ptr_array_unref (listings);
}

/* An event of another type stays with the server's other watch on the
 * path (a child event leaves the data watch set), so it must not consume a
 * watch that asked only for its own. */
static gboolean
watch_wants (const Watch *watch, int type)
{
  return watch->event_mask == 0 || (watch->event_mask & ZKR_WATCH_TYPE_BIT (type)) != 0;
}

void
zkr__watches_dispatch (ZkrSession *session, guint generation, int type, const char *path)
{
  g_autoptr (GPtrArray) fired = g_ptr_array_new_with_free_func (watch_free);
  GPtrArray *listings = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_mutex_lock (&session->lock);
  if (generation != session->generation)
    {
      g_mutex_unlock (&session->lock);
      g_ptr_array_unref (listings);
      return;
    }
  /* One-shot answered watches added after the event passed the completion
   * thread. */
  (void) watches_answer_locked (session, type, path, TRUE, listings);
  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;
      if (watch->func != NULL && g_strcmp0 (watch->path, path) == 0 &&
          watch_wants (watch, type))
        {
          g_ptr_array_add (fired, watch);
          g_hash_table_iter_steal (&iter);
        }
    }
  g_mutex_unlock (&session->lock);
  zkr__watches_send_listings (session, listings);
  for (guint i = 0; i < fired->len; i++)
    {
      Watch *watch = g_ptr_array_index (fired, i);
      watch->func (session, type, path, watch->user_data);
    }
}

/* ---- watches ------------------------------------------------------ */

static guint
watch_insert (ZkrSession *session, Watch *watch)
{
  guint id;

  g_mutex_lock (&session->lock);
  id = watch->id = ++session->next_id;
  g_hash_table_insert (session->watches, GUINT_TO_POINTER (id), watch);
  g_mutex_unlock (&session->lock);
  return id;
}

guint
zkr__session_watch_add (ZkrSession *session,
                        const char *path,
                        ZkrWatchFunc func,
                        gpointer user_data)
{
  return zkr__session_watch_add_full (session, path, 0, func, user_data, NULL);
}

guint
zkr__session_watch_add_full (ZkrSession *session, const char *path, guint event_mask,
                             ZkrWatchFunc func, gpointer user_data, GDestroyNotify destroy)
{
  Watch *watch = g_new0 (Watch, 1);

  watch->path = g_strdup (path);
  watch->func = func;
  watch->event_mask = event_mask;
  watch->user_data = user_data;
  watch->destroy = destroy;
  return watch_insert (session, watch);
}

guint
zkr__session_watch_add_listing (ZkrSession *session,
                                const char *path,
                                const char *list_path,
                                ZkrWatchListingFunc func,
                                gpointer user_data)
{
  Watch *watch = g_new0 (Watch, 1);

  watch->path = g_strdup (path);
  watch->listing_func = func;
  watch->reads = g_new0 (ZkrWatchRead, 1);
  watch->reads[0].kind = ZKR_WATCH_READ_CHILDREN;
  watch->reads[0].path = g_strdup (list_path);
  watch->n_reads = 1;
  watch->wake = ZKR_WAKE_ALWAYS;
  watch->user_data = user_data;
  return watch_insert (session, watch);
}

guint
zkr__session_watch_add_reads (ZkrSession *session, const char *path, const ZkrWatchRead *reads,
                              guint n_reads, ZkrWake wake, ZkrWatchReadFunc func,
                              gpointer user_data, GDestroyNotify destroy)
{
  Watch *watch;

  g_return_val_if_fail (n_reads > 0, 0);
  watch = g_new0 (Watch, 1);
  watch->path = g_strdup (path);
  watch->read_func = func;
  watch->reads = g_new0 (ZkrWatchRead, n_reads);
  for (guint i = 0; i < n_reads; i++)
    {
      watch->reads[i] = reads[i];
      watch->reads[i].path = g_strdup (reads[i].path);
    }
  watch->n_reads = n_reads;
  watch->wake = wake;
  watch->user_data = user_data;
  watch->destroy = destroy;
  return watch_insert (session, watch);
}

/* The watch is freed (its destroy run) after the lock is let go. */
void
zkr__session_watch_remove (ZkrSession *session, guint id)
{
  gpointer watch = NULL;

  g_mutex_lock (&session->lock);
  g_hash_table_steal_extended (session->watches, GUINT_TO_POINTER (id), NULL, &watch);
  g_mutex_unlock (&session->lock);
  if (watch != NULL)
    watch_free (watch);
}

/* Here rather than in session.c: only watch deliveries need it. */
ZkrSession *
zkr__session_try_ref (ZkrSession *session)
{
  return zkr__ref_try (&session->ref) ? session : NULL;
}

