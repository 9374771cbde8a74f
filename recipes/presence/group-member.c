/* zkr: group membership (Curator's GroupMember): this member's EPHEMERAL
 * node PATH/<id> kept by a persistent node, the group read from a tree
 * cache of PATH to depth 1, its node events relayed to the member's
 * listeners as JOINED / CHANGED / LEFT (docs/design.md, "Group
 * membership"). */
#include <string.h>

#include "cache-private.h"
#include "path.h"
#include "ref.h"

#include <zkr/error.h>
#include <zkr/group-member.h>
#include <zkr/persistent-node.h>
#include <zkr/tree-cache.h>

struct _ZkrGroupMember {
  gatomicrefcount ref;
  char *path;                 /* the group's */
  char *id;
  ZkrPersistentNode *node;    /* (owned) */
  ZkrTreeCache *cache;        /* (owned) */
  gint closed;                /* atomic: close was called */
};


/* ---- input --------------------------------------------------------------- */

static gboolean
validate_id (const char *id, GError **error)
{
  const char *bad = NULL;

  if (*id == '\0')
    bad = "it is empty";
  else if (strlen (id) > ZKR_GROUP_MEMBER_ID_MAX_BYTES)
    bad = "it is longer than ZKR_GROUP_MEMBER_ID_MAX_BYTES";
  else if (strcmp (id, ".") == 0 || strcmp (id, "..") == 0)
    bad = "it is not a node name";
  else if (strchr (id, '/') != NULL)
    bad = "it contains '/'";
  else if (!g_utf8_validate (id, -1, NULL))
    bad = "it is not UTF-8";
  else
    for (const char *p = id; *p != '\0' && bad == NULL; p++)
      if ((guchar) *p < 0x20 || *p == 0x7f)
        bad = "it contains a control character";
  if (bad == NULL)
    return TRUE;
  {
    g_autofree char *quoted = zkr__path_quote_value (id, -1);

    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "invalid group member id %s: %s", quoted, bad);
  }
  return FALSE;
}

static gboolean
validate_group_path (const char *path, GError **error)
{
  if (!zkr__path_validate (path, error))
    return FALSE;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid group path \"/\": a group needs a node of its own");
      return FALSE;
    }
  return TRUE;
}

/* ---- the object ------------------------------------------------------------ */

ZkrGroupMember *
zkr_group_member_new (ZkrSession *session, const char *path, const char *id,
                      const void *payload, gsize len, GError **error)
{
  g_autofree char *node_path = NULL;
  ZkrGroupMember *member;
  ZkrPersistentNode *node;
  ZkrTreeCache *cache;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (id != NULL, NULL);
  if (!validate_group_path (path, error) || !validate_id (id, error))
    return NULL;
  node_path = zkr__path_join (path, id);
  /* Curator's GroupMember: an unprotected EPHEMERAL node at PATH/<id>. */
  node = zkr_persistent_node_new (session, node_path, ZKR_CREATE_EPHEMERAL, FALSE, payload, len,
                                  error);
  if (node == NULL)
    return NULL;
  cache = zkr_tree_cache_new (session, path, 1, error);
  if (cache == NULL)
    {
      zkr_persistent_node_unref (node);
      return NULL;
    }
  member = g_new0 (ZkrGroupMember, 1);
  g_atomic_ref_count_init (&member->ref);
  member->path = g_strdup (path);
  member->id = g_strdup (id);
  member->node = node;
  member->cache = cache;
  return member;
}

ZkrGroupMember *
zkr_group_member_ref (ZkrGroupMember *member)
{
  g_return_val_if_fail (member != NULL, NULL);
  g_atomic_ref_count_inc (&member->ref);
  return member;
}

void
zkr_group_member_unref (ZkrGroupMember *member)
{
  if (member == NULL || !g_atomic_ref_count_dec (&member->ref))
    return;
  /* The cache first: no listener call starts once it is closed, and the
   * listeners are what could still reach this struct. */
  zkr_tree_cache_close (member->cache);
  zkr_tree_cache_unref (member->cache);
  zkr_persistent_node_unref (member->node);
  g_free (member->path);
  g_free (member->id);
  g_free (member);
}

gboolean
zkr_group_member_start (ZkrGroupMember *member, GError **error)
{
  g_return_val_if_fail (member != NULL, FALSE);
  if (!zkr_persistent_node_start (member->node, error))
    return FALSE;
  return zkr_tree_cache_start (member->cache, error);
}

gboolean
zkr_group_member_wait_joined (ZkrGroupMember *member, int timeout_ms, GCancellable *cancellable,
                              GError **error)
{
  gint64 end = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  int left_ms = timeout_ms;

  g_return_val_if_fail (member != NULL, FALSE);
  if (!zkr_persistent_node_wait_for_initial_create (member->node, timeout_ms, cancellable,
                                                    error))
    return FALSE;
  /* One deadline for both waits. */
  if (timeout_ms > 0)
    left_ms = (int) MAX ((end - g_get_monotonic_time ()) / 1000, 1);
  return zkr_tree_cache_wait_initialized (member->cache, left_ms, cancellable, error);
}

gboolean
zkr_group_member_set_payload (ZkrGroupMember *member, const void *payload, gsize len,
                              GError **error)
{
  g_return_val_if_fail (member != NULL, FALSE);
  return zkr_persistent_node_set_data (member->node, payload, len, error);
}

GHashTable *
zkr_group_member_dup_members (ZkrGroupMember *member)
{
  GHashTable *members;
  g_auto (GStrv) children = NULL;

  g_return_val_if_fail (member != NULL, NULL);
  members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) g_bytes_unref);
  children = zkr_tree_cache_get_children (member->cache, member->path);
  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *child = zkr__path_join (member->path, children[i]);
      GBytes *payload = zkr_tree_cache_get_data (member->cache, child, NULL);

      if (payload != NULL)
        g_hash_table_insert (members, g_strdup (children[i]), payload);
    }
  /* This member is always in (Curator's rule), with its own payload
   * until the cache has seen its node. */
  if (!g_atomic_int_get (&member->closed) && !g_hash_table_contains (members, member->id))
    g_hash_table_insert (members, g_strdup (member->id),
                         zkr_persistent_node_dup_data (member->node));
  return members;
}

const char *
zkr_group_member_get_id (ZkrGroupMember *member)
{
  g_return_val_if_fail (member != NULL, NULL);
  return member->id;
}

const char *
zkr_group_member_get_path (ZkrGroupMember *member)
{
  g_return_val_if_fail (member != NULL, NULL);
  return member->path;
}

gboolean
zkr_group_member_close (ZkrGroupMember *member, int timeout_ms, GCancellable *cancellable,
                        GError **error)
{
  g_return_val_if_fail (member != NULL, FALSE);
  g_atomic_int_set (&member->closed, TRUE);
  zkr_tree_cache_close (member->cache);
  return zkr_persistent_node_close (member->node, timeout_ms, cancellable, error);
}

/* ---- listeners --------------------------------------------------------------- */

/* A node event of a direct child of the group is a member's. */
static void
member_marshal (GCallback func, gpointer owner, ZkrTreeCacheEventType type, const char *id,
                GBytes *data, gpointer user_data)
{
  ZkrGroupEvent group_event = type == ZKR_TREE_CACHE_NODE_ADDED     ? ZKR_GROUP_MEMBER_JOINED
                              : type == ZKR_TREE_CACHE_NODE_UPDATED ? ZKR_GROUP_MEMBER_CHANGED
                                                                    : ZKR_GROUP_MEMBER_LEFT;

  ((ZkrGroupMemberFunc) func) (owner, group_event, id, data, user_data);
}

guint
zkr_group_member_add_listener (ZkrGroupMember *member, ZkrGroupMemberFunc func,
                               gpointer user_data, GDestroyNotify destroy)
{
  g_return_val_if_fail (member != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);
  return zkr__tree_cache_add_child_listener (member->cache, member->path, member, &member->ref,
                                             (GDestroyNotify) zkr_group_member_unref,
                                             member_marshal, G_CALLBACK (func), user_data,
                                             destroy);
}

void
zkr_group_member_remove_listener (ZkrGroupMember *member, guint id)
{
  g_return_if_fail (member != NULL);
  zkr_tree_cache_remove_listener (member->cache, id);
}
