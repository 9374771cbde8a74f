/* zkr: what the leader latch and the leader selector share
 * (leader-private.h): the check of a participant id, the leader's id from
 * a listing, and the answer of a close_async call in the caller's context. */

#include <string.h>

#include "context.h"
#include "error-private.h"
#include "leader-private.h"
#include "queue-lock.h"

#include <zkr/leader-latch.h>

gboolean
zkr__leader_validate_id (const char *id, const char *kind, GError **error)
{
  const char *bad = NULL;

  if (*id == '\0')
    bad = "it is empty";
  else if (strlen (id) > ZKR_LEADER_ID_MAX_BYTES)
    bad = "it is longer than 4096 bytes";
  else if (!g_utf8_validate (id, -1, NULL))
    bad = "it is not UTF-8";
  else
    for (const char *p = id; *p != '\0' && bad == NULL; p++)
      if ((guchar) *p < 0x20 || *p == 0x7f)
        bad = "it contains a control character";
  if (bad == NULL)
    return TRUE;
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "invalid %s participant id \"%s\": %s", kind,
               g_utf8_validate (id, -1, NULL) ? id : "(not UTF-8)", bad);
  return FALSE;
}

char *
zkr__leader_id_from_participants (GPtrArray *participants)
{
  ZkrParticipant *first;

  if (participants == NULL || participants->len == 0)
    return NULL;
  first = g_ptr_array_index (participants, 0);
  return g_strdup (first->client_id);
}

/* The close's cancel is a handler that posts to the task's context
 * (zkr__context_cancel_connect), not a GCancellableSource (see the await
 * in leader-latch-await.c for the race that hung the fault suite); and
 * the disconnect is made there too, never on the worker, where the close
 * ends: it waits for a cancel running in another thread, the user's own
 * handlers of the cancellable included. */
struct _ZkrLeaderClose {
  gatomicrefcount ref;          /* the close's own, its cancel's, its answer's post */
  gpointer object;              /* (owned) */
  GDestroyNotify object_unref;
  char *what;                   /* for the cancel's message */
  GTask *task;                  /* (owned) until answered; then NULL */
  gint claimed;                 /* atomic: the task was answered (or is
                                 * about to be); only the claimer reads
                                 * @task after that */
  GCancellable *cancellable;    /* (owned) (nullable) */
  gulong cancel_id;             /* its cancel; the task's context only */
  GError *answer;               /* (owned) (nullable) the end's, for its post */
};

static gpointer
leader_close_ref (gpointer data)
{
  ZkrLeaderClose *close = data;

  g_atomic_ref_count_inc (&close->ref);
  return close;
}

static void
leader_close_unref (gpointer data)
{
  ZkrLeaderClose *close = data;

  if (!g_atomic_ref_count_dec (&close->ref))
    return;
  g_clear_object (&close->cancellable);
  g_clear_error (&close->answer);
  g_clear_object (&close->task);
  close->object_unref (close->object);
  g_free (close->what);
  g_free (close);
}

static gboolean
leader_close_claim (ZkrLeaderClose *close)
{
  return g_atomic_int_compare_and_exchange (&close->claimed, 0, 1);
}

/* In the task's context, by whoever claimed the close: the cancel goes,
 * then the answer (@error transfer full; NULL: TRUE), and the task with
 * it: a cancel's post still queued holds the close, and must not hold the
 * context through the task (the context, dropped by its caller, would
 * never go, its queue holding the post). */
static void
leader_close_answer_here (ZkrLeaderClose *close, GError *error)
{
  zkr__context_cancel_disconnect (close->cancellable, &close->cancel_id);
  zkr__queue_task_answer (g_steal_pointer (&close->task), error);
}

static gboolean
leader_close_cancelled (gpointer data)
{
  ZkrLeaderClose *close = data;

  if (leader_close_claim (close))
    leader_close_answer_here (close, zkr__error_new_cancelled ("close %s", close->what));
  return G_SOURCE_REMOVE;
}

static gboolean
leader_close_answer_posted (gpointer data)
{
  ZkrLeaderClose *close = data;

  leader_close_answer_here (close, g_steal_pointer (&close->answer));
  return G_SOURCE_REMOVE;
}

ZkrLeaderClose *
zkr__leader_close_new (gpointer object, GDestroyNotify object_unref, const char *what,
                       GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data, gpointer source_tag, const char *name)
{
  ZkrLeaderClose *close = g_new0 (ZkrLeaderClose, 1);

  g_atomic_ref_count_init (&close->ref);
  close->object = object;
  close->object_unref = object_unref;
  close->what = g_strdup (what);
  close->task = zkr__queue_task_new (cancellable, callback, user_data, source_tag, name);
  if (cancellable != NULL)
    {
      close->cancellable = g_object_ref (cancellable);
      /* Already cancelled: posted now, answered later (as the source was). */
      close->cancel_id = zkr__context_cancel_connect (g_task_get_context (close->task),
                                                      cancellable, leader_close_cancelled,
                                                      leader_close_ref (close),
                                                      leader_close_unref);
    }
  return close;
}

gpointer
zkr__leader_close_get_object (ZkrLeaderClose *close)
{
  return close->object;
}

void
zkr__leader_close_end (ZkrLeaderClose *close, GError *error)
{
  if (leader_close_claim (close))
    {
      close->answer = error;
      zkr__context_post (g_task_get_context (close->task), leader_close_answer_posted,
                         leader_close_ref (close), leader_close_unref);
    }
  else
    g_clear_error (&error);
  leader_close_unref (close);
}
