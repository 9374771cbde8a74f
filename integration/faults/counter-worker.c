/* zkr fault suite, counter mode: one client of a shared ZkrAtomicLong, behind
 * its own proxy, looping deadline-bounded increments and logging each one's
 * outcome and (pre, post) for counter_mode.py's checker.
 *
 *   zkr-counter-worker --hosts H --path P --lock-path L --dir DIR --id I
 *                      --session-timeout MS --seed N [--promoted]
 *   zkr-counter-worker --hosts H --path P --final ROOT
 *       (one-shot: prints "final V", the counter read, then "node PATH OWNER"
 *       for every node under ROOT, ROOT included; OWNER is the ephemeral
 *       owner, 0 for a persistent or container node)
 *   zkr-counter-worker --hosts H --path P --recreate BASE
 *       (one-shot, the nemesis' re-create: deletes the counter's node and
 *       creates it again holding BASE, in one transaction; prints
 *       "recreate OLD OLD_CZXID NEW_CZXID", OLD the old node's last value,
 *       or "recreate none" when there is no node yet, or
 *       "recreate-error MESSAGE")
 *
 * DIR/w<I>.history, one line per event, CLOCK_MONOTONIC microseconds:
 *   start T MODE                     MODE optimistic or promoted
 *   session STATE T                  a session state change
 *   call ...                         fault-worker.c's line for a bounded call
 *   inc SEQ START ANSWER ok PRE POST OPT PROM     the increment was made
 *   inc SEQ START ANSWER gaveup PRE OPT PROM      the policies gave up:
 *                                    nothing changed, says the library
 *   inc SEQ START ANSWER error CODE unknown|maybe  failed: "unknown" is the
 *                                    lost-reply answer (atomic-long.h),
 *                                    "maybe" any other failure, which may
 *                                    still have landed (a TIMEOUT, CANCELLED
 *                                    or SESSION_EXPIRED after the write)
 *   exit T
 * Also DIR/w<I>.sid (the session's id and password, for the nemesis'
 * expiry) and DIR/w<I>.state ("H" while an increment is under way, so the
 * nemesis aims its client faults at a call in flight).
 *
 * Calls are planned as fault-worker.c plans its acquires (a seeded third
 * short, half of those with a cancel, half of them through the _async
 * twin), and the same timer thread cancels on time and measures how late
 * this process itself ran. SIGTERM ends the loop after the call under way
 * (each is bounded) and exits 0 once the session is closed. */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "context.h"
#include "fault-call.h"
#include "session-private.h"

#include <zkr/zkr.h>

typedef struct {
  char *hosts;
  char *path;
  char *lock_path;
  char *dir;
  char *final_root;
  gint64 recreate_base;
  gboolean recreate;
  int id;
  int session_timeout_ms;
  int seed;
  gboolean promoted;
} Options;

/* One bounded increment (fault-call.h). */
typedef FaultCall Call;

typedef struct {
  const Options *options;
  ZkrSession *session;
  ZkrAtomicLong *counter;
  GRand *rand;
  GMainLoop *loop;
  GMainContext *call_context;  /* async increments answer here */
  int history_fd;
  int state_fd;
  gint stop;                   /* set by SIGTERM */

  FaultCallTimer timer;        /* the deadline timer thread (fault-call.h) */
} Client;

#define SHORT_CALL_SHARE 0.33
#define PLAIN_TIMEOUT_MS 1000

/* One line, one write(2) on an O_APPEND descriptor: the client thread's
 * and the state listener's lines never interleave. */
static void G_GNUC_PRINTF (2, 3)
history (Client *c, const char *format, ...)
{
  va_list args;
  g_autofree char *line = NULL;

  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  if (write (c->history_fd, line, strlen (line)) < 0)
    g_printerr ("counter %d: history write: %s\n", c->options->id, g_strerror (errno));
}

static void
set_state (Client *c, char state)
{
  if (pwrite (c->state_fd, &state, 1, 0) != 1)
    g_printerr ("counter %d: state write: %s\n", c->options->id, g_strerror (errno));
}

/* The session id and password, for an expiry from outside. */
static void
publish_session (Client *c)
{
  g_autofree char *path = g_strdup_printf ("%s/w%d.sid", c->options->dir, c->options->id);

  fault_publish_session (c->session, path);
}

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  Client *c = user_data;
  static const char *const names[] = { "CONNECTING", "CONNECTED", "SUSPENDED",
                                       "RECONNECTED", "LOST", "CLOSED" };

  (void) session;
  history (c, "session %s %" G_GINT64_FORMAT "\n",
           (guint) state < G_N_ELEMENTS (names) ? names[state] : "?", g_get_monotonic_time ());
  if (state == ZKR_SESSION_STATE_CONNECTED)
    publish_session (c);
}

/* ---- deadline-bounded calls (fault-worker.c's timer) ---------------- */

static void
call_plan (Client *c, Call *call)
{
  memset (call, 0, sizeof *call);
  call->timeout_ms = PLAIN_TIMEOUT_MS;
  call->cancel_after_us = -1;
  if (g_rand_double (c->rand) >= SHORT_CALL_SHARE)
    return;
  call->timeout_ms = g_rand_int_range (c->rand, 200, 1501);
  call->cancellable = g_cancellable_new ();
  if (g_rand_boolean (c->rand))
    call->cancel_after_us = g_rand_boolean (c->rand)
      ? g_rand_int_range (c->rand, 0, 20 * 1000)
      : g_rand_int_range (c->rand, 20 * 1000, call->timeout_ms * 1000);
  call->use_async = g_rand_boolean (c->rand);
}






typedef struct {
  Client *client;
  Call *call;
  GAsyncResult *result;
} AsyncWait;

static void
on_incremented (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncWait *wait = user_data;

  (void) source;
  fault_call_end (&wait->client->timer, wait->call);
  wait->result = g_object_ref (result);
}

/* One increment, plain or through the _async twin (answered when its
 * callback runs, on this thread's own context). */
static gboolean
increment (Client *c, Call *call, ZkrAtomicLongValue *value, GError **error)
{
  AsyncWait wait = { c, call, NULL };
  gboolean ok;

  if (!call->use_async)
    {
      fault_call_begin (&c->timer, call);
      ok = zkr_atomic_long_increment (c->counter, call->timeout_ms, call->cancellable, value,
                                      error);
      fault_call_end (&c->timer, call);
      return ok;
    }
  g_main_context_push_thread_default (c->call_context);
  fault_call_begin (&c->timer, call);
  zkr_atomic_long_increment_async (c->counter, call->timeout_ms, call->cancellable,
                                   on_incremented, &wait);
  while (wait.result == NULL)
    g_main_context_iteration (c->call_context, TRUE);
  g_main_context_pop_thread_default (c->call_context);
  ok = zkr_atomic_long_add_finish (c->counter, wait.result, value, error);
  g_object_unref (wait.result);
  return ok;
}

/* ---- the loop ------------------------------------------------------- */

static void
increment_once (Client *c, guint64 seq)
{
  g_autoptr (GError) error = NULL;
  ZkrAtomicLongValue value = { 0 };
  gboolean ok;
  Call call;

  call_plan (c, &call);
  set_state (c, 'H');
  ok = increment (c, &call, &value, &error);
  set_state (c, '-');
  history (c, "call %" G_GUINT64_FORMAT " %s %d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
           " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s %" G_GINT64_FORMAT
           " %" G_GINT64_FORMAT "\n",
           seq, call.use_async ? "async" : "sync", call.timeout_ms, call.t_start, call.deadline,
           call.cancel_at, call.t_cancel, call.t_answer, fault_call_outcome (ok, error),
           call.timer_late_max, call.timer_late_sum);
  g_clear_object (&call.cancellable);
  if (ok && value.succeeded)
    history (c, "inc %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
             " ok %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %u %u\n", seq, call.t_start,
             call.t_answer, value.pre_value, value.post_value, value.optimistic_tries,
             value.promoted_tries);
  else if (ok)
    history (c, "inc %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
             " gaveup %" G_GINT64_FORMAT " %u %u\n", seq, call.t_start, call.t_answer,
             value.pre_value, value.optimistic_tries, value.promoted_tries);
  else
    {
      gboolean unknown = g_error_matches (error, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS) &&
                         strstr (error->message, "whether it landed is unknown") != NULL;

      history (c, "inc %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
               " error %s %s\n", seq, call.t_start, call.t_answer, zkr_error_name (error),
               unknown ? "unknown" : "maybe");
      /* A SUSPENDED or LOST session answers every call at once: wait
       * (a second at most, so SIGTERM is heard) rather than spin. */
      if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT) &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          zkr_session_wait_connected (c->session, 1000, NULL, NULL);
          g_usleep (10 * 1000);
        }
    }
}

static gboolean
loop_quit (gpointer data)
{
  Client *c = data;

  g_main_loop_quit (c->loop);
  return G_SOURCE_REMOVE;
}

static gpointer
client_thread (gpointer data)
{
  Client *c = data;

  history (c, "start %" G_GINT64_FORMAT " %s\n", g_get_monotonic_time (),
           c->options->promoted ? "promoted" : "optimistic");
  for (guint64 seq = 1; !g_atomic_int_get (&c->stop); seq++)
    increment_once (c, seq);
  /* zkr__context_post: a hand-off ThreadSanitizer sees. */
  zkr__context_post (g_main_context_default (), loop_quit, c, NULL);
  return NULL;
}

static gboolean
on_term_signal (gpointer data)
{
  Client *c = data;

  g_atomic_int_set (&c->stop, 1);
  return G_SOURCE_CONTINUE;
}

/* Promoted clients give optimism 2 quick retries only, so that under 8
 * contenders they often take the lock. */
static ZkrAtomicLong *
counter_open (const Options *o, ZkrSession *session, GError **error)
{
  g_autoptr (ZkrRetryPolicy) quick = NULL;

  if (!o->promoted)
    return zkr_atomic_long_new (session, o->path, NULL, error);
  quick = zkr_retry_policy_n_times_new (2, 1);
  return zkr_atomic_long_new_promoted (session, o->path, quick, o->lock_path, -1, NULL, error);
}

static int
open_or_fail (const char *path, int flags)
{
  int fd = open (path, flags | O_CLOEXEC, 0644);

  if (fd < 0)
    printf ("counter: %s: %s\n", path, g_strerror (errno));
  return fd;
}

static ZkrSession *
session_open (const Options *o, GError **error)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();

  zkr_session_options_set_hosts (options, o->hosts);
  zkr_session_options_set_session_timeout_ms (options, o->session_timeout_ms);
  return zkr_session_new (options, error);
}

static int
client_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *history_path = g_strdup_printf ("%s/w%d.history", o->dir, o->id);
  g_autofree char *state_path = g_strdup_printf ("%s/w%d.state", o->dir, o->id);
  Client c = { .options = o };
  GThread *thread;
  guint term;

  c.history_fd = open_or_fail (history_path, O_WRONLY | O_CREAT | O_APPEND);
  c.state_fd = open_or_fail (state_path, O_WRONLY | O_CREAT);
  if (c.history_fd < 0 || c.state_fd < 0)
    return 2;
  set_state (&c, '-');
  c.session = session_open (o, &error);
  if (c.session == NULL)
    {
      printf ("counter: %s\n", error->message);
      return 2;
    }
  zkr_session_add_state_listener (c.session, on_state, &c, NULL);
  if (!zkr_session_wait_connected (c.session, 30000, NULL, &error) ||
      (c.counter = counter_open (o, c.session, &error)) == NULL)
    {
      printf ("counter: %s\n", error->message);
      zkr_session_unref (c.session);
      return 2;
    }
  /* The listener may have missed the first CONNECTED. */
  publish_session (&c);
  c.rand = g_rand_new_with_seed ((guint32) o->seed ^ (guint32) o->id * 2654435761u);
  c.loop = g_main_loop_new (NULL, FALSE);
  c.call_context = g_main_context_new ();
  fault_call_timer_start (&c.timer);
  printf ("started\n");
  fflush (stdout);
  term = g_unix_signal_add (SIGTERM, on_term_signal, &c);
  thread = g_thread_new ("counter", client_thread, &c);
  g_main_loop_run (c.loop);
  g_thread_join (thread);
  g_source_remove (term);

  fault_call_timer_stop (&c.timer);
  g_clear_pointer (&c.counter, zkr_atomic_long_unref);
  /* Our lock node, if any, goes with the session. */
  zkr_session_close (c.session);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  zkr_session_unref (c.session);
  history (&c, "exit %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  close (c.history_fd);
  close (c.state_fd);
  g_main_context_unref (c.call_context);
  g_main_loop_unref (c.loop);
  g_rand_free (c.rand);
  printf ("stopped\n");
  return 0;
}

/* ---- --final -------------------------------------------------------- */

static gboolean
list_tree (ZkrSession *session, const char *path, GError **error)
{
  g_auto (GStrv) children = NULL;
  ZkrStat stat;

  if (!zkr_node_exists (session, path, 10000, NULL, &stat, error))
    return *error == NULL;
  printf ("node %s %" G_GINT64_MODIFIER "x\n", path, stat.ephemeral_owner);
  children = zkr_node_get_children (session, path, 10000, NULL, NULL, error);
  if (children == NULL)
    return g_error_matches (*error, ZKR_ERROR, ZKR_ERROR_NO_NODE)
      ? (g_clear_error (error), TRUE) : FALSE;
  for (char **child = children; *child != NULL; child++)
    {
      g_autofree char *sub = g_strconcat (path, "/", *child, NULL);

      if (!list_tree (session, sub, error))
        return FALSE;
    }
  return TRUE;
}

/* After every client exited: the counter's value, and every node under
 * @root for the leftover check. */
static int
final_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  ZkrAtomicLongValue value = { 0 };
  ZkrSession *session = session_open (o, &error);
  ZkrAtomicLong *counter = NULL;
  gboolean ok;

  ok = session != NULL && zkr_session_wait_connected (session, 30000, NULL, &error) &&
       (counter = zkr_atomic_long_new (session, o->path, NULL, &error)) != NULL &&
       zkr_atomic_long_get (counter, 10000, NULL, &value, &error);
  if (ok)
    printf ("final %" G_GINT64_FORMAT "\n", value.post_value);
  ok = ok && list_tree (session, o->final_root, &error);
  if (!ok)
    printf ("final-error %s\n", error != NULL ? error->message : "?");
  g_clear_pointer (&counter, zkr_atomic_long_unref);
  if (session != NULL)
    {
      zkr_session_close (session);
      zkr_session_unref (session);
    }
  return ok ? 0 : 2;
}

/* ---- --recreate ----------------------------------------------------- */

#define RECREATE_ATTEMPTS 40

/* The node read after a sync (a read that may lag proves nothing): its
 * value, or FALSE with @error (NO_NODE included). */
static gboolean
recreate_read (ZkrSession *session, const char *path, gint64 *value, ZkrStat *stat,
               GError **error)
{
  g_autoptr (GBytes) data = NULL;
  gsize len = 0;
  const guint8 *bytes;

  if (!zkr_node_sync (session, path, 5000, NULL, error))
    return FALSE;
  data = zkr_node_get (session, path, 5000, NULL, stat, error);
  if (data == NULL)
    return FALSE;
  bytes = g_bytes_get_data (data, &len);
  *value = 0;
  for (gsize i = 0; i < len && len == 8; i++)
    *value = (gint64) ((guint64) *value << 8 | bytes[i]);
  return TRUE;
}

/* The delete is conditioned on the version read, so OLD is the old node's
 * last value exactly; both in one transaction, so no client ever finds the
 * node missing (and creates it at 1 itself). A commit whose reply was lost
 * landed iff the node's czxid moved since (nobody else re-creates it). */
static int
recreate_main (const Options *o)
{
  g_autoptr (GError) error = NULL;
  ZkrSession *session = session_open (o, &error);
  guint64 big_endian = GUINT64_TO_BE ((guint64) o->recreate_base);
  gint64 value = 0, sent_value = 0, sent_czxid = 0;
  ZkrStat stat = { 0 };
  int rc = 2;

  if (session == NULL || !zkr_session_wait_connected (session, 30000, NULL, &error))
    goto out;
  for (int attempt = 0; attempt < RECREATE_ATTEMPTS && rc == 2; attempt++)
    {
      g_autoptr (ZkrTxn) txn = NULL;

      g_clear_error (&error);
      if (!recreate_read (session, o->path, &value, &stat, &error))
        {
          if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE) && sent_czxid == 0)
            {
              printf ("recreate none\n");
              rc = 0;
            }
          continue;
        }
      if (sent_czxid != 0 && stat.czxid != sent_czxid)
        {
          printf ("recreate %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                  sent_value, sent_czxid, stat.czxid);
          rc = 0;
          break;
        }
      txn = zkr_txn_new (session);
      zkr_txn_delete (txn, o->path, stat.version);
      zkr_txn_create (txn, o->path, &big_endian, 8, ZKR_CREATE_PERSISTENT);
      sent_value = value;
      sent_czxid = stat.czxid;
      if (zkr_txn_commit (txn, 5000, NULL, &error))
        {
          ZkrStat created = { 0 };
          gint64 now_value;

          /* A multi's create answers no stat: the new czxid is read (0
           * when that read fails; only the log shows it). */
          recreate_read (session, o->path, &now_value, &created, NULL);
          printf ("recreate %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
                  sent_value, sent_czxid, created.czxid);
          rc = 0;
        }
      else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_BAD_VERSION))
        sent_czxid = 0;
    }
out:
  if (rc != 0)
    printf ("recreate-error %s\n", error != NULL ? error->message : "attempts ran out");
  if (session != NULL)
    {
      zkr_session_close (session);
      zkr_session_unref (session);
    }
  return rc;
}

int
main (int argc, char **argv)
{
  Options o = { .session_timeout_ms = 4000 };
  GOptionEntry entries[] = {
    { "hosts", 0, 0, G_OPTION_ARG_STRING, &o.hosts, "connect string", "HOSTS" },
    { "path", 0, 0, G_OPTION_ARG_STRING, &o.path, "the counter", "PATH" },
    { "lock-path", 0, 0, G_OPTION_ARG_STRING, &o.lock_path, "the promoted mode's lock", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_STRING, &o.dir, "the run's directory", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_INT, &o.id, "the client's number", "N" },
    { "session-timeout", 0, 0, G_OPTION_ARG_INT, &o.session_timeout_ms, "session timeout", "MS" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "random seed", "N" },
    { "promoted", 0, 0, G_OPTION_ARG_NONE, &o.promoted, "promoted mode", NULL },
    { "final", 0, 0, G_OPTION_ARG_STRING, &o.final_root, "read the counter, list ROOT", "ROOT" },
    { "recreate", 0, 0, G_OPTION_ARG_INT64, &o.recreate_base, "delete and create the counter "
      "again holding BASE", "BASE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- zkr fault suite: counter mode");
  g_autoptr (GError) error = NULL;
  gboolean parsed;
  int rc;

  g_option_context_add_main_entries (context, entries, NULL);
  o.recreate_base = -1;
  parsed = g_option_context_parse (context, &argc, &argv, &error);
  o.recreate = o.recreate_base >= 0;
  if (!parsed || o.hosts == NULL || o.path == NULL ||
      (o.final_root == NULL && !o.recreate && (o.dir == NULL || o.lock_path == NULL)))
    {
      printf ("usage: %s\n", error != NULL ? error->message
                                           : "--hosts, --path, and --dir and --lock-path "
                                             "or --final or --recreate");
      rc = 2;
    }
  else
    rc = o.final_root != NULL ? final_main (&o) : o.recreate ? recreate_main (&o)
                                                               : client_main (&o);
  g_free (o.hosts);
  g_free (o.path);
  g_free (o.lock_path);
  g_free (o.dir);
  g_free (o.final_root);
  return rc;
}
