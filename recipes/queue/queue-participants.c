/* zkr: the participants of a queue (docs/design.md §3.2, §3.4): its nodes
 * in the recipe's order with their client id, session, token and whether
 * they hold, read with blocking node calls from the caller's thread, which
 * a GCancellable can cut short. */

#include <string.h>

#include <zkr/error.h>
#include <zkr/node.h>

#include "queue-private.h"
#include "path.h"

static char *
participant_client_id (GBytes *data)
{
  gsize len = 0;
  const char *text = data != NULL ? g_bytes_get_data (data, &len) : NULL;

  if (text == NULL || len == 0)
    return g_strdup ("");
  if (!g_utf8_validate_len (text, len, NULL) || memchr (text, '\0', len) != NULL)
    return g_strdup ("<binary>");
  return g_strndup (text, len);
}

/* One participant from its node's read; NULL (no error) when the node
 * went since the listing. */
static ZkrParticipant *
participant_read (ZkrSession *session, const char *path, GPtrArray *children, guint index,
                  const ZkrQueueRecipe *recipe, gpointer predicate_data,
                  GCancellable *cancellable, GError **error)
{
  const char *name = g_ptr_array_index (children, index);
  g_autofree char *node = zkr__path_join (path, name);
  g_autoptr (GBytes) data = NULL;
  g_autoptr (GError) local = NULL;
  ZkrParticipant *participant;
  const char *wait_on = NULL;
  ZkrStat stat = { 0 };

  data = zkr_node_get (session, node, 0, cancellable, &stat, &local);
  if (data == NULL)
    {
      if (!g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  participant = g_new0 (ZkrParticipant, 1);
  participant->node = g_strdup (name);
  participant->client_id = participant_client_id (data);
  participant->session_id = stat.ephemeral_owner;
  participant->token = stat.czxid;
  participant->created_ms = stat.ctime;
  participant->is_holder = recipe->predicate (children, index, &wait_on, predicate_data);
  return participant;
}

/* The node calls (timeout 0: each sent once, CONNECTION_LOSS at once when
 * not connected) arm @cancellable as every node call does (core/armed.c):
 * one cancelled before a read answers it at once with nothing sent, so a
 * cancel ends the listing wherever it is. */
GPtrArray *
zkr__queue_participants_list (ZkrSession *session, const char *path,
                              const ZkrQueueRecipe *recipe, gpointer predicate_data,
                              GCancellable *cancellable, GError **error)
{
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) children = NULL;
  g_autoptr (GError) local = NULL;
  GPtrArray *participants;

  if (!zkr__path_validate (path, error))
    return NULL;
  participants = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_participant_free);
  names = zkr_node_get_children (session, path, 0, cancellable, NULL, &local);
  if (g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    return participants;
  if (names == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "list participants of %s %s: ",
                                  recipe->kind, path);
      g_ptr_array_unref (participants);
      return NULL;
    }
  children = g_ptr_array_new ();
  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (children, names[i]);
  (void) recipe->sort (children, recipe->lock_name, NULL);
  for (guint i = 0; i < children->len; i++)
    {
      ZkrParticipant *participant = participant_read (session, path, children, i, recipe,
                                                      predicate_data, cancellable, &local);

      if (local != NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                      "list participants of %s %s: ", recipe->kind, path);
          g_ptr_array_unref (participants);
          return NULL;
        }
      if (participant != NULL)
        g_ptr_array_add (participants, participant);
    }
  return participants;
}

GPtrArray *
zkr__queue_participants_list_for_lock (ZkrQueueLock *lock, GCancellable *cancellable, GError **error)
{
  return zkr__queue_participants_list (lock->session, lock->user_path, lock->recipe,
                                       lock->predicate_data, cancellable, error);
}

void
zkr_participant_free (ZkrParticipant *participant)
{
  if (participant == NULL)
    return;
  g_free (participant->node);
  g_free (participant->client_id);
  g_free (participant);
}
