/* zkr set, zkr create and zkr rm: the writes from the shell, each fenced
 * by a lock node when asked (zkr-node-fence.c), with an exit status per
 * refusal (no node, node exists, bad version, not empty, lock lost). */

#include <stdio.h>
#include <string.h>

#include "zkr-node.h"

/* ---- the value to write ------------------------------------------------- */

static GBytes *
read_stdin (GError **error)
{
  GByteArray *bytes = g_byte_array_new ();
  guint8 buffer[65536];
  size_t got;

  while ((got = fread (buffer, 1, sizeof buffer, stdin)) > 0)
    g_byte_array_append (bytes, buffer, (guint) got);
  if (ferror (stdin))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot read standard input");
      g_byte_array_unref (bytes);
      return NULL;
    }
  return g_byte_array_free_to_bytes (bytes);
}

/* The value from VALUE or from --file ("-": standard input), byte for
 * byte; NULL after a usage error was printed. */
static GBytes *
value_get (ZkrNodeCmd *cmd, const char *file, const char *value, gboolean *failed)
{
  g_autoptr (GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;
  GBytes *bytes;

  *failed = FALSE;
  if (file != NULL && value != NULL)
    zkr_cli_usage_error (&cmd->cli, "give VALUE or --file, not both");
  else if (file == NULL)
    return value != NULL ? g_bytes_new (value, strlen (value)) : NULL;
  else if (strcmp (file, "-") == 0 && (bytes = read_stdin (&error)) != NULL)
    return bytes;
  else if (strcmp (file, "-") != 0 && g_file_get_contents (file, &contents, &len, &error))
    return g_bytes_new_take (contents, len);
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

static const char fence_text[] =
  "With --fenced-by NODE (or --fenced inside `zkr lock ... -- CMD`, where\n"
  "NODE is $ZKR_LOCK_NODE) the write and a check that NODE still exists go\n"
  "to ZooKeeper as one transaction: once the lock is lost and its node gone,\n"
  "nothing is written and zkr exits 70. NODE is the node's full path on\n"
  "the server (with the namespace, if any), as zkr lock gives it.\n";

static const char set_description_text[] =
  "Replaces the data of the node at PATH with VALUE (or the contents of\n"
  "--file, byte for byte). With --version V the write succeeds only if the\n"
  "node's data version is still V (zkr get --json shows it).\n"
  "\n"
  "%s"
  "\n"
  "Prints nothing; with --json {\"path\":..., \"stat\":{...as zkr get...}},\n"
  "the stat after the write.\n"
  "\n"
  "Exit status: 0 written; 64 bad arguments; 65 the node's version is not V;\n"
  "66 no such node; 69 ZooKeeper unreachable or failed (after a lost\n"
  "connection the write may or may not have happened); 70 fenced and the\n"
  "lock node is gone (nothing written); 74 output not written; 75 not done\n"
  "within --timeout (the write may still happen); 77 authentication or ACL\n"
  "refused.\n"
  "\n"
  "Example:\n"
  "  zkr lock /locks/config -- sh -c 'zkr set --fenced /config/mode active'";

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
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("set", "PATH VALUE");
  int version = -1;
  g_autofree char *file = NULL;
  GOptionEntry entries[] = {
    { "version", 'v', 0, G_OPTION_ARG_INT, &version,
      "Write only if the node's data version is V (default: any)", "V" },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &file,
      "Write the contents of FILE ('-': standard input) instead of VALUE", "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autofree char *description = g_strdup_printf (set_description_text, fence_text);
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GBytes) value = NULL;
  g_autoptr (GError) error = NULL;
  gboolean failed;
  ZkrStat stat;
  int status;

  context = zkr_node_cmd_context_new (&cmd, "Replace a node's data.", description, entries, TRUE);
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

static const char create_description_text[] =
  "Creates the node PATH with VALUE as its data (or the contents of --file,\n"
  "or no data), and prints the path created: with --sequential the server\n"
  "appends a 10-digit counter to PATH (\"/jobs/job-\" makes\n"
  "\"/jobs/job-0000000007\"). --parents creates missing ancestors first\n"
  "(persistent, no data). An --ephemeral node belongs to zkr's session: it\n"
  "goes when zkr exits; --container makes a node the server removes some\n"
  "time after its last child went.\n"
  "\n"
  "%s"
  "\n"
  "JSON (--json): {\"path\": the path created, \"stat\":{...as zkr get...}}.\n"
  "\n"
  "Exit status: 0 created; 64 bad arguments; 66 a parent is missing (see\n"
  "--parents); 69 ZooKeeper unreachable or failed (after a lost connection\n"
  "the node may or may not exist); 70 fenced and the lock node is gone\n"
  "(nothing written); 73 the node exists already; 74 output not written;\n"
  "75 not done within --timeout; 77 authentication or ACL refused.\n"
  "\n"
  "Example:\n"
  "  zkr create --parents --sequential /queue/job- \"$(cat job.json)\"";

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
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("create", "PATH [VALUE]");
  CreateOptions options = { 0 };
  GOptionEntry entries[] = {
    { "parents", 'p', 0, G_OPTION_ARG_NONE, &options.parents,
      "Create missing ancestors first (persistent, no data)", NULL },
    { "ephemeral", 'e', 0, G_OPTION_ARG_NONE, &options.ephemeral,
      "An ephemeral node (gone when zkr exits)", NULL },
    { "sequential", 's', 0, G_OPTION_ARG_NONE, &options.sequential,
      "Append the parent's 10-digit counter to the name", NULL },
    { "container", 'c', 0, G_OPTION_ARG_NONE, &options.container,
      "A container node (removed by the server once empty)", NULL },
    { "file", 'f', 0, G_OPTION_ARG_FILENAME, &options.file,
      "The data is the contents of FILE ('-': standard input)", "FILE" },
    G_OPTION_ENTRY_NULL,
  };
  g_autofree char *description = g_strdup_printf (create_description_text, fence_text);
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GBytes) value = NULL;
  ZkrCreateMode mode = ZKR_CREATE_PERSISTENT;
  gboolean failed = TRUE;
  int status = ZKR_EXIT_USAGE;

  context = zkr_node_cmd_context_new (&cmd, "Create a node.", description, entries, TRUE);
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

static const char rm_description_text[] =
  "Deletes the node PATH. A node with children is refused (exit 67) unless\n"
  "-r is given: then everything below PATH goes too, deepest first, and\n"
  "nodes created below PATH meanwhile as well. With --version V, PATH is\n"
  "deleted only if its data version is V; with -r the version is checked\n"
  "before anything is deleted. A fenced rm -r checks the lock node with\n"
  "every delete.\n"
  "\n"
  "%s"
  "\n"
  "Prints nothing; with --json {\"path\":..., \"recursive\":true|false}.\n"
  "\n"
  "Exit status: 0 deleted; 64 bad arguments; 65 the node's version is not V;\n"
  "66 no such node; 67 the node has children; 69 ZooKeeper unreachable or\n"
  "failed; 70 fenced and the lock node is gone (nothing more deleted); 74\n"
  "output not written; 75 not done within --timeout; 77 authentication or\n"
  "ACL refused.\n"
  "\n"
  "Example:\n"
  "  zkr rm -r /tmp/build-42";

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
  RmRun run = { .cmd = ZKR_NODE_CMD_INIT ("rm", "PATH"), .version = -1 };
  GOptionEntry entries[] = {
    { "recursive", 'r', 0, G_OPTION_ARG_NONE, &run.recursive,
      "Delete everything below PATH too", NULL },
    { "version", 'v', 0, G_OPTION_ARG_INT, &run.version,
      "Delete only if the node's data version is V (default: any)", "V" },
    G_OPTION_ENTRY_NULL,
  };
  g_autofree char *description = g_strdup_printf (rm_description_text, fence_text);
  g_autoptr (GOptionContext) context = NULL;
  int status;

  context = zkr_node_cmd_context_new (&run.cmd, "Delete a node.", description, entries, TRUE);
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
