/* zkr: the session's watch registry. Node watches (plain ones, and those
 * answered with a listing) registered per path, and the node events of the
 * session's handle dispatched to them: a listing watch's listing is sent
 * from the thread the event arrives on, a plain watch runs on the worker,
 * only for the event types it asked for. */

#include "ops.h"
#include "ref.h"
#include "session-internal.h"

typedef struct {
  guint id;
  char *path;
  ZkrWatchFunc func;                /* (nullable) a plain watch, or: */
  guint event_mask;                 /* plain watch: ZKR_WATCH_TYPE_BIT()s it
                                     * fires on; 0: any */
  GDestroyNotify destroy;           /* (nullable) plain watch: on user_data */
  ZkrWatchListingFunc listing_func; /* (nullable) one answered with a listing */
  char *list_path;                  /* listing watch: what to list */
  gboolean listing_sent;            /* listing watch: fired; the listing is on
                                     * its way and its reply runs the watch */
  gpointer user_data;
} Watch;

static void
watch_free (gpointer data)
{
  Watch *watch = data;

  if (watch->destroy != NULL)
    watch->destroy (watch->user_data);
  g_free (watch->path);
  g_free (watch->list_path);
  g_free (watch);
}

GHashTable *
zkr__watches_new (void)
{
  return g_hash_table_new_full (NULL, NULL, NULL, watch_free);
}
/* A listing watch that fired: the listing sent for it. */
typedef struct {
  guint watch_id;
  int type;           /* the event's type */
} WatchListing;

/* Worker thread: the listing a listing watch asked for came back; the
 * watch runs with it unless it was removed meanwhile. */
static void
watch_listing_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  WatchListing *listing = user_data;
  gpointer watch = NULL;

  g_mutex_lock (&session->lock);
  g_hash_table_steal_extended (session->watches, GUINT_TO_POINTER (listing->watch_id), NULL,
                               &watch);
  g_mutex_unlock (&session->lock);
  if (watch != NULL)
    {
      ((Watch *) watch)->listing_func (session, listing->type, reply, ((Watch *) watch)->user_data);
      watch_free (watch);
    }
  g_free (listing);
}

/* Under the session lock: marks the listing watches on @path that have not
 * fired yet and adds their listings to @out (WatchListing*, then the path
 * to list, in pairs); returns whether a plain watch is on @path too. */
static gboolean
watches_fire_listings_locked (ZkrSession *session, int type, const char *path, GPtrArray *out)
{
  GHashTableIter iter;
  gpointer value;
  gboolean plain = FALSE;

  g_hash_table_iter_init (&iter, session->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Watch *watch = value;
      WatchListing *listing;

      if (g_strcmp0 (watch->path, path) != 0)
        continue;
      if (watch->func != NULL)
        {
          plain = TRUE;
          continue;
        }
      if (watch->listing_sent)
        continue;
      watch->listing_sent = TRUE;
      listing = g_new0 (WatchListing, 1);
      listing->watch_id = watch->id;
      listing->type = type;
      g_ptr_array_add (out, listing);
      g_ptr_array_add (out, g_strdup (watch->list_path));
    }
  return plain;
}

gboolean
zkr__watches_fire_listings (ZkrSession *session, guint generation, int type, const char *path,
                            GPtrArray *listings)
{
  gboolean plain = TRUE;

  g_mutex_lock (&session->lock);
  if (generation == session->generation)
    plain = watches_fire_listings_locked (session, type, path, listings);
  g_mutex_unlock (&session->lock);
  return plain;
}

void
zkr__watches_send_listings (ZkrSession *session, GPtrArray *listings)
{
  for (guint i = 0; i + 1 < listings->len; i += 2)
    {
      g_autofree char *list_path = g_ptr_array_index (listings, i + 1);

      zkr__op_get_children (session, list_path, FALSE, watch_listing_reply,
                            g_ptr_array_index (listings, i));
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
  /* Listing watches added after the event passed the completion thread. */
  watches_fire_listings_locked (session, type, path, listings);
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
  watch->list_path = g_strdup (list_path);
  watch->listing_func = func;
  watch->user_data = user_data;
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

