/* zkr: the session's watch registry. Node watches (plain ones, and those
 * answered with reads: a listing, or a persistent watch's own reads)
 * registered per path, and the node events of the session's handle
 * dispatched to them: an answered watch's reads are sent from the thread
 * the event arrives on, a plain watch runs on the worker, only for the
 * event types it asked for. */

#include <string.h>

#include "ops.h"
#include "ref.h"
#include "session-internal.h"

typedef struct _Watch Watch;

/* One read an answered watch sends for an event. It holds a reference on
 * the watch, whose memory (not its registration) then outlives a remove:
 * the read's path is the watch's, and the reply finds out by id whether
 * the watch is still registered. */
struct _ZkrWatchAnswer {
  ZkrWatchAnswer *next; /* in the list being sent */
  Watch *watch;         /* (owned) a reference */
  int type;             /* the event's type */
  guint index;          /* which of the watch's reads */
  gboolean last;        /* the watch's last read (a one-shot watch ends) */
};

/* One block: the struct, its reads, then its path and the reads' paths
 * (built once, at registration). */
struct _Watch {
  gatomicrefcount ref;              /* the registry's, one per answer out */
  guint id;
  const char *path;                 /* in the block */
  ZkrWatchFunc func;                /* (nullable) a plain watch, or: */
  guint event_mask;                 /* plain watch: ZKR_WATCH_TYPE_BIT()s it
                                     * fires on; 0: any */
  GDestroyNotify destroy;           /* (nullable) on user_data */
  /* An answered watch: one of these two, and its reads. */
  ZkrWatchListingFunc listing_func; /* one-shot: ends with its listing */
  ZkrWatchReadFunc read_func;       /* persistent: every event, until removed */
  ZkrWake wake;                     /* how the reads' replies run */
  gboolean answered;                /* one-shot: fired; its reads are on
                                     * their way and their reply runs it */
  gpointer user_data;
  Watch *next_fired;                /* dispatch: a fired plain watch, out
                                     * of the registry, in the fired list */
  ZkrWatchAnswer listing;           /* one-shot: its one read's answer (it
                                     * fires once, so one is ever out) */
  guint n_reads;
  ZkrWatchRead reads[];             /* each path in the block (never NULL) */
};

/* @reads[i].path NULL is @path. */
static Watch *
watch_new (const char *path, const ZkrWatchRead *reads, guint n_reads)
{
  gsize path_size = strlen (path) + 1;
  gsize size = sizeof (Watch) + n_reads * sizeof (ZkrWatchRead) + path_size;
  Watch *watch;
  char *text;

  for (guint i = 0; i < n_reads; i++)
    if (reads[i].path != NULL && strcmp (reads[i].path, path) != 0)
      size += strlen (reads[i].path) + 1;
  watch = g_malloc0 (size);
  g_atomic_ref_count_init (&watch->ref);
  text = (char *) &watch->reads[n_reads];
  watch->path = memcpy (text, path, path_size);
  text += path_size;
  for (guint i = 0; i < n_reads; i++)
    {
      watch->reads[i] = reads[i];
      watch->reads[i].path = watch->path;
      if (reads[i].path != NULL && strcmp (reads[i].path, path) != 0)
        {
          gsize read_size = strlen (reads[i].path) + 1;

          watch->reads[i].path = memcpy (text, reads[i].path, read_size);
          text += read_size;
        }
    }
  watch->n_reads = n_reads;
  return watch;
}

static Watch *
watch_ref (Watch *watch)
{
  g_atomic_ref_count_inc (&watch->ref);
  return watch;
}

static void
watch_unref (Watch *watch)
{
  if (g_atomic_ref_count_dec (&watch->ref))
    g_free (watch);
}

/* Out of the registry: its destroy runs now (no session lock held), its
 * memory goes with the last answer still out. */
static void
watch_discard (gpointer data)
{
  Watch *watch = data;

  if (watch->destroy != NULL)
    watch->destroy (watch->user_data);
  watch_unref (watch);
}

GHashTable *
zkr__watches_new (void)
{
  return g_hash_table_new_full (NULL, NULL, NULL, watch_discard);
}

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
  ZkrWatchAnswer *answer = user_data;
  Watch *owner = answer->watch;
  gpointer key = GUINT_TO_POINTER (owner->id);
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
    watch_discard (watch);
  if (answer != &owner->listing)
    g_free (answer);
  watch_unref (owner);
}

static void
answers_append (ZkrWatchAnswers *answers, ZkrWatchAnswer *answer)
{
  answer->next = NULL;
  if (answers->last != NULL)
    answers->last->next = answer;
  else
    answers->first = answer;
  answers->last = answer;
}

/* Under the session lock: @watch, answered, fired by an event of @type:
 * adds its reads to @out. */
static void
watch_answer_locked (Watch *watch, int type, ZkrWatchAnswers *out)
{
  for (guint i = 0; i < watch->n_reads; i++)
    {
      /* A one-shot watch has one read and fires once. */
      ZkrWatchAnswer *answer = watch->listing_func != NULL ? &watch->listing
                                                           : g_new (ZkrWatchAnswer, 1);

      answer->watch = watch_ref (watch);
      answer->type = type;
      answer->index = i;
      answer->last = i + 1 == watch->n_reads;
      answers_append (out, answer);
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
                       ZkrWatchAnswers *out)
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
                            ZkrWatchAnswers *listings)
{
  gboolean wake = TRUE;

  g_mutex_lock (&session->lock);
  if (generation == session->generation)
    wake = watches_answer_locked (session, type, path, FALSE, listings);
  g_mutex_unlock (&session->lock);
  return wake;
}

void
zkr__watches_send_listings (ZkrSession *session, ZkrWatchAnswers *listings)
{
  ZkrWatchAnswer *next = listings->first;

  while (next != NULL)
    {
      ZkrWatchAnswer *answer = next;
      const ZkrWatchRead *read = &answer->watch->reads[answer->index];

      /* Before the send: its reply frees @answer. */
      next = answer->next;
      if (read->kind == ZKR_WATCH_READ_CHILDREN)
        zkr__op_get_children_full (session, read->path, read->watch, answer->watch->wake,
                                   watch_answer_reply, answer);
      else
        zkr__op_get_full (session, read->path, read->watch, answer->watch->wake,
                          watch_answer_reply, answer);
    }
  listings->first = listings->last = NULL;
}

/* An event of another type stays with the server's other watch on the
 * path (a child event leaves the data watch set), so it must not consume a
 * watch that asked only for its own. */
static gboolean
watch_wants (const Watch *watch, int type)
{
  return watch->event_mask == 0 || (watch->event_mask & ZKR_WATCH_TYPE_BIT (type)) != 0;
}

/* Under the session lock: takes the plain watches this event fires out of
 * the registry, linked in their order (no allocation per event). */
static Watch *
watches_take_fired_locked (ZkrSession *session, int type, const char *path)
{
  Watch *fired = NULL;
  Watch **tail = &fired;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;

      if (watch->func != NULL && g_strcmp0 (watch->path, path) == 0 &&
          watch_wants (watch, type))
        {
          g_hash_table_iter_steal (&iter);
          watch->next_fired = NULL;
          *tail = watch;
          tail = &watch->next_fired;
        }
    }
  return fired;
}

void
zkr__watches_dispatch (ZkrSession *session, guint generation, int type, const char *path)
{
  ZkrWatchAnswers listings = { NULL, NULL };
  Watch *fired;

  g_mutex_lock (&session->lock);
  if (generation != session->generation)
    {
      g_mutex_unlock (&session->lock);
      return;
    }
  /* One-shot answered watches added after the event passed the completion
   * thread. */
  (void) watches_answer_locked (session, type, path, TRUE, &listings);
  fired = watches_take_fired_locked (session, type, path);
  g_mutex_unlock (&session->lock);
  zkr__watches_send_listings (session, &listings);
  for (Watch *watch = fired; watch != NULL; watch = watch->next_fired)
    watch->func (session, type, path, watch->user_data);
  /* Every function first, then every destroy, as before. */
  while (fired != NULL)
    {
      Watch *watch = fired;

      fired = watch->next_fired;
      watch_discard (watch);
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
zkr__watches_add (ZkrSession *session,
                        const char *path,
                        ZkrWatchFunc func,
                        gpointer user_data)
{
  return zkr__watches_add_full (session, path, 0, func, user_data, NULL);
}

guint
zkr__watches_add_full (ZkrSession *session, const char *path, guint event_mask,
                             ZkrWatchFunc func, gpointer user_data, GDestroyNotify destroy)
{
  Watch *watch = watch_new (path, NULL, 0);

  watch->func = func;
  watch->event_mask = event_mask;
  watch->user_data = user_data;
  watch->destroy = destroy;
  return watch_insert (session, watch);
}

guint
zkr__watches_add_listing (ZkrSession *session,
                                const char *path,
                                const char *list_path,
                                ZkrWatchListingFunc func,
                                gpointer user_data)
{
  const ZkrWatchRead listing = { .kind = ZKR_WATCH_READ_CHILDREN, .path = list_path };
  Watch *watch = watch_new (path, &listing, 1);

  watch->listing_func = func;
  watch->wake = ZKR_WAKE_ALWAYS;
  watch->user_data = user_data;
  return watch_insert (session, watch);
}

guint
zkr__watches_add_reads (ZkrSession *session, const char *path, const ZkrWatchRead *reads,
                              guint n_reads, ZkrWake wake, ZkrWatchReadFunc func,
                              gpointer user_data, GDestroyNotify destroy)
{
  Watch *watch;

  g_return_val_if_fail (n_reads > 0, 0);
  watch = watch_new (path, reads, n_reads);
  watch->read_func = func;
  watch->wake = wake;
  watch->user_data = user_data;
  watch->destroy = destroy;
  return watch_insert (session, watch);
}

/* The watch is freed (its destroy run) after the lock is let go. */
void
zkr__watches_remove (ZkrSession *session, guint id)
{
  gpointer watch = NULL;

  g_mutex_lock (&session->lock);
  g_hash_table_steal_extended (session->watches, GUINT_TO_POINTER (id), NULL, &watch);
  g_mutex_unlock (&session->lock);
  if (watch != NULL)
    watch_discard (watch);
}

