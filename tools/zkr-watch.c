/* zkr watch: prints each change of a node (created, data changed, deleted,
 * children changed) until SIGINT or SIGTERM, with one-shot watches
 * (<zkr/watch.h>) set again after each event; after a session loss it
 * reads the node again and says so. Everything runs in the main context. */

#include <signal.h>
#include <string.h>

#include <glib-unix.h>

#include "zkr-node.h"

typedef struct {
  ZkrNodeCmd cmd;
  const char *path;
  GCancellable *cancellable;  /* (owned) cancelled on SIGINT/SIGTERM */
  guint signal_sources[2];
  gboolean stopping;
  int status;
  guint pending;              /* async reads not answered yet */
  /* The node watch: a data watch while the node exists, else an exists
   * watch; the children watch only while it exists. */
  guint node_watch;
  guint children_watch;
  gboolean node_arming, children_arming;
  int node_event;             /* the event to print once re-read, -1: none */
  int children_event;
  gboolean announced;         /* "watching" said (the watches are set) */
  gboolean exists;
} WatchRun;

static void node_arm (WatchRun *run);
static void children_arm (WatchRun *run);

/* ---- output ------------------------------------------------------------ */

static void
watch_stop (WatchRun *run, int status)
{
  if (run->stopping)
    return;
  run->stopping = TRUE;
  run->status = status;
  g_cancellable_cancel (run->cancellable);
}

static void
watch_print (WatchRun *run, int event, const ZkrStat *stat, GBytes *data, char **children)
{
  g_autoptr (JsonBuilder) builder = NULL;
  g_autofree char *line = NULL;
  int status;

  if (!run->cmd.json)
    {
      line = g_strdup_printf ("%s %s\n", zkr_watch_event_name (event), run->path);
      status = zkr_node_print_bytes (&run->cmd, line, strlen (line));
    }
  else
    {
      builder = json_builder_new ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "event");
      json_builder_add_string_value (builder, zkr_watch_event_name (event));
      json_builder_set_member_name (builder, "path");
      json_builder_add_string_value (builder, run->path);
      json_builder_set_member_name (builder, "exists");
      json_builder_add_boolean_value (builder, stat != NULL);
      if (stat != NULL)
        zkr_node_json_add_stat (builder, stat);
      if (data != NULL)
        zkr_node_json_add_data (builder, data);
      if (children != NULL)
        {
          json_builder_set_member_name (builder, "children");
          json_builder_begin_array (builder);
          for (guint i = 0; children[i] != NULL; i++)
            json_builder_add_string_value (builder, children[i]);
          json_builder_end_array (builder);
        }
      json_builder_end_object (builder);
      status = zkr_node_print_json (&run->cmd, builder);
    }
  if (status != 0)
    watch_stop (run, status);
}

/* Once both watches are set the first time: the point from which no
 * change is missed (tests wait for it). */
static void
watch_announce (WatchRun *run)
{
  if (run->announced || run->node_arming || run->children_arming || run->node_watch == 0
      || (run->exists && run->children_watch == 0))
    return;
  run->announced = TRUE;
  zkr_cli_note (&run->cmd.cli, "watching %s", run->path);
}

/* ---- arming ------------------------------------------------------------ */

static gboolean
on_retry (gpointer data)
{
  WatchRun *run = data;

  run->pending--;
  if (!run->stopping && run->node_watch == 0 && !run->node_arming)
    node_arm (run);
  if (!run->stopping && run->exists && run->children_watch == 0 && !run->children_arming)
    children_arm (run);
  return G_SOURCE_REMOVE;
}

/* A failed read: after SIGINT/SIGTERM, nothing; a passing failure (no
 * connection, session lost meanwhile, deadline) is tried again in a
 * second; anything else ends the watch. */
static void
watch_failed (WatchRun *run, const GError *error)
{
  if (run->stopping)
    return;
  if (zkr_error_is_retryable (error) || g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT)
      || g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED))
    {
      zkr_cli_note (&run->cmd.cli, "could not watch %s (%s); trying again", run->path,
                    error->message);
      run->pending++;
      g_timeout_add_seconds (1, on_retry, run);
      return;
    }
  watch_stop (run, zkr_node_cmd_report (&run->cmd, error));
}

static int
watch_timeout_ms (WatchRun *run)
{
  run->cmd.deadline = g_get_monotonic_time () + (gint64) (run->cmd.timeout_s * G_USEC_PER_SEC);
  return zkr_node_cmd_timeout_ms (&run->cmd);
}

static void
on_node_event (ZkrSession *session, const char *path, ZkrWatchEvent event, gpointer user_data)
{
  WatchRun *run = user_data;

  (void) session, (void) path;
  run->node_watch = 0;
  if (run->stopping || event == ZKR_WATCH_EVENT_SESSION_CLOSED)
    return;
  if (event == ZKR_WATCH_EVENT_SESSION_LOST)
    zkr_cli_note (&run->cmd.cli, "session lost: its watches went with it; reading %s again",
                  run->path);
  run->node_event = event;
  node_arm (run);
}

/* The node watch is set: print the pending event with what was read. */
static void
node_armed (WatchRun *run, gboolean exists, const ZkrStat *stat, GBytes *data)
{
  run->exists = exists;
  if (run->node_event >= 0)
    watch_print (run, run->node_event, exists ? stat : NULL, data, NULL);
  run->node_event = -1;
  if (exists && run->children_watch == 0 && !run->children_arming)
    children_arm (run);
  watch_announce (run);
}

static void
on_exists_armed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WatchRun *run = user_data;
  g_autoptr (GError) error = NULL;
  ZkrStat stat;
  gboolean exists;

  (void) source;
  run->pending--;
  run->node_arming = FALSE;
  exists = zkr_watch_exists_finish (run->cmd.session, result, &stat, &run->node_watch, &error);
  if (error != NULL)
    watch_failed (run, error);
  else
    node_armed (run, exists, &stat, NULL);
}

static void
on_data_armed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WatchRun *run = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  ZkrStat stat;

  (void) source;
  run->pending--;
  run->node_arming = FALSE;
  data = zkr_watch_data_finish (run->cmd.session, result, &stat, &run->node_watch, &error);
  if (data != NULL)
    node_armed (run, TRUE, &stat, data);
  else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE) && !run->stopping)
    {
      /* Gone: watch for its creation instead. */
      run->node_arming = TRUE;
      run->pending++;
      zkr_watch_exists_async (run->cmd.session, run->path, on_node_event, run, NULL,
                              watch_timeout_ms (run), run->cancellable, on_exists_armed, run);
    }
  else
    watch_failed (run, error);
}

static void
node_arm (WatchRun *run)
{
  run->node_arming = TRUE;
  run->pending++;
  zkr_watch_data_async (run->cmd.session, run->path, on_node_event, run, NULL,
                        watch_timeout_ms (run), run->cancellable, on_data_armed, run);
}

static void
on_children_event (ZkrSession *session, const char *path, ZkrWatchEvent event,
                   gpointer user_data)
{
  WatchRun *run = user_data;

  (void) session, (void) path;
  run->children_watch = 0;
  /* Deleted, lost, closed: the node watch reports it and sets this one
   * again if the node is there. */
  if (run->stopping || event != ZKR_WATCH_EVENT_CHILDREN_CHANGED)
    {
      if (event == ZKR_WATCH_EVENT_SESSION_LOST && !run->stopping && run->exists
          && !run->node_arming)
        children_arm (run);
      return;
    }
  run->children_event = event;
  children_arm (run);
}

static void
on_children_armed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WatchRun *run = user_data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) children = NULL;
  ZkrStat stat;

  (void) source;
  run->pending--;
  run->children_arming = FALSE;
  children = zkr_watch_children_finish (run->cmd.session, result, &stat, &run->children_watch,
                                        &error);
  if (children != NULL && run->children_event >= 0)
    watch_print (run, run->children_event, &stat, NULL, children);
  run->children_event = -1;
  /* Gone meanwhile: the node watch tells. */
  if (children == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    watch_failed (run, error);
  watch_announce (run);
}

static void
children_arm (WatchRun *run)
{
  run->children_arming = TRUE;
  run->pending++;
  zkr_watch_children_async (run->cmd.session, run->path, on_children_event, run, NULL,
                            watch_timeout_ms (run), run->cancellable, on_children_armed, run);
}

/* ---- the run ----------------------------------------------------------- */

static gboolean
on_signal (gpointer data)
{
  watch_stop (data, 0);
  return G_SOURCE_CONTINUE;
}

static gboolean
watch_done (gpointer data)
{
  WatchRun *run = data;

  return run->stopping && run->pending == 0;
}

static int
watch_run (ZkrNodeCmd *cmd, const char *path, const char *argument)
{
  WatchRun *run = (WatchRun *) cmd;
  GMainContext *context = g_main_context_default ();

  (void) argument;
  run->path = path;
  run->cancellable = g_cancellable_new ();
  run->node_event = run->children_event = -1;
  run->signal_sources[0] = g_unix_signal_add (SIGINT, on_signal, run);
  run->signal_sources[1] = g_unix_signal_add (SIGTERM, on_signal, run);
  node_arm (run);
  /* Until stopped and every read answered (a cancel answers at once), so
   * that no callback is left holding @run. */
  while (!watch_done (run))
    g_main_context_iteration (context, TRUE);
  zkr_watch_remove (run->cmd.session, run->node_watch);
  zkr_watch_remove (run->cmd.session, run->children_watch);
  g_source_remove (run->signal_sources[0]);
  g_source_remove (run->signal_sources[1]);
  g_clear_object (&run->cancellable);
  return run->status;
}

int
zkr_cmd_watch (int argc, char **argv)
{
  WatchRun run = { .cmd = ZKR_NODE_CMD_INIT ("watch") };

  return zkr_node_cmd_run (&run.cmd, NULL, 1, watch_run, argc, argv);
}
