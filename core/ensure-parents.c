/* zkr: ensure-path (core/nodes.h): a path's missing ancestors created as
 * CONTAINER nodes, root first, begun again when one vanishes under it.
 * Worker thread. */

#include <string.h>

#include "nodes.h"
#include "path.h"

typedef struct {
  ZkrSession *session;
  char **ancestors;     /* "/a", "/a/b", ... (owned) */
  guint next;
  guint restarts;       /* rounds begun again after an ancestor vanished */
  ZkrDoneFunc func;
  gpointer user_data;
} EnsureParents;

/* How often a chain is begun again after an ancestor vanished under it. */
#define ENSURE_MAX_RESTARTS 5

static void ensure_next (EnsureParents *ensure);

static void
ensure_finish (EnsureParents *ensure, int rc)
{
  ensure->func (ensure->session, rc, ensure->user_data);
  g_strfreev (ensure->ancestors);
  g_free (ensure);
}

static gboolean
ensure_finish_posted (gpointer data)
{
  ensure_finish (data, ZOK);
  return G_SOURCE_REMOVE;
}

static void
ensure_reply (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  EnsureParents *ensure = user_data;

  (void) session;
  if (reply->rc == ZNONODE && ensure->restarts++ < ENSURE_MAX_RESTARTS)
    {
      /* An ancestor made (or found) a moment ago is gone: a container the
       * server reaped once emptied, or a delete by someone else. Make the
       * chain again from the top. */
      ensure->next = 0;
      ensure_next (ensure);
      return;
    }
  if (reply->rc != ZOK && reply->rc != ZNODEEXISTS)
    {
      ensure_finish (ensure, reply->rc);
      return;
    }
  ensure->next++;
  ensure_next (ensure);
}

static void
ensure_next (EnsureParents *ensure)
{
  const char *path = ensure->ancestors[ensure->next];

  if (path == NULL)
    {
      ensure_finish (ensure, ZOK);
      return;
    }
  zkr__op_create (ensure->session, path, NULL, -1, ZOO_CONTAINER, ensure_reply, ensure);
}

static char **
path_ancestors (const char *path)
{
  GPtrArray *list = g_ptr_array_new ();
  g_autofree char *parent = zkr__path_parent (path);

  /* Walk up, then reverse: creation goes root-first. */
  while (parent != NULL && strcmp (parent, "/") != 0)
    {
      char *next = zkr__path_parent (parent);
      g_ptr_array_insert (list, 0, g_steal_pointer (&parent));
      parent = next;
    }
  g_ptr_array_add (list, NULL);
  return (char **) g_ptr_array_free (list, FALSE);
}

void
zkr__ensure_parents (ZkrSession *session, const char *path,
                     ZkrDoneFunc func, gpointer user_data)
{
  EnsureParents *ensure = g_new0 (EnsureParents, 1);

  ensure->session = session;
  ensure->ancestors = path_ancestors (path);
  ensure->func = func;
  ensure->user_data = user_data;
  if (ensure->ancestors[0] == NULL)
    /* Nothing to create; still answer later, never inside this call. */
    zkr__session_post (session, ensure_finish_posted, ensure, NULL);
  else
    ensure_next (ensure);
}
