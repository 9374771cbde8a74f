/* zkr get and zkr ls: a node's data printed exactly as stored, and its
 * children (or, with -R, the whole tree below it), as text for the shell
 * or as JSON with the stats. */

#include <string.h>

#include "zkr-node.h"

/* ---- zkr get ----------------------------------------------------------- */

static int
get_run (ZkrNodeCmd *cmd, const char *path, const char *argument)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_autoptr (JsonBuilder) builder = NULL;
  ZkrStat stat;
  gsize len = 0;
  const void *bytes;

  (void) argument;
  data = zkr_node_get (cmd->session, path, zkr_node_cmd_timeout_ms (cmd), NULL, &stat, &error);
  if (data == NULL)
    return zkr_node_cmd_report (cmd, error);
  if (!cmd->json)
    {
      bytes = g_bytes_get_data (data, &len);
      return zkr_node_print_bytes (cmd, bytes, len);
    }
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  zkr_node_json_add_data (builder, data);
  zkr_node_json_add_stat (builder, &stat);
  json_builder_end_object (builder);
  return zkr_node_print_json (cmd, builder);
}

int
zkr_cmd_get (int argc, char **argv)
{
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("get");

  return zkr_node_cmd_run (&cmd, NULL, 1, get_run, argc, argv);
}

/* ---- zkr ls ------------------------------------------------------------ */

typedef struct {
  ZkrNodeCmd cmd;
  gboolean recursive;
  GString *text;          /* (owned) the text output, printed at the end */
  JsonBuilder *builder;   /* (owned) (nullable) with --json */
} LsRun;

static char *
child_path (const char *parent, const char *name)
{
  return g_strconcat (parent, g_str_equal (parent, "/") ? "" : "/", name, NULL);
}

static gboolean ls_node (LsRun *run, const char *path, GError **error);

/* -R: a child that went meanwhile is left out. */
static gboolean
ls_child (LsRun *run, const char *path, GError **error)
{
  g_autoptr (GError) child_error = NULL;

  if (ls_node (run, path, &child_error))
    return TRUE;
  if (g_error_matches (child_error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&child_error));
  return FALSE;
}

static gboolean
ls_node (LsRun *run, const char *path, GError **error)
{
  ZkrNodeCmd *cmd = &run->cmd;
  ZkrStat stat;
  g_auto (GStrv) children = NULL;

  children = zkr_node_get_children (cmd->session, path, zkr_node_cmd_timeout_ms (cmd), NULL, &stat,
                                    error);
  if (children == NULL)
    return FALSE;
  if (run->builder != NULL)
    {
      json_builder_begin_object (run->builder);
      json_builder_set_member_name (run->builder, "path");
      json_builder_add_string_value (run->builder, path);
      zkr_node_json_add_stat (run->builder, &stat);
      json_builder_set_member_name (run->builder, "children");
      json_builder_begin_array (run->builder);
    }
  for (guint i = 0; children[i] != NULL; i++)
    {
      g_autofree char *below = child_path (path, children[i]);

      if (!run->recursive && run->builder != NULL)
        json_builder_add_string_value (run->builder, children[i]);
      else if (!run->recursive)
        g_string_append_printf (run->text, "%s\n", children[i]);
      else
        {
          if (run->builder == NULL)
            g_string_append_printf (run->text, "%s\n", below);
          if (!ls_child (run, below, error))
            return FALSE;
        }
    }
  if (run->builder != NULL)
    {
      json_builder_end_array (run->builder);
      json_builder_end_object (run->builder);
    }
  return TRUE;
}

static int
ls_run (ZkrNodeCmd *cmd, const char *path, const char *argument)
{
  LsRun *run = (LsRun *) cmd;
  g_autoptr (GError) error = NULL;

  (void) argument;

  if (run->cmd.json)
    run->builder = json_builder_new ();
  run->text = g_string_new (NULL);
  if (!ls_node (run, path, &error))
    return zkr_node_cmd_report (&run->cmd, error);
  if (run->builder != NULL)
    return zkr_node_print_json (&run->cmd, run->builder);
  return zkr_node_print_bytes (&run->cmd, run->text->str, run->text->len);
}

int
zkr_cmd_ls (int argc, char **argv)
{
  LsRun run = { .cmd = ZKR_NODE_CMD_INIT ("ls") };
  GOptionEntry entries[] = {
    { "recursive", 'R', 0, G_OPTION_ARG_NONE, &run.recursive, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  int status = zkr_node_cmd_run (&run.cmd, entries, 1, ls_run, argc, argv);

  g_clear_object (&run.builder);
  if (run.text != NULL)
    g_string_free (run.text, TRUE);
  return status;
}
