/* zkr revoke: asks the holder of a lock node to give it up, the way
 * Curator's Revoker does ("__REVOKE__" written into the node's data), so
 * that a revocable holder (zkr lock --revocable, a zkr or Curator lock made
 * revocable) releases. Without NODE, asks PATH's current holder. */

#include <string.h>

#include "zkr-cli.h"
#include "zkr-node.h"

static int
revoke_print (ZkrNodeCmd *cmd, const char *node)
{
  g_autoptr (JsonBuilder) builder = NULL;
  g_autofree char *line = NULL;

  if (!cmd->json)
    {
      line = g_strdup_printf ("%s\n", node);
      return zkr_node_print_bytes (cmd, line, strlen (line));
    }
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "node");
  json_builder_add_string_value (builder, node);
  json_builder_end_object (builder);
  return zkr_node_print_json (cmd, builder);
}

static int
revoke_run (ZkrNodeCmd *cmd, const char *path, const char *node_arg)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *node = NULL;
  gboolean has_namespace = cmd->cli.name_space != NULL && cmd->cli.name_space[0] != '\0';

  if (node_arg == NULL)
    node = zkr_revoke_holder (cmd->session, path, zkr_node_cmd_timeout_ms (cmd), NULL, &error);
  else
    {
      /* NODE: a full path on the server ($ZKR_LOCK_NODE), or a name under
       * PATH, which is under the namespace. */
      node = node_arg[0] == '/'
                 ? g_strdup (node_arg)
                 : g_strdup_printf ("%s%s%s%s%s", has_namespace ? "/" : "",
                                    has_namespace ? cmd->cli.name_space : "", path,
                                    g_str_has_suffix (path, "/") ? "" : "/", node_arg);
      if (!zkr_revoke (cmd->session, node, zkr_node_cmd_timeout_ms (cmd), NULL, &error))
        g_clear_pointer (&node, g_free);
    }
  if (node == NULL)
    return zkr_node_cmd_report (cmd, error);
  return revoke_print (cmd, node);
}

int
zkr_cmd_revoke (int argc, char **argv)
{
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("revoke");

  return zkr_node_cmd_run (&cmd, NULL, 2, revoke_run, argc, argv);
}
