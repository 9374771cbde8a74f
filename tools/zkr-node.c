/* zkr CLI: the node commands' common options, checks and output: --json
 * and --timeout for every one, --fenced-by/--fenced for the writes, the
 * JSON of a stat and of a node's data, and stdout written byte for byte. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "zkr-node.h"

GOptionContext *
zkr_node_cmd_context_new (ZkrNodeCmd *cmd, const GOptionEntry *entries, gboolean writes)
{
  const GOptionEntry common[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &cmd->json, NULL, NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &cmd->timeout_s, NULL, NULL },
  };
  const GOptionEntry fencing[] = {
    { "fenced-by", 0, 0, G_OPTION_ARG_STRING, &cmd->fenced_by, NULL, NULL },
    { "fenced", 0, 0, G_OPTION_ARG_NONE, &cmd->fenced, NULL, NULL },
  };
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));

  for (guint i = 0; entries != NULL && entries[i].long_name != NULL; i++)
    g_array_append_val (all, entries[i]);
  g_array_append_vals (all, common, G_N_ELEMENTS (common));
  if (writes)
    g_array_append_vals (all, fencing, G_N_ELEMENTS (fencing));
  /* GOption copies the entries: the array may go when this returns. */
  return zkr_cli_context_new (&cmd->cli, (GOptionEntry *) all->data);
}

static gboolean
node_cmd_check_fence (ZkrNodeCmd *cmd)
{
  const char *env_node = g_getenv ("ZKR_LOCK_NODE");

  if (cmd->fenced && cmd->fenced_by != NULL)
    return zkr_cli_usage_error (&cmd->cli, "--fenced and --fenced-by exclude each other"), FALSE;
  if (cmd->fenced && (env_node == NULL || *env_node == '\0'))
    return zkr_cli_usage_error (&cmd->cli, "--fenced needs $ZKR_LOCK_NODE (set by zkr lock "
                                           "for its CMD); outside one, give --fenced-by NODE"),
           FALSE;
  if (cmd->fenced_by != NULL && *cmd->fenced_by != '/')
    return zkr_cli_usage_error (&cmd->cli, "bad --fenced-by '%s': need a lock node's absolute path",
                                cmd->fenced_by),
           FALSE;
  cmd->fence_node = cmd->fenced ? env_node : cmd->fenced_by;
  return TRUE;
}

gboolean
zkr_node_cmd_parse (ZkrNodeCmd *cmd, GOptionContext *context, int *argc, char ***argv,
                    int max_args)
{
  int args;

  if (!zkr_cli_parse (&cmd->cli, context, argc, argv))
    return FALSE;
  if (!(cmd->timeout_s >= 0 && cmd->timeout_s < 1e6))
    return zkr_cli_usage_error (&cmd->cli, "bad --timeout %g: need seconds >= 0", cmd->timeout_s),
           FALSE;
  if (!node_cmd_check_fence (cmd))
    return FALSE;
  /* A "--" GOption left in place only ends the options: drop it. */
  for (int i = 1; i < *argc; i++)
    if (strcmp ((*argv)[i], "--") == 0)
      {
        memmove (*argv + i, *argv + i + 1, (*argc - i) * sizeof (char *));
        (*argc)--;
        break;
      }
  args = *argc - 1;
  if (args < 1)
    return zkr_cli_usage_error (&cmd->cli, "missing PATH"), FALSE;
  if (args > max_args)
    return zkr_cli_usage_error (&cmd->cli, "unexpected argument '%s'", (*argv)[max_args + 1]),
           FALSE;
  return TRUE;
}

int
zkr_node_cmd_connect (ZkrNodeCmd *cmd)
{
  int status = 0;

  /* One deadline for the whole command, the connect included. */
  cmd->deadline = g_get_monotonic_time () + (gint64) (cmd->timeout_s * G_USEC_PER_SEC);
  cmd->session = zkr_cli_connect_by (&cmd->cli, cmd->timeout_s > 0 ? cmd->deadline : 0, &status);
  return cmd->session != NULL ? 0 : status;
}

int
zkr_node_cmd_timeout_ms (ZkrNodeCmd *cmd)
{
  gint64 left_ms = (cmd->deadline - g_get_monotonic_time ()) / 1000;

  if (cmd->timeout_s == 0)
    return 0;
  return (int) CLAMP (left_ms, 1, G_MAXINT);
}

int
zkr_node_cmd_finish (ZkrNodeCmd *cmd, int status)
{
  if (cmd->session != NULL)
    zkr_session_close (cmd->session);
  g_clear_pointer (&cmd->session, zkr_session_unref);
  g_clear_pointer (&cmd->fenced_by, g_free);
  zkr_cli_clear (&cmd->cli);
  return status;
}

int
zkr_node_cmd_run (ZkrNodeCmd *cmd, const GOptionEntry *entries, int max_args,
                  ZkrNodeCmdRun run, int argc, char **argv)
{
  g_autoptr (GOptionContext) context = zkr_node_cmd_context_new (cmd, entries, FALSE);
  int status;

  if (!zkr_node_cmd_parse (cmd, context, &argc, &argv, max_args))
    return zkr_node_cmd_finish (cmd, ZKR_EXIT_USAGE);
  status = zkr_node_cmd_connect (cmd);
  if (status == 0)
    status = run (cmd, argv[1], argc > 2 ? argv[2] : NULL);
  return zkr_node_cmd_finish (cmd, status);
}

int
zkr_node_cmd_report (ZkrNodeCmd *cmd, const GError *error)
{
  return zkr_cli_report (&cmd->cli, error);
}

/* ---- output ------------------------------------------------------------ */

static void
json_add_int (JsonBuilder *builder, const char *name, gint64 value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

void
zkr_node_json_add_stat (JsonBuilder *builder, const ZkrStat *stat)
{
  g_autofree char *owner = g_strdup_printf ("0x%016" G_GINT64_MODIFIER "x", stat->ephemeral_owner);

  json_builder_set_member_name (builder, "stat");
  json_builder_begin_object (builder);
  json_add_int (builder, "czxid", stat->czxid);
  json_add_int (builder, "mzxid", stat->mzxid);
  json_add_int (builder, "pzxid", stat->pzxid);
  json_add_int (builder, "ctime", stat->ctime);
  json_add_int (builder, "mtime", stat->mtime);
  json_add_int (builder, "version", stat->version);
  json_add_int (builder, "cversion", stat->cversion);
  json_add_int (builder, "aversion", stat->aversion);
  /* A session id: a string as elsewhere in zkr's output, since its 64
   * bits do not survive a reader that stores numbers as doubles. */
  json_builder_set_member_name (builder, "ephemeral_owner");
  json_builder_add_string_value (builder, owner);
  json_add_int (builder, "data_length", stat->data_length);
  json_add_int (builder, "num_children", stat->num_children);
  json_builder_end_object (builder);
}

void
zkr_node_json_add_data (JsonBuilder *builder, GBytes *data)
{
  gsize len = 0;
  const char *bytes = g_bytes_get_data (data, &len);
  g_autofree char *text = NULL;
  g_autofree char *base64 = g_base64_encode ((const guchar *) bytes, len);

  /* A JSON string is UTF-8 and json-glib's are NUL-terminated. */
  if (memchr (bytes, '\0', len) == NULL && g_utf8_validate_len (bytes, len, NULL))
    text = g_strndup (bytes, len);
  json_builder_set_member_name (builder, "data");
  if (text != NULL)
    json_builder_add_string_value (builder, text);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "data_base64");
  json_builder_add_string_value (builder, base64);
}

int
zkr_node_print_bytes (ZkrNodeCmd *cmd, const void *data, gsize len)
{
  if ((len > 0 && fwrite (data, 1, len, stdout) != len) || fflush (stdout) != 0)
    {
      zkr_cli_error (&cmd->cli, "cannot write to standard output: %s", g_strerror (errno));
      return ZKR_EXIT_IOERR;
    }
  return 0;
}

int
zkr_node_print_json (ZkrNodeCmd *cmd, JsonBuilder *builder)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  gsize len = 0;
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &len);
  line = g_strconcat (text, "\n", NULL);
  return zkr_node_print_bytes (cmd, line, len + 1);
}
