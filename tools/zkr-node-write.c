/* zkr set, zkr create and zkr rm: the writes from the shell, each fenced
 * by a lock node when asked (zkr-node-fence.c), with an exit status per
 * refusal (no node, node exists, bad version, not empty, lock lost). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "zkr-node.h"

/* ---- the value to write ------------------------------------------------- */

/* @stream's bytes, at most what a node holds: a larger file (or
 * /dev/zero, a pipe that never ends) is refused once one byte over is
 * read, never held whole in memory. */
static GBytes *
read_bounded (FILE *stream, GError **error)
{
  GByteArray *bytes = g_byte_array_new ();
  guint8 buffer[65536];
  size_t got;

  while (bytes->len <= ZKR_NODE_MAX_DATA_SIZE
         && (got = fread (buffer, 1, sizeof buffer, stream)) > 0)
    g_byte_array_append (bytes, buffer, (guint) got);
  if (ferror (stream))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot read it");
  else if (bytes->len > ZKR_NODE_MAX_DATA_SIZE)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 "more than ZKR_NODE_MAX_DATA_SIZE (%d bytes), the most a node holds",
                 ZKR_NODE_MAX_DATA_SIZE);
  else
    return g_byte_array_free_to_bytes (bytes);
  g_byte_array_unref (bytes);
  return NULL;
}

static GBytes *
read_file (const char *file, GError **error)
{
  FILE *stream;
  GBytes *bytes;

  if (strcmp (file, "-") == 0)
    return read_bounded (stdin, error);
  stream = fopen (file, "rb");
  if (stream == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
      return NULL;
    }
  bytes = read_bounded (stream, error);
  fclose (stream);
  return bytes;
}

/* The value from VALUE or from --file ("-": standard input), byte for
 * byte; NULL after a usage error was printed. */
static GBytes *
value_get (ZkrNodeCmd *cmd, const char *file, const char *value, gboolean *failed)
{
  g_autoptr (GError) error = NULL;
  GBytes *bytes;

  *failed = FALSE;
  if (file != NULL && value != NULL)
    zkr_cli_usage_error (&cmd->cli, "give VALUE or --file, not both");
  else if (file == NULL)
    return value != NULL ? g_bytes_new (value, strlen (value)) : NULL;
  else if ((bytes = read_file (file, &error)) != NULL)
    return bytes;
  else
    zkr_cli_usage_error (&cmd->cli, "bad --file '%s': %s", file, error->message);
  *failed = TRUE;
  return NULL;
}

static const void *
value_data (GBytes *value, gsize *len)
{
  *len = 0;
  return value != NULL ? g_bytes_get_data (value, len) : NULL;
}

/* {"path": PATH, "stat": {...}} */
static int
print_path_and_stat (ZkrNodeCmd *cmd, const char *path, const ZkrStat *stat)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  zkr_node_json_add_stat (builder, stat);
  json_builder_end_object (builder);
  return zkr_node_print_json (cmd, builder);
}

/* ---- zkr set ----------------------------------------------------------- */

static gboolean
write_set (ZkrNodeCmd *cmd, const char *path, GBytes *value, int version, ZkrStat *stat,
           GError **error)
{
  gsize len;
  const void *data = value_data (value, &len);

  if (cmd->fence_node != NULL)
    return zkr_node_fenced_set (cmd, path, data, len, version, stat, error);
  return zkr_node_set (cmd->session, path, data, len, version, zkr_node_cmd_timeout_ms (cmd), NULL,
                       stat, error);
}

int
zkr_cmd_set (int argc, char **argv)
{
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("set");
  int version = -1;
  g_autofree char *file = NULL;
  GOptionEntry entries[] = {
    { "version", 'v', 0, G_OPTION_ARG_INT, &version, NULL, NULL },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &file, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GBytes) value = NULL;
  g_autoptr (GError) error = NULL;
  gboolean failed;
  ZkrStat stat;
  int status;

  context = zkr_node_cmd_context_new (&cmd, entries, TRUE);
  if (!zkr_node_cmd_parse (&cmd, context, &argc, &argv, 2))
    return zkr_node_cmd_finish (&cmd, ZKR_EXIT_USAGE);
  value = value_get (&cmd, file, argc > 2 ? argv[2] : NULL, &failed);
  if (failed)
    return zkr_node_cmd_finish (&cmd, ZKR_EXIT_USAGE);
  if (value == NULL)
    return zkr_node_cmd_finish (&cmd, zkr_cli_usage_error (&cmd.cli, "missing VALUE (or --file)"));
  status = zkr_node_cmd_connect (&cmd);
  if (status == 0 && !write_set (&cmd, argv[1], value, version, &stat, &error))
    status = zkr_node_cmd_report (&cmd, error);
  else if (status == 0 && cmd.json)
    status = print_path_and_stat (&cmd, argv[1], &stat);
  return zkr_node_cmd_finish (&cmd, status);
}

/* ---- zkr create -------------------------------------------------------- */

typedef struct {
  gboolean parents, ephemeral, sequential, container;
  char *file;
} CreateOptions;

static gboolean
create_mode (ZkrNodeCmd *cmd, const CreateOptions *options, ZkrCreateMode *mode)
{
  if (options->container && (options->ephemeral || options->sequential))
    return zkr_cli_usage_error (&cmd->cli, "--container excludes --ephemeral and --sequential"), FALSE;
  if (options->container)
    *mode = ZKR_CREATE_CONTAINER;
  else if (options->ephemeral)
    *mode = options->sequential ? ZKR_CREATE_EPHEMERAL_SEQUENTIAL : ZKR_CREATE_EPHEMERAL;
  else
    *mode = options->sequential ? ZKR_CREATE_PERSISTENT_SEQUENTIAL : ZKR_CREATE_PERSISTENT;
  return TRUE;
}

static int
create_run (ZkrNodeCmd *cmd, const char *path, GBytes *value, ZkrCreateMode mode,
            gboolean parents)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *created = NULL;
  g_autofree char *line = NULL;
  gsize len;
  const void *data = value_data (value, &len);
  ZkrStat stat;
  gboolean ok;

  if (cmd->fence_node != NULL)
    ok = zkr_node_fenced_create (cmd, path, data, len, mode, parents, &created, &stat, &error);
  else
    ok = zkr_node_create (cmd->session, path, data, len, mode,
                          parents ? ZKR_CREATE_PARENTS_PERSISTENT : ZKR_CREATE_PARENTS_NONE,
                          zkr_node_cmd_timeout_ms (cmd), NULL, &created, &stat, &error);
  if (!ok)
    return zkr_node_cmd_report (cmd, error);
  if (cmd->json)
    return print_path_and_stat (cmd, created, &stat);
  line = g_strconcat (created, "\n", NULL);
  return zkr_node_print_bytes (cmd, line, strlen (line));
}

int
zkr_cmd_create (int argc, char **argv)
{
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("create");
  CreateOptions options = { 0 };
  GOptionEntry entries[] = {
    { "parents", 'p', 0, G_OPTION_ARG_NONE, &options.parents, NULL, NULL },
    { "ephemeral", 'e', 0, G_OPTION_ARG_NONE, &options.ephemeral, NULL, NULL },
    { "sequential", 's', 0, G_OPTION_ARG_NONE, &options.sequential, NULL, NULL },
    { "container", 'c', 0, G_OPTION_ARG_NONE, &options.container, NULL, NULL },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &options.file, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GBytes) value = NULL;
  ZkrCreateMode mode = ZKR_CREATE_PERSISTENT;
  gboolean failed = TRUE;
  int status = ZKR_EXIT_USAGE;

  context = zkr_node_cmd_context_new (&cmd, entries, TRUE);
  if (zkr_node_cmd_parse (&cmd, context, &argc, &argv, 2)
      && create_mode (&cmd, &options, &mode))
    value = value_get (&cmd, options.file, argc > 2 ? argv[2] : NULL, &failed);
  if (!failed)
    status = zkr_node_cmd_connect (&cmd);
  if (!failed && status == 0)
    status = create_run (&cmd, argv[1], value, mode, options.parents);
  g_free (options.file);
  return zkr_node_cmd_finish (&cmd, status);
}

/* ---- zkr rm ------------------------------------------------------------ */

typedef struct {
  ZkrNodeCmd cmd;
  gboolean recursive;
  int version;
} RmRun;

static gboolean rm_fenced_tree (RmRun *run, const char *path, int version, GError **error);

/* A child someone else deleted meanwhile is fine. */
static gboolean
rm_fenced_children (RmRun *run, const char *path, GError **error)
{
  g_auto (GStrv) children = zkr_node_get_children (run->cmd.session, path,
                                                   zkr_node_cmd_timeout_ms (&run->cmd), NULL,
                                                   NULL, error);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *child = g_strconcat (path, g_str_equal (path, "/") ? "" : "/", children[i],
                                            NULL);
      g_autoptr (GError) child_error = NULL;

      if (!rm_fenced_tree (run, child, -1, &child_error)
          && !g_error_matches (child_error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
        {
          g_propagate_error (error, g_steal_pointer (&child_error));
          return FALSE;
        }
    }
  return children != NULL;
}

/* zkr_node_delete_full()'s walk, each delete fenced (the library's walk
 * takes no fence): the node first, so that the server checks @version
 * before anything goes; NOT_EMPTY deletes the children and tries again,
 * a few rounds while others add children. */
static gboolean
rm_fenced_tree (RmRun *run, const char *path, int version, GError **error)
{
  for (int round = 0;; round++)
    {
      g_autoptr (GError) delete_error = NULL;

      if (zkr_node_fenced_delete (&run->cmd, path, version, &delete_error))
        return TRUE;
      if (round == 5 || !g_error_matches (delete_error, ZKR_ERROR, ZKR_ERROR_NOT_EMPTY))
        {
          g_propagate_error (error, g_steal_pointer (&delete_error));
          return FALSE;
        }
      if (!rm_fenced_children (run, path, error))
        return FALSE;
    }
}

static gboolean
rm_delete (RmRun *run, const char *path, GError **error)
{
  ZkrNodeCmd *cmd = &run->cmd;

  if (cmd->fence_node != NULL && run->recursive)
    return rm_fenced_tree (run, path, run->version, error);
  if (cmd->fence_node != NULL)
    return zkr_node_fenced_delete (cmd, path, run->version, error);
  return zkr_node_delete_full (cmd->session, path, run->version,
                               run->recursive ? ZKR_DELETE_CHILDREN : ZKR_DELETE_NONE,
                               zkr_node_cmd_timeout_ms (cmd), NULL, error);
}

static int
rm_run (RmRun *run, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonBuilder) builder = NULL;

  if (!rm_delete (run, path, &error))
    return zkr_node_cmd_report (&run->cmd, error);
  if (!run->cmd.json)
    return 0;
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  json_builder_set_member_name (builder, "recursive");
  json_builder_add_boolean_value (builder, run->recursive);
  json_builder_end_object (builder);
  return zkr_node_print_json (&run->cmd, builder);
}

int
zkr_cmd_rm (int argc, char **argv)
{
  RmRun run = { .cmd = ZKR_NODE_CMD_INIT ("rm"), .version = -1 };
  GOptionEntry entries[] = {
    { "recursive", 'r', 0, G_OPTION_ARG_NONE, &run.recursive, NULL, NULL },
    { "version", 'v', 0, G_OPTION_ARG_INT, &run.version, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  int status;

  context = zkr_node_cmd_context_new (&run.cmd, entries, TRUE);
  if (!zkr_node_cmd_parse (&run.cmd, context, &argc, &argv, 1))
    return zkr_node_cmd_finish (&run.cmd, ZKR_EXIT_USAGE);
  if (g_str_equal (argv[1], "/"))
    return zkr_node_cmd_finish (&run.cmd, zkr_cli_usage_error (&run.cmd.cli,
                                                              "refusing to remove '/'"));
  status = zkr_node_cmd_connect (&run.cmd);
  if (status == 0)
    status = rm_run (&run, argv[1]);
  return zkr_node_cmd_finish (&run.cmd, status);
}
