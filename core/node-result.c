/* zkr: a node call's result (core/node-private.h): filled from the
 * server's reply (the stat copied, the namespace taken off the created
 * path, the children sorted) and freed by the caller's _finish. */

#include <string.h>

#include "node-private.h"
#include "ops.h"
#include "session-private.h"

void
zkr__node_result_free (ZkrNodeResult *result)
{
  gpointer owner;
  GDestroyNotify owner_unref;

  if (result == NULL)
    return;
  owner = result->owner;
  owner_unref = result->owner_unref;
  g_free (result->created_path);
  g_clear_pointer (&result->data, g_bytes_unref);
  g_strfreev (result->children);
  g_clear_pointer (&result->multi_results, g_array_unref);
  if (owner == NULL)
    {
      g_free (result);
      return;
    }
  /* In its operation's memory, which may go with this reference. */
  memset (result, 0, sizeof *result);
  owner_unref (owner);
}

void
zkr__node_result_stat_copy (ZkrStat *out, const struct Stat *stat)
{
  out->czxid = stat->czxid;
  out->mzxid = stat->mzxid;
  out->pzxid = stat->pzxid;
  out->ctime = stat->ctime;
  out->mtime = stat->mtime;
  out->version = stat->version;
  out->cversion = stat->cversion;
  out->aversion = stat->aversion;
  out->ephemeral_owner = stat->ephemeralOwner;
  out->data_length = stat->dataLength;
  out->num_children = stat->numChildren;
}

/* "/ns/a/b" -> "/a/b" under namespace "ns" (libzookeeper already took a
 * chroot off). (transfer full) */
char *
zkr__node_result_strip_namespace (ZkrSession *session, const char *full)
{
  g_autofree char *root = NULL;
  gsize root_len;

  if (!zkr__session_has_namespace (session))
    return g_strdup (full);
  root = zkr__session_resolve_path (session, "/");
  root_len = strlen (root);
  if (strcmp (root, "/") == 0 || strncmp (full, root, root_len) != 0)
    return g_strdup (full);
  if (full[root_len] == '\0')
    return g_strdup ("/");
  return g_strdup (full + root_len);
}

static int
name_compare (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static char **
children_copy (GPtrArray *names)
{
  guint count = names != NULL ? names->len : 0;
  char **children = g_new0 (char *, count + 1);

  for (guint i = 0; i < count; i++)
    children[i] = g_strdup (g_ptr_array_index (names, i));
  qsort (children, count, sizeof (char *), name_compare);
  return children;
}

/* A ZOK reply (or exists' ZNONODE) as the caller's result: what the reply
 * holds is taken (the created path, the multi's results) or copied. */
void
zkr__node_result_fill (ZkrNodeResult *result, ZkrSession *session, ZkrNodeKind kind,
                       const char *path, ZkrReply *reply)
{
  result->has_stat = reply->rc == ZOK && reply->has_stat;
  if (result->has_stat)
    zkr__node_result_stat_copy (&result->stat, &reply->stat);
  switch (kind)
    {
    case ZKR_NODE_CREATE:
      /* Without a namespace the reply's own string is the answer. */
      if (reply->path != NULL && !zkr__session_has_namespace (session))
        result->created_path = g_steal_pointer (&reply->path);
      else
        result->created_path = zkr__node_result_strip_namespace (session, reply->path != NULL
                                                                     ? reply->path : path);
      break;
    case ZKR_NODE_GET:
      result->data = reply->data != NULL ? g_bytes_ref (reply->data) : g_bytes_new (NULL, 0);
      break;
    case ZKR_NODE_CHILDREN:
      result->children = children_copy (reply->children);
      break;
    case ZKR_NODE_EXISTS:
      result->exists = reply->rc == ZOK;
      break;
    case ZKR_NODE_MULTI:
      result->multi_rc = reply->rc;
      result->multi_results = g_steal_pointer (&reply->results);
      break;
    case ZKR_NODE_SET:
    case ZKR_NODE_DELETE:
    default:
      break;
    }
}
