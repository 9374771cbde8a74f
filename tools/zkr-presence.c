/* zkr register, zkr services and zkr members: presence from the shell. A
 * command run while a service instance is registered (Curator's
 * curator-x-discovery layout, include/zkr/discovery.h), the registered
 * services and their instances, and the members of a group (GroupMember's
 * layout, read without joining). */

#include <string.h>

#include "zkr-guard.h"
#include "zkr-node.h"

/* ---- zkr register ------------------------------------------------------ */

typedef struct {
  ZkrCliRun base;                  /* timeout_s: --timeout, 0 one try */
  char *address;
  char *port_text;
  char *ssl_port_text;
  char *payload_text;
  char *id;
  char *base_path;
  ZkrServiceInstance *instance;    /* (owned) */
  ZkrServiceDiscovery *discovery;  /* (owned) */
  ZkrGuard *guard;                 /* (owned) */
  gboolean registered;
  GError *register_error;
} RegisterRun;

/* "--port 8080": 0..65535, else a usage error naming the value. */
static gboolean
register_parse_port (RegisterRun *run, const char *option, const char *text, int *port)
{
  gint64 value = -1;

  if (text == NULL)
    return *port = -1, TRUE;
  if (!g_ascii_string_to_signed (text, 10, 0, 65535, &value, NULL))
    return zkr_cli_usage_error (&run->base.cli, "bad %s '%s': need a port 0..65535", option, text),
           FALSE;
  *port = (int) value;
  return TRUE;
}

/* --payload's JSON, bounded as an instance's before it is parsed. */
static gboolean
register_parse_payload (RegisterRun *run)
{
  g_autoptr (GError) error = NULL;

  if (run->payload_text == NULL)
    return TRUE;
  if (!zkr_service_instance_set_payload_from_json (run->instance, run->payload_text, -1, &error))
    return zkr_cli_usage_error (&run->base.cli, "bad --payload '%s': %s", run->payload_text,
                                error->message),
           FALSE;
  return TRUE;
}

/* The instance from the command line, before anything is sent. */
static gboolean
register_build_instance (RegisterRun *run, const char *name)
{
  g_autoptr (GError) error = NULL;
  int port = -1, ssl_port = -1;

  if (run->address == NULL)
    return zkr_cli_usage_error (&run->base.cli, "missing --address"), FALSE;
  if (run->port_text == NULL)
    return zkr_cli_usage_error (&run->base.cli, "missing --port"), FALSE;
  if (!register_parse_port (run, "--port", run->port_text, &port)
      || !register_parse_port (run, "--ssl-port", run->ssl_port_text, &ssl_port))
    return FALSE;
  run->instance = zkr_service_instance_new (name, run->id, &error);
  if (run->instance == NULL)
    return zkr_cli_usage_error (&run->base.cli, "%s", error->message), FALSE;
  zkr_service_instance_set_address (run->instance, run->address);
  if (!zkr_service_instance_set_port (run->instance, port, &error)
      || !zkr_service_instance_set_ssl_port (run->instance, ssl_port, &error))
    return zkr_cli_usage_error (&run->base.cli, "%s", error->message), FALSE;
  return register_parse_payload (run);
}

static gboolean
register_check_arguments (gpointer data, int argc, char **argv, char **command)
{
  RegisterRun *run = data;

  if (argc < 2)
    return zkr_cli_usage_error (&run->base.cli, "missing NAME"), FALSE;
  if (argc > 2)
    return zkr_cli_usage_error (&run->base.cli, "unexpected argument '%s' (put CMD after '--')",
                                argv[2]), FALSE;
  if (command == NULL || command[0] == NULL)
    return zkr_cli_usage_error (&run->base.cli, "missing '--' and CMD"), FALSE;
  if (!(run->base.timeout_s >= 0 && run->base.timeout_s < 1e6))
    return zkr_cli_usage_error (&run->base.cli, "bad --timeout %g: need seconds >= 0",
                                run->base.timeout_s), FALSE;
  return register_build_instance (run, argv[1]);
}

/* The blocking register runs in a worker thread while the main loop runs,
 * so that the guard's signal sources can cancel it. */
static void
register_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  RegisterRun *run = task_data;
  GError *error = NULL;
  int timeout_ms = run->base.deadline != 0 ? zkr_cli_left_ms (run->base.deadline) : 0;

  (void) source;
  if (zkr_service_discovery_register (run->discovery, run->instance, timeout_ms, cancellable,
                                      &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_registered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RegisterRun *run = user_data;

  (void) source;
  run->registered = g_task_propagate_boolean (G_TASK (result), &run->register_error);
  g_main_loop_quit (run->base.loop);
}

static gboolean
register_instance (RegisterRun *run)
{
  g_autoptr (GTask) task = g_task_new (NULL, zkr_guard_get_cancellable (run->guard),
                                       on_registered, run);

  g_task_set_task_data (task, run, NULL);
  g_task_run_in_thread (task, register_in_thread);
  g_main_loop_run (run->base.loop);
  return run->registered;
}

static int
register_failed (RegisterRun *run)
{
  int signo = zkr_guard_get_signal (run->guard);

  if (signo != 0)
    return 128 + signo;
  if (g_error_matches (run->register_error, ZKR_ERROR, ZKR_ERROR_TIMEOUT))
    {
      zkr_cli_error (&run->base.cli, "not registered within %g s: %s", run->base.timeout_s,
                     run->register_error->message);
      return ZKR_EXIT_TIMEOUT;
    }
  return zkr_cli_report (&run->base.cli, run->register_error);
}

static char **
register_environment (RegisterRun *run)
{
  const char *name = zkr_service_instance_get_name (run->instance);
  const char *id = zkr_service_instance_get_id (run->instance);
  char **env = g_new0 (char *, 4);

  env[0] = g_strdup_printf ("ZKR_SERVICE_NAME=%s", name);
  env[1] = g_strdup_printf ("ZKR_SERVICE_ID=%s", id);
  env[2] = g_strdup_printf ("ZKR_SERVICE_NODE=%s/%s/%s",
                            zkr_service_discovery_get_base_path (run->discovery), name, id);
  return env;
}

static void
register_remove (RegisterRun *run)
{
  g_autoptr (GError) error = NULL;
  int timeout_ms = run->base.timeout_s == 0 ? 0 : (int) MIN (run->base.timeout_s * 1000, G_MAXINT);

  if (!zkr_service_discovery_unregister (run->discovery,
                                         zkr_service_instance_get_name (run->instance),
                                         zkr_service_instance_get_id (run->instance), timeout_ms,
                                         NULL, &error))
    zkr_cli_error (&run->base.cli, "unregistering not confirmed (the ephemeral node goes with the "
                              "session): %s", error->message);
}

static int
register_run_connected (gpointer data, char **command)
{
  RegisterRun *run = data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = NULL;
  int status;

  run->discovery = zkr_service_discovery_new (run->base.session, run->base_path, &error);
  if (run->discovery == NULL)
    return zkr_cli_report (&run->base.cli, error);
  run->guard = zkr_guard_new ("zkr register", ZKR_ON_LOSS_TERM, run->base.cli.quiet);
  if (!register_instance (run))
    {
      /* A timed-out registration goes on in the background: stop it. */
      zkr_service_discovery_close (run->discovery, 0, NULL, NULL);
      return register_failed (run);
    }
  env = register_environment (run);
  status = zkr_guard_run (run->guard, command, env);
  register_remove (run);
  return status;
}

static void
register_drop (gpointer data)
{
  RegisterRun *run = data;

  g_clear_pointer (&run->discovery, zkr_service_discovery_unref);
}

int
zkr_cmd_register (int argc, char **argv)
{
  static const ZkrCliSteps steps = { register_check_arguments, register_run_connected,
                                     register_drop };
  RegisterRun run = { .base = { .cli = { .command = "register" },
                                .timeout_s = ZKR_NODE_DEFAULT_TIMEOUT_S } };
  GOptionEntry entries[] = {
    { "address", 'a', 0, G_OPTION_ARG_STRING, &run.address, NULL, NULL },
    { "port", 'p', 0, G_OPTION_ARG_STRING, &run.port_text, NULL, NULL },
    { "ssl-port", 0, 0, G_OPTION_ARG_STRING, &run.ssl_port_text, NULL, NULL },
    { "payload", 0, 0, G_OPTION_ARG_STRING, &run.payload_text, NULL, NULL },
    { "id", 0, 0, G_OPTION_ARG_STRING, &run.id, NULL, NULL },
    { "base-path", 0, 0, G_OPTION_ARG_STRING, &run.base_path, NULL, NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &run.base.timeout_s, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  int status = zkr_cli_run (&run.base, entries, &steps, argc, argv);

  g_clear_pointer (&run.guard, zkr_guard_free);
  g_clear_pointer (&run.instance, zkr_service_instance_free);
  g_clear_error (&run.register_error);
  g_free (run.address);
  g_free (run.port_text);
  g_free (run.ssl_port_text);
  g_free (run.payload_text);
  g_free (run.id);
  g_free (run.base_path);
  return status;
}

/* ---- zkr services ------------------------------------------------------- */

typedef struct {
  ZkrNodeCmd cmd;
  char *base_path;
  ZkrServiceDiscovery *discovery;  /* (owned) */
} ServicesRun;

static int
services_print_names (ServicesRun *run)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (GString) text = g_string_new (NULL);

  names = zkr_service_discovery_query_names (run->discovery, zkr_node_cmd_timeout_ms (&run->cmd),
                                             NULL, &error);
  if (names == NULL)
    return zkr_node_cmd_report (&run->cmd, error);
  json_builder_begin_array (builder);
  for (guint i = 0; names[i] != NULL; i++)
    {
      json_builder_add_string_value (builder, names[i]);
      g_string_append_printf (text, "%s\n", names[i]);
    }
  json_builder_end_array (builder);
  if (run->cmd.json)
    return zkr_node_print_json (&run->cmd, builder);
  return zkr_node_print_bytes (&run->cmd, text->str, text->len);
}

static void
services_add_line (GString *text, const ZkrServiceInstance *instance)
{
  const char *address = zkr_service_instance_get_address (instance);
  int port = zkr_service_instance_get_port (instance);

  g_string_append_printf (text, "%s %s:", zkr_service_instance_get_id (instance),
                          address != NULL ? address : "-");
  if (port >= 0)
    g_string_append_printf (text, "%d\n", port);
  else
    g_string_append (text, "-\n");
}

/* Curator's JSON of @instance, as a value of the array being built. */
static void
services_add_json (JsonBuilder *builder, const ZkrServiceInstance *instance)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  /* What zkr read, it writes (bounded as it was read). */
  g_autofree char *json = zkr_service_instance_to_json (instance, NULL, NULL);

  if (json != NULL && json_parser_load_from_data (parser, json, -1, NULL)
      && json_parser_get_root (parser) != NULL)
    json_builder_add_value (builder, json_node_copy (json_parser_get_root (parser)));
}

static int
services_print_instances (ServicesRun *run, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) instances = NULL;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (GString) text = g_string_new (NULL);

  instances = zkr_service_discovery_query_instances (run->discovery, name,
                                                     zkr_node_cmd_timeout_ms (&run->cmd), NULL,
                                                     &error);
  if (instances == NULL)
    return zkr_node_cmd_report (&run->cmd, error);
  json_builder_begin_array (builder);
  for (guint i = 0; i < instances->len; i++)
    {
      services_add_line (text, g_ptr_array_index (instances, i));
      services_add_json (builder, g_ptr_array_index (instances, i));
    }
  json_builder_end_array (builder);
  if (run->cmd.json)
    return zkr_node_print_json (&run->cmd, builder);
  return zkr_node_print_bytes (&run->cmd, text->str, text->len);
}

static gboolean
services_parse (ServicesRun *run, GOptionContext *context, int *argc, char ***argv)
{
  if (!zkr_cli_parse (&run->cmd.cli, context, argc, argv))
    return FALSE;
  if (!(run->cmd.timeout_s >= 0 && run->cmd.timeout_s < 1e6))
    return zkr_cli_usage_error (&run->cmd.cli, "bad --timeout %g: need seconds >= 0",
                                run->cmd.timeout_s), FALSE;
  if (*argc > 2)
    return zkr_cli_usage_error (&run->cmd.cli, "unexpected argument '%s'", (*argv)[2]), FALSE;
  return TRUE;
}

int
zkr_cmd_services (int argc, char **argv)
{
  ServicesRun run = { .cmd = ZKR_NODE_CMD_INIT ("services") };
  GOptionEntry entries[] = {
    { "base-path", 0, 0, G_OPTION_ARG_STRING, &run.base_path, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = ZKR_EXIT_USAGE;

  context = zkr_node_cmd_context_new (&run.cmd, entries, FALSE);
  if (services_parse (&run, context, &argc, &argv))
    status = zkr_node_cmd_connect (&run.cmd);
  if (status == 0)
    {
      run.discovery = zkr_service_discovery_new (run.cmd.session, run.base_path, &error);
      if (run.discovery == NULL)
        status = zkr_node_cmd_report (&run.cmd, error);
      else if (argc < 2)
        status = services_print_names (&run);
      else
        status = services_print_instances (&run, argv[1]);
    }
  g_clear_pointer (&run.discovery, zkr_service_discovery_unref);
  g_free (run.base_path);
  return zkr_node_cmd_finish (&run.cmd, status);
}

/* ---- zkr members -------------------------------------------------------- */

/* Never NULL, also for an empty payload. */
static const char *
payload_bytes (GBytes *payload, gsize *len)
{
  const char *bytes = g_bytes_get_data (payload, len);

  return bytes != NULL ? bytes : "";
}

static gboolean
payload_is_plain_text (const char *bytes, gsize len)
{
  if (!g_utf8_validate_len (bytes, len, NULL))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if ((guchar) bytes[i] < 0x20 || bytes[i] == 0x7f || bytes[i] == '\\')
      return FALSE;
  return TRUE;
}

static void
members_add_line (GString *text, const char *id, GBytes *payload)
{
  gsize len = 0;
  const char *bytes = payload_bytes (payload, &len);
  g_autofree char *raw = g_strndup (bytes, len);
  g_autofree char *escaped = NULL;

  /* Byte by byte: g_strescape stops at a NUL. UTF-8 text keeps its
   * non-ASCII characters; other bytes >= 0x80 are escaped. */
  if (payload_is_plain_text (bytes, len))
    {
      g_string_append_printf (text, "%s\t%s\n", id, raw);
      return;
    }
  g_string_append_printf (text, "%s\t", id);
  for (gsize i = 0; i < len; i++)
    {
      char one[2] = { bytes[i], '\0' };

      if (bytes[i] == '\0')
        g_string_append (text, "\\000");
      else if ((guchar) bytes[i] >= 0x80 && g_utf8_validate_len (bytes, len, NULL))
        g_string_append_c (text, bytes[i]);
      else
        {
          escaped = g_strescape (one, NULL);
          g_string_append (text, escaped);
          g_clear_pointer (&escaped, g_free);
        }
    }
  g_string_append_c (text, '\n');
}

static void
members_add_json (JsonBuilder *builder, const char *id, GBytes *payload)
{
  gsize len = 0;
  const char *bytes = payload_bytes (payload, &len);
  g_autofree char *base64 = NULL;
  g_autofree char *text = NULL;

  json_builder_set_member_name (builder, id);
  if (memchr (bytes, '\0', len) == NULL && g_utf8_validate_len (bytes, len, NULL))
    {
      text = g_strndup (bytes, len);
      json_builder_add_string_value (builder, text);
      return;
    }
  base64 = g_base64_encode ((const guchar *) bytes, len);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "base64");
  json_builder_add_string_value (builder, base64);
  json_builder_end_object (builder);
}

static int
members_run (ZkrNodeCmd *cmd, const char *path, const char *argument)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) ids = NULL;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (GString) text = g_string_new (NULL);

  (void) argument;
  ids = zkr_node_get_children (cmd->session, path, zkr_node_cmd_timeout_ms (cmd), NULL, NULL,
                               &error);
  if (ids == NULL)
    return zkr_node_cmd_report (cmd, error);
  json_builder_begin_object (builder);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autofree char *member = g_strconcat (path, g_str_equal (path, "/") ? "" : "/", ids[i],
                                             NULL);
      g_autoptr (GBytes) payload = zkr_node_get (cmd->session, member,
                                                 zkr_node_cmd_timeout_ms (cmd), NULL, NULL, &error);

      if (payload == NULL && g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
        {
          g_clear_error (&error);
          continue;
        }
      if (payload == NULL)
        return zkr_node_cmd_report (cmd, error);
      members_add_line (text, ids[i], payload);
      members_add_json (builder, ids[i], payload);
    }
  json_builder_end_object (builder);
  if (cmd->json)
    return zkr_node_print_json (cmd, builder);
  return zkr_node_print_bytes (cmd, text->str, text->len);
}

int
zkr_cmd_members (int argc, char **argv)
{
  ZkrNodeCmd cmd = ZKR_NODE_CMD_INIT ("members");

  return zkr_node_cmd_run (&cmd, NULL, 1, members_run, argc, argv);
}
