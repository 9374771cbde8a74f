/* zkr: the participants of a queue (docs/design.md §3.2, §3.4): its nodes
 * in the recipe's order with their client id, session, token and whether
 * they hold, read with blocking requests from the caller's thread. */

#include <string.h>

#include "error-private.h"
#include "lock-queue-private.h"
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

GPtrArray *
zkr__queue_list_participants (ZkrSession *session, const char *path,
                              const ZkrQueueRecipe *recipe, gpointer predicate_data,
                              GError **error)
{
  g_autofree char *full = NULL;
  g_autoptr (GPtrArray) children = NULL;
  GPtrArray *participants;
  int rc;

  if (!zkr__path_validate (path, error))
    return NULL;
  full = zkr__session_resolve_path (session, path);
  participants = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_participant_free);
  rc = zkr__op_get_children_sync (session, full, &children);
  if (rc == ZNONODE)
    return participants;
  if (rc != ZOK)
    {
      zkr__set_error_from_zk (error, rc, "list", path, zkr_session_get_id (session));
      g_ptr_array_unref (participants);
      return NULL;
    }
  (void) recipe->sort (children, recipe->lock_name, NULL);
  for (guint i = 0; i < children->len; i++)
    {
      const char *name = g_ptr_array_index (children, i);
      g_autofree char *node = zkr__path_join (full, name);
      g_autoptr (GBytes) data = NULL;
      ZkrParticipant *participant;
      const char *wait_on = NULL;
      struct Stat stat;

      rc = zkr__op_get_sync (session, node, &data, &stat);
      if (rc == ZNONODE)
        continue; /* gone since the listing */
      if (rc != ZOK)
        {
          zkr__set_error_from_zk (error, rc, "read", node, zkr_session_get_id (session));
          g_ptr_array_unref (participants);
          return NULL;
        }
      participant = g_new0 (ZkrParticipant, 1);
      participant->node = g_strdup (name);
      participant->client_id = participant_client_id (data);
      participant->session_id = stat.ephemeralOwner;
      participant->token = stat.czxid;
      participant->created_ms = stat.ctime;
      participant->is_holder = recipe->predicate (children, i, &wait_on, predicate_data);
      g_ptr_array_add (participants, participant);
    }
  return participants;
}

GPtrArray *
zkr__queue_lock_list_participants (ZkrQueueLock *lock, GError **error)
{
  return zkr__queue_list_participants (lock->session, lock->user_path, lock->recipe,
                                       lock->predicate_data, error);
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
