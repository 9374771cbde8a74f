/* zkr fault suite, group mode: one process of a group behind its own proxy.
 * It joins PATH as member "w<I>" (a ZkrGroupMember), stays, leaves and
 * joins again at seeded random times, sometimes changing its payload, and
 * logs every step and every event its member's listener hears for
 * group_mode.py's checker. Told the faults stopped (SIGUSR1), it joins for
 * good and compares its view of the group with a fresh read of the server
 * until they are equal and hold every member, or one session timeout (plus
 * the slack) has passed.
 *
 *   zkr-group-worker --hosts H --path P --dir DIR --id I --launch L
 *                    --members N --session-timeout MS --slack-ms MS --seed S
 *
 * DIR/g<I>-<L>.log, one line per event, CLOCK_MONOTONIC microseconds; a
 * payload is "p<pid>.<incarnation>.<version>", so it names the process and
 * the incarnation (one ZkrGroupMember) that set it; the version is 0, 1,
 * or "s" once settling:
 *   start PID T                   (the signal handlers are in place)
 *   state NAME T                  a session state change
 *   join INC T PAYLOAD            incarnation INC made and started
 *   join-fail INC T CODE          ... or not (its view is empty)
 *   joined INC T ok|fail CODE     zkr_group_member_wait_joined() answered
 *   payload INC T PAYLOAD         zkr_group_member_set_payload() called
 *   ev INC T JOINED|CHANGED|LEFT ID PAYLOAD   the listener heard it
 *   leave INC T                   close called (the view is empty from here)
 *   left INC T ok|fail CODE       close answered
 *   settle T                      SIGUSR1 heard
 *   check ok INC T MS VIEW        the view equalled the server's at T, MS ms
 *                                 after settle; VIEW is "id=payload,..." sorted
 *   check FAIL T MS WHY           or not, by the deadline
 *   exit T
 * Also DIR/w<I>.sid (the session's id and password, for the nemesis'
 * expiry) and DIR/w<I>.state ("H" while joined, for its aim). SIGTERM
 * leaves the group and exits: 0 if the check passed, 1 if not (or never
 * ran), 2 on a usage or setup error. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "context.h"
#include "fault-call.h"

#include <zkr/zkr.h>

#define READ_MS 2000

typedef struct {
  char *hosts;
  char *path;
  char *dir;
  int id;
  int launch;
  int members;
  int session_timeout_ms;
  int slack_ms;
  int seed;
} Options;

typedef struct {
  const Options *options;
  char *member_id;          /* "w<I>" */
  ZkrSession *session;
  GMainLoop *loop;
  GCancellable *interrupt;  /* cancelled by SIGUSR1 or SIGTERM: ends a wait */
  GMutex log_lock;          /* the churn thread and the listeners both log */
  FILE *log;
  GMutex lock;              /* guards what follows */
  GCond wake;
  gboolean settling;
  gint64 settle_at;
  gboolean stopping;
  gboolean passed;          /* written by the churn thread before it ends */
} Worker;

/* What a listener needs: its worker and its member's incarnation. */
typedef struct {
  Worker *worker;
  guint inc;
} Listening;

static void worker_log (Worker *w, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
worker_log (Worker *w, const char *format, ...)
{
  va_list args;

  g_mutex_lock (&w->log_lock);
  va_start (args, format);
  vfprintf (w->log, format, args);
  va_end (args);
  fputc ('\n', w->log);
  fflush (w->log);
  g_mutex_unlock (&w->log_lock);
}

static void
worker_set_state (Worker *w, const char *state)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.state", w->options->dir, w->options->id);

  g_file_set_contents (path, state, -1, NULL);
}

static int
error_code (const GError *error)
{
  return error != NULL && error->domain == ZKR_ERROR ? error->code : -1;
}

/* A payload as one word of the log ("-" for none). */
static char *
payload_text (GBytes *payload)
{
  gsize len = 0;
  const char *data = payload != NULL ? g_bytes_get_data (payload, &len) : NULL;
  char *text;

  if (len == 0)
    return g_strdup ("-");
  text = g_strndup (data, len);
  for (char *p = text; *p != '\0'; p++)
    if (!g_ascii_isgraph (*p) || *p == ',' || *p == '=')
      *p = '?';
  return text;
}

/* ---- the session ----------------------------------------------------- */

static void
publish_session (Worker *w)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.sid", w->options->dir, w->options->id);

  fault_publish_session (w->session, path);
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Worker *w = user_data;
  static const char *const names[] = { "CONNECTING", "CONNECTED", "SUSPENDED",
                                       "RECONNECTED", "LOST", "CLOSED" };

  (void) session;
  worker_log (w, "state %s %" G_GINT64_FORMAT,
              (guint) state < G_N_ELEMENTS (names) ? names[state] : "?",
              g_get_monotonic_time ());
  if (state == ZKR_SESSION_STATE_CONNECTED)
    publish_session (w);
}

/* ---- waiting for the signals ------------------------------------------- */

/* Sleeps @us, or less if SIGUSR1 or SIGTERM comes. */
static void
worker_sleep (Worker *w, gint64 us)
{
  gint64 end = g_get_monotonic_time () + us;

  g_mutex_lock (&w->lock);
  while (!w->settling && !w->stopping && g_cond_wait_until (&w->wake, &w->lock, end))
    ;
  g_mutex_unlock (&w->lock);
}

static gboolean
worker_told (Worker *w)
{
  gboolean told;

  g_mutex_lock (&w->lock);
  told = w->settling || w->stopping;
  g_mutex_unlock (&w->lock);
  return told;
}

static void
worker_wait_stop (Worker *w)
{
  g_mutex_lock (&w->lock);
  while (!w->stopping)
    g_cond_wait (&w->wake, &w->lock);
  g_mutex_unlock (&w->lock);
}

/* ---- joining and leaving -------------------------------------------------- */

static void
listening_free (gpointer data)
{
  g_free (data);
}

static void
on_group_event (ZkrGroupMember *member, ZkrGroupEvent event, const char *id, GBytes *payload,
                gpointer user_data)
{
  Listening *l = user_data;
  static const char *const names[] = { "JOINED", "CHANGED", "LEFT" };
  gint64 now = g_get_monotonic_time ();
  g_autofree char *text = payload_text (payload);

  (void) member;
  worker_log (l->worker, "ev %u %" G_GINT64_FORMAT " %s %s %s", l->inc, now,
              (guint) event < G_N_ELEMENTS (names) ? names[event] : "?", id, text);
}

/* Incarnation @inc: a new member with payload "p<pid>.<inc>.<version>",
 * started; with @wait, also waited for (3 session timeouts, or until a
 * signal). NULL if it could not start. */
static ZkrGroupMember *
member_join (Worker *w, guint inc, const char *version, gboolean wait)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *payload = g_strdup_printf ("p%d.%u.%s", (int) getpid (), inc, version);
  ZkrGroupMember *member;
  Listening *l;

  member = zkr_group_member_new (w->session, w->options->path, w->member_id, payload,
                                 strlen (payload), &error);
  g_assert_no_error (error);
  l = g_new0 (Listening, 1);
  l->worker = w;
  l->inc = inc;
  /* The listener runs in the default context: the main thread's loop. */
  zkr_group_member_add_listener (member, on_group_event, l, listening_free);
  worker_log (w, "join %u %" G_GINT64_FORMAT " %s", inc, g_get_monotonic_time (), payload);
  if (!zkr_group_member_start (member, &error))
    {
      worker_log (w, "join-fail %u %" G_GINT64_FORMAT " %d", inc, g_get_monotonic_time (),
                  error_code (error));
      zkr_group_member_close (member, 0, NULL, NULL);
      zkr_group_member_unref (member);
      return NULL;
    }
  worker_set_state (w, "H");
  if (!wait)
    return member;
  if (zkr_group_member_wait_joined (member, 3 * w->options->session_timeout_ms, w->interrupt,
                                    &error))
    worker_log (w, "joined %u %" G_GINT64_FORMAT " ok", inc, g_get_monotonic_time ());
  else
    worker_log (w, "joined %u %" G_GINT64_FORMAT " fail %d", inc, g_get_monotonic_time (),
                error_code (error));
  return member;
}

static void
member_set_payload (Worker *w, ZkrGroupMember *member, guint inc, const char *version)
{
  g_autofree char *payload = g_strdup_printf ("p%d.%u.%s", (int) getpid (), inc, version);
  g_autoptr (GError) error = NULL;

  worker_log (w, "payload %u %" G_GINT64_FORMAT " %s", inc, g_get_monotonic_time (), payload);
  if (!zkr_group_member_set_payload (member, payload, strlen (payload), &error))
    worker_log (w, "payload-fail %u %" G_GINT64_FORMAT " %d", inc, g_get_monotonic_time (),
                error_code (error));
}

/* Closes and drops @member: its node is deleted (guaranteed, so in the
 * background past the 2 session timeouts waited here). */
static void
member_leave (Worker *w, ZkrGroupMember *member, guint inc)
{
  g_autoptr (GError) error = NULL;

  worker_set_state (w, "-");
  worker_log (w, "leave %u %" G_GINT64_FORMAT, inc, g_get_monotonic_time ());
  if (zkr_group_member_close (member, 2 * w->options->session_timeout_ms, NULL, &error))
    worker_log (w, "left %u %" G_GINT64_FORMAT " ok", inc, g_get_monotonic_time ());
  else
    worker_log (w, "left %u %" G_GINT64_FORMAT " fail %d", inc, g_get_monotonic_time (),
                error_code (error));
  zkr_group_member_unref (member);
}

/* ---- the check ------------------------------------------------------------- */

/* The group on the server, read through our own session (so after every
 * event the cache delivered): id -> payload, or NULL with @why. */
static GHashTable *
read_group (Worker *w, char **why)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) group = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_bytes_unref);
  g_auto (GStrv) children = zkr_node_get_children (w->session, w->options->path, READ_MS, NULL,
                                                   NULL, &error);

  if (children == NULL)
    {
      *why = g_strdup_printf ("listing %s failed: %s", w->options->path, error->message);
      return NULL;
    }
  for (guint i = 0; children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", w->options->path, children[i]);
      GBytes *payload = zkr_node_get (w->session, child, READ_MS, NULL, NULL, &error);

      if (payload == NULL)
        {
          *why = g_strdup_printf ("read of %s failed: %s", child, error->message);
          return NULL;
        }
      g_hash_table_insert (group, g_strdup (children[i]), payload);
    }
  return g_steal_pointer (&group);
}

static gint
compare_ids (gconstpointer a, gconstpointer b, gpointer unused)
{
  (void) unused;
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static char *
group_text (GHashTable *group)
{
  g_autofree const char **ids = (const char **) g_hash_table_get_keys_as_array (group, NULL);
  GString *text = g_string_new (NULL);

  g_qsort_with_data (ids, (gint) g_hash_table_size (group), sizeof (char *), compare_ids, NULL);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autofree char *payload = payload_text (g_hash_table_lookup (group, ids[i]));

      g_string_append_printf (text, "%s%s=%s", i > 0 ? "," : "", ids[i], payload);
    }
  return g_string_free (text, FALSE);
}

static gboolean
payload_settled (GBytes *payload)
{
  gsize len;
  const char *data = g_bytes_get_data (payload, &len);

  return len >= 2 && data[len - 2] == '.' && data[len - 1] == 's';
}

/* TRUE if @view equals @server and holds @members members, each with a
 * payload set since the faults stopped (a member killed just before
 * still has its node until the server expires its session; its restarted
 * process joins once it is gone); else @why. */
static gboolean
group_equal (GHashTable *server, GHashTable *view, int members, char **why)
{
  GHashTableIter iter;
  gpointer id, payload;

  g_hash_table_iter_init (&iter, server);
  while (g_hash_table_iter_next (&iter, &id, &payload))
    {
      GBytes *seen = g_hash_table_lookup (view, id);

      if (!payload_settled (payload))
        {
          g_autofree char *text = payload_text (payload);

          *why = g_strdup_printf ("%s is %s on the server, not yet a settled payload",
                                  (char *) id, text);
          return FALSE;
        }

      if (seen == NULL || !g_bytes_equal (seen, payload))
        {
          g_autofree char *on_server = payload_text (payload);
          g_autofree char *in_view = seen != NULL ? payload_text (seen) : g_strdup ("(absent)");

          *why = g_strdup_printf ("%s is %s on the server, %s in the view", (char *) id,
                                  on_server, in_view);
          return FALSE;
        }
    }
  if (g_hash_table_size (view) != g_hash_table_size (server))
    {
      g_autofree char *server_text = group_text (server);
      g_autofree char *view_text = group_text (view);

      *why = g_strdup_printf ("the view has %u members, the server %u: view %s, server %s",
                              g_hash_table_size (view), g_hash_table_size (server), view_text,
                              server_text);
      return FALSE;
    }
  if (g_hash_table_size (server) != (guint) members)
    {
      g_autofree char *server_text = group_text (server);

      *why = g_strdup_printf ("%u members, not %d: %s", g_hash_table_size (server), members,
                              server_text);
      return FALSE;
    }
  return TRUE;
}

/* The view equals the server's, with every member in, within one session
 * timeout (and the slack) of SIGUSR1; logs and prints the verdict. */
static void
settle_check (Worker *w, ZkrGroupMember *member, guint inc)
{
  const Options *o = w->options;
  gint64 start, deadline;
  g_autofree char *verdict = NULL;

  g_mutex_lock (&w->lock);
  start = w->settle_at;
  g_mutex_unlock (&w->lock);
  deadline = start + (gint64) (o->session_timeout_ms + o->slack_ms) * 1000;
  while (verdict == NULL)
    {
      g_autofree char *why = NULL;
      g_autoptr (GHashTable) server = read_group (w, &why);
      g_autoptr (GHashTable) view = zkr_group_member_dup_members (member);
      gint64 now = g_get_monotonic_time ();

      if (server != NULL && group_equal (server, view, o->members, &why))
        {
          g_autofree char *text = group_text (view);

          w->passed = TRUE;
          verdict = g_strdup_printf ("check ok %u %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s",
                                     inc, now, (now - start) / 1000, text);
        }
      else if (now >= deadline)
        verdict = g_strdup_printf ("check FAIL %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s",
                                   now, (now - start) / 1000, why);
      else
        g_usleep (50 * 1000);
    }
  worker_log (w, "%s", verdict);
  printf ("%s\n", verdict);
  fflush (stdout);
}

/* ---- the churn --------------------------------------------------------------- */

static gboolean
loop_quit (gpointer data)
{
  Worker *w = data;

  g_main_loop_quit (w->loop);
  return G_SOURCE_REMOVE;
}

/* How long an incarnation stays: a third (and always the first, so that
 * a restarted process is seen to come back) long enough for the checker's
 * "every member sees it" (one session timeout and then some), the rest
 * 0.3-2 s. */
static gint64
plan_stay (Worker *w, GRand *rand, gboolean first)
{
  gint64 t_us = (gint64) w->options->session_timeout_ms * 1000;

  if (first || g_rand_double (rand) < 0.33)
    return (gint64) g_rand_double_range (rand, 1.5 * t_us, 3.0 * t_us);
  return (gint64) g_rand_double_range (rand, 300 * 1000, 2000 * 1000);
}

/* Join, stay, maybe change the payload, leave, stay away; until SIGUSR1
 * (then join for good and check) or SIGTERM. */
static gpointer
churn_thread (gpointer data)
{
  Worker *w = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) w->options->seed);
  ZkrGroupMember *member = NULL;
  guint inc = 0;

  while (!worker_told (w))
    {
      gint64 stay = plan_stay (w, rand, inc == 0);
      gint64 change_at = g_rand_boolean (rand) ? (gint64) g_rand_double_range (rand, 0, stay) : -1;

      member = member_join (w, ++inc, "0", TRUE);
      if (member != NULL && change_at >= 0)
        {
          worker_sleep (w, change_at);
          if (worker_told (w))
            break;
          member_set_payload (w, member, inc, "1");
          stay -= change_at;
        }
      worker_sleep (w, stay);
      if (worker_told (w))
        break;
      if (member != NULL)
        member_leave (w, g_steal_pointer (&member), inc);
      worker_sleep (w, (gint64) g_rand_double_range (rand, 100 * 1000, 1500 * 1000));
    }
  g_mutex_lock (&w->lock);
  if (w->settling && !w->stopping)
    {
      g_mutex_unlock (&w->lock);
      if (member == NULL)
        member = member_join (w, ++inc, "s", FALSE);
      else
        member_set_payload (w, member, inc, "s");
      if (member != NULL)
        settle_check (w, member, inc);
      worker_wait_stop (w);
    }
  else
    g_mutex_unlock (&w->lock);
  if (member != NULL)
    member_leave (w, member, inc);
  /* zkr__context_post: a hand-off ThreadSanitizer sees. */
  zkr__context_post (g_main_context_default (), loop_quit, w, NULL);
  return NULL;
}

static gboolean
on_settle_signal (gpointer data)
{
  Worker *w = data;
  gint64 now = g_get_monotonic_time ();
  gboolean first;

  g_mutex_lock (&w->lock);
  first = !w->settling;
  if (first)
    {
      w->settling = TRUE;
      w->settle_at = now;
    }
  g_cond_broadcast (&w->wake);
  g_mutex_unlock (&w->lock);
  if (first)
    worker_log (w, "settle %" G_GINT64_FORMAT, now);
  g_cancellable_cancel (w->interrupt);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_term_signal (gpointer data)
{
  Worker *w = data;

  g_mutex_lock (&w->lock);
  w->stopping = TRUE;
  g_cond_broadcast (&w->wake);
  g_mutex_unlock (&w->lock);
  g_cancellable_cancel (w->interrupt);
  return G_SOURCE_CONTINUE;
}

static int
worker_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autofree char *log_path = g_strdup_printf ("%s/g%d-%d.log", o->dir, o->id, o->launch);
  Worker w = { .options = o };
  GThread *thread;
  guint usr1, term;
  int rc = 2;

  w.log = fopen (log_path, "w");
  if (w.log == NULL)
    {
      printf ("group: cannot write %s\n", log_path);
      return 2;
    }
  g_mutex_init (&w.log_lock);
  g_mutex_init (&w.lock);
  g_cond_init (&w.wake);
  w.member_id = g_strdup_printf ("w%d", o->id);
  w.interrupt = g_cancellable_new ();
  w.loop = g_main_loop_new (NULL, FALSE);
  /* Before "start": a signal from then on is heard (once the loop runs),
   * never the default action. */
  usr1 = g_unix_signal_add (SIGUSR1, on_settle_signal, &w);
  term = g_unix_signal_add (SIGTERM, on_term_signal, &w);
  worker_log (&w, "start %d %" G_GINT64_FORMAT, (int) getpid (), g_get_monotonic_time ());
  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, o->session_timeout_ms);
  w.session = zkr_session_new (options, &error);
  if (w.session == NULL)
    goto out;
  zkr_session_add_state_listener (w.session, on_state, &w, NULL);
  if (!zkr_session_wait_connected (w.session, 30000, NULL, &error))
    goto out;
  /* The listener may have missed the first CONNECTED. */
  publish_session (&w);
  thread = g_thread_new ("churn", churn_thread, &w);
  g_main_loop_run (w.loop);
  g_thread_join (thread);
  rc = w.passed ? 0 : 1;
out:
  g_source_remove (usr1);
  g_source_remove (term);
  if (error != NULL)
    printf ("group: %s\n", error->message);
  if (w.session != NULL)
    {
      zkr_session_close (w.session);
      /* What the closed members and session still had queued here. */
      while (g_main_context_iteration (NULL, FALSE))
        ;
      zkr_session_unref (w.session);
    }
  worker_log (&w, "exit %" G_GINT64_FORMAT, g_get_monotonic_time ());
  fclose (w.log);
  g_object_unref (w.interrupt);
  g_main_loop_unref (w.loop);
  g_free (w.member_id);
  g_cond_clear (&w.wake);
  g_mutex_clear (&w.lock);
  g_mutex_clear (&w.log_lock);
  return rc;
}

int
main (int argc, char **argv)
{
  Options o = { .launch = 1, .members = 10, .session_timeout_ms = 4000, .slack_ms = 1000,
                .seed = 1 };
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &o.hosts, "connect string", "HOSTS" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &o.path, "the group", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_STRING, &o.dir, "the run's directory", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_INT, &o.id, "the member's number", "N" },
    { "launch", 0, 0, G_OPTION_ARG_INT, &o.launch, "this process' launch of the member", "N" },
    { "members", 0, 0, G_OPTION_ARG_INT, &o.members, "the group's size once settled", "N" },
    { "session-timeout", 0, 0, G_OPTION_ARG_INT, &o.session_timeout_ms, "session timeout", "MS" },
    { "slack-ms", 0, 0, G_OPTION_ARG_INT, &o.slack_ms, "the check's slack", "MS" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "the churn's seed", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr fault suite: group mode");
  g_autoptr (GError) error = NULL;
  int rc;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || o.hosts == NULL ||
      o.path == NULL || o.dir == NULL || o.id < 1 || o.members < 1)
    {
      printf ("usage: %s\n", error != NULL ? error->message
                                           : "--hosts, --path, --dir, --id >= 1, --members >= 1");
      return 2;
    }
  rc = worker_main (&o);
  g_free (o.hosts);
  g_free (o.path);
  g_free (o.dir);
  return rc;
}
