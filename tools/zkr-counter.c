/* zkr counter: reads, adds to or sets an atomic long (Curator's
 * DistributedAtomicLong layout) and prints the new value, or with --json
 * what the operation did (succeeded, previous, new). */
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "zkr-cli.h"

typedef struct {
  ZkrCli cli;
  char *add;
  char *set;
  char *lock_path;
  double timeout_s;
  gboolean json;
} CounterCmd;

static gboolean
parse_int64 (CounterCmd *cmd, const char *option, const char *text, gint64 *value)
{
  g_autoptr (GError) error = NULL;

  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, value, &error))
    {
      zkr_cli_usage_error (&cmd->cli, "%s: not a 64-bit integer: \"%s\"", option, text);
      return FALSE;
    }
  return TRUE;
}

static int
print_value (CounterCmd *cmd, const char *path, const ZkrAtomicLongValue *value)
{
  int written;

  if (cmd->json)
    {
      g_autoptr (JsonBuilder) builder = json_builder_new ();
      g_autoptr (JsonGenerator) generator = json_generator_new ();
      g_autoptr (JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "path");
      json_builder_add_string_value (builder, path);
      json_builder_set_member_name (builder, "succeeded");
      json_builder_add_boolean_value (builder, value->succeeded);
      json_builder_set_member_name (builder, "previous");
      json_builder_add_int_value (builder, value->pre_value);
      json_builder_set_member_name (builder, "new");
      json_builder_add_int_value (builder, value->post_value);
      json_builder_end_object (builder);
      root = json_builder_get_root (builder);
      json_generator_set_root (generator, root);
      text = json_generator_to_data (generator, NULL);
      written = printf ("%s\n", text);
    }
  else
    written = printf ("%" G_GINT64_FORMAT "\n", value->post_value);
  if (written < 0 || fflush (stdout) != 0)
    {
      zkr_cli_error (&cmd->cli, "could not write the output");
      return ZKR_EXIT_IOERR;
    }
  return value->succeeded ? 0 : 1;
}

static int
counter_run (CounterCmd *cmd, ZkrSession *session, const char *path, gint64 add, gint64 set,
             gint64 deadline)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  ZkrAtomicLongValue value = { 0 };
  /* What the connect left of --timeout. */
  int timeout_ms = deadline != 0 ? zkr_cli_left_ms (deadline) : -1;
  gboolean ok;

  atomic = cmd->lock_path != NULL
             ? zkr_atomic_long_new_promoted (session, path, NULL, cmd->lock_path, -1, NULL, &error)
             : zkr_atomic_long_new (session, path, NULL, &error);
  if (atomic == NULL)
    return zkr_cli_report (&cmd->cli, error);
  if (cmd->set != NULL)
    ok = zkr_atomic_long_set (atomic, set, timeout_ms, NULL, &value, &error);
  else if (cmd->add != NULL)
    ok = zkr_atomic_long_add (atomic, add, timeout_ms, NULL, &value, &error);
  else
    ok = zkr_atomic_long_get (atomic, timeout_ms, NULL, &value, &error);
  if (!ok)
    return zkr_cli_report (&cmd->cli, error);
  if (!value.succeeded)
    zkr_cli_note (&cmd->cli, "%s: not changed: the retries gave up", path);
  return print_value (cmd, path, &value);
}

int
zkr_cmd_counter (int argc, char **argv)
{
  CounterCmd cmd = { .cli = { .command = "counter" },
                     .timeout_s = 30 };
  const GOptionEntry entries[] = {
    { "add", 0, 0, G_OPTION_ARG_STRING, &cmd.add, NULL, NULL },
    { "set", 0, 0, G_OPTION_ARG_STRING, &cmd.set, NULL, NULL },
    { "lock", 0, 0, G_OPTION_ARG_STRING, &cmd.lock_path, NULL, NULL },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &cmd.timeout_s, NULL, NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &cmd.json, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (ZkrSession) session = NULL;
  gint64 add = 0, set = 0, deadline = 0;
  int status = 0;

  context = zkr_cli_context_new (&cmd.cli, entries);
  if (!zkr_cli_parse (&cmd.cli, context, &argc, &argv))
    status = ZKR_EXIT_USAGE;
  else if (argc != 2)
    status = zkr_cli_usage_error (&cmd.cli, "expected one PATH");
  else if (cmd.add != NULL && cmd.set != NULL)
    status = zkr_cli_usage_error (&cmd.cli, "--add and --set exclude each other");
  else if (!parse_int64 (&cmd, "--add", cmd.add, &add) ||
           !parse_int64 (&cmd, "--set", cmd.set, &set))
    status = ZKR_EXIT_USAGE;
  else if ((deadline = zkr_cli_deadline (cmd.timeout_s)),
           (session = zkr_cli_connect_by (&cmd.cli, deadline, &status)) != NULL)
    status = counter_run (&cmd, session, argv[1], add, set, deadline);
  g_free (cmd.add);
  g_free (cmd.set);
  g_free (cmd.lock_path);
  zkr_cli_clear (&cmd.cli);
  return status;
}
