/* zkr CLI: the fenced writes of set, create and rm. Each is one
 * transaction (<zkr/txn.h>) of the write and a check that the lock node
 * still exists, so the server, not zkr's idea of the lock, decides: once
 * the node is gone nothing is written and the write fails LOCK_LOST. */

#include <string.h>

#include "zkr-node.h"

static gboolean
fence_commit (ZkrNodeCmd *cmd, ZkrTxn *txn, GError **error)
{
  zkr_txn_fence (txn, cmd->fence_node);
  return zkr_txn_commit (txn, zkr_node_cmd_timeout_ms (cmd), NULL, error);
}

gboolean
zkr_node_fenced_set (ZkrNodeCmd *cmd, const char *path, const void *data, gsize len, int version,
                     ZkrStat *stat, GError **error)
{
  g_autoptr (ZkrTxn) txn = zkr_txn_new (cmd->session);
  guint index = zkr_txn_set (txn, path, data, len, version);

  if (!fence_commit (cmd, txn, error))
    return FALSE;
  if (!zkr_txn_get_stat (txn, index, stat))
    memset (stat, 0, sizeof *stat);
  return TRUE;
}

gboolean
zkr_node_fenced_delete (ZkrNodeCmd *cmd, const char *path, int version, GError **error)
{
  g_autoptr (ZkrTxn) txn = zkr_txn_new (cmd->session);

  zkr_txn_delete (txn, path, version);
  return fence_commit (cmd, txn, error);
}

/* --parents inside the fence: the missing ancestors of @path, outermost
 * first, become creates of the same transaction. */
static gboolean
add_missing_parents (ZkrNodeCmd *cmd, ZkrTxn *txn, const char *path, GError **error)
{
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *parent = g_strndup (path, strrchr (path, '/') - path);

  while (*parent != '\0')
    {
      g_autoptr (GError) exists_error = NULL;

      if (zkr_node_exists (cmd->session, parent, zkr_node_cmd_timeout_ms (cmd), NULL, NULL,
                           &exists_error))
        break;
      if (exists_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&exists_error));
          return FALSE;
        }
      g_ptr_array_add (missing, g_strdup (parent));
      *strrchr (parent, '/') = '\0';
    }
  for (guint i = missing->len; i-- > 0;)
    zkr_txn_create (txn, missing->pdata[i], NULL, 0, ZKR_CREATE_PERSISTENT);
  return TRUE;
}

/* One try: NODE_EXISTS from an ancestor means someone created it after
 * we looked (worth another try); from the node itself, a real answer. */
static gboolean
fenced_create_once (ZkrNodeCmd *cmd, const char *path, const void *data, gsize len,
                    ZkrCreateMode mode, gboolean parents, char **created_path, gboolean *again,
                    GError **error)
{
  g_autoptr (ZkrTxn) txn = zkr_txn_new (cmd->session);
  g_autoptr (GError) commit_error = NULL;
  guint index;

  *again = FALSE;
  if (parents && *path == '/' && !add_missing_parents (cmd, txn, path, error))
    return FALSE;
  index = zkr_txn_create (txn, path, data, len, mode);
  if (fence_commit (cmd, txn, &commit_error))
    {
      *created_path = g_strdup (zkr_txn_get_created_path (txn, index));
      return TRUE;
    }
  *again = g_error_matches (commit_error, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS)
           && zkr_txn_get_failed_index (txn) >= 0
           && (guint) zkr_txn_get_failed_index (txn) < index;
  g_propagate_error (error, g_steal_pointer (&commit_error));
  return FALSE;
}

gboolean
zkr_node_fenced_create (ZkrNodeCmd *cmd, const char *path, const void *data, gsize len,
                        ZkrCreateMode mode, gboolean parents, char **created_path, ZkrStat *stat,
                        GError **error)
{
  g_autoptr (GError) stat_error = NULL;

  for (int round = 0;; round++)
    {
      gboolean again;

      if (fenced_create_once (cmd, path, data, len, mode, parents, created_path, &again, error))
        break;
      if (!again || round == 4)
        return FALSE;
      g_clear_error (error);
    }
  /* A multi's create answers no stat: read it, as a courtesy to --json. */
  memset (stat, 0, sizeof *stat);
  if (!zkr_node_exists (cmd->session, *created_path, zkr_node_cmd_timeout_ms (cmd), NULL, stat,
                        &stat_error) && stat_error != NULL)
    zkr_cli_note (&cmd->cli, "created %s, but its stat could not be read: %s", *created_path,
                  stat_error->message);
  return TRUE;
}
