/* zkr-demo, act two: six worker processes share a counter under a zkr
 * mutex and elect a leader with a zkr leader latch; the demo kills the
 * leader and expires a worker's session half-way, then sums up.
 *
 * A worker writes one line per event on its stdout, read by the parent:
 *   READY                          connected, latch started
 *   ACQ <wait_from> <got> <token>  mutex acquired (monotonic µs, system-wide)
 *   WROTE <count> <token>          counter written
 *   STALE <stored> <token>         the counter held a token >= ours (must not happen)
 *   FENCED                         a write after the loss, refused by its fence
 *   HOLD                           holding on purpose (asked with SIGUSR1)
 *   LOST <at>                      the mutex's loss listener said LOST
 *   SKIP                           lost while holding: did not write (after a FENCED)
 *   REL <at>                       released
 *   LEADER <at> <token> / FOLLOWER <at>
 * SIGUSR1 makes a worker hold its next acquisition and expire its own
 * session from outside meanwhile (a second handle with its id, closed),
 * then try its write anyway: the write is a transaction fenced by the
 * mutex's node, so nothing is written. SIGTERM stops it cleanly.
 *
 * Everything here is the public API (<zkr/zkr.h>) except the expiry from
 * outside, a test-only hook (zkr-demo-expire.c). */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <zkr/zkr.h>

#include "zkr-demo.h"

#define WORKERS 6
#define WORKER_SESSION_MS 6000

/* ==== the worker process ============================================== */

typedef struct {
  const char *hosts;
  const char *base;
  int index;
  ZkrSession *session;
  ZkrMutex *mutex;
  ZkrLeaderLatch *latch;
  GMainLoop *loop;
  gint stop;          /* atomic */
  gint hold;          /* atomic: hold the next acquisition until lost (or 8 s) */
  gint lost;          /* atomic: the current acquisition was lost */
  GMutex out_lock;
} Worker;

static void
say (Worker *worker, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
say (Worker *worker, const char *format, ...)
{
  va_list args;

  g_mutex_lock (&worker->out_lock);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
  g_mutex_unlock (&worker->out_lock);
}

static void
on_loss (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  Worker *worker = user_data;

  (void) lock;
  if (event == ZKR_LOCK_LOST)
    {
      g_atomic_int_set (&worker->lost, 1);
      say (worker, "LOST %" G_GINT64_FORMAT, g_get_monotonic_time ());
    }
}

static void
on_leader (ZkrLeaderLatch *latch, gpointer user_data)
{
  say (user_data, "LEADER %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, g_get_monotonic_time (),
       zkr_leader_latch_get_fencing_token (latch));
}

static void
on_follower (ZkrLeaderLatch *latch, gpointer user_data)
{
  (void) latch;
  say (user_data, "FOLLOWER %" G_GINT64_FORMAT, g_get_monotonic_time ());
}

static gboolean
on_signal (gpointer data)
{
  gint *flag = data;

  g_atomic_int_set (flag, 1);
  return G_SOURCE_CONTINUE;
}

/* Reads "count token" from the counter node (absent: 0 0, *@version -1). */
static gboolean
counter_read (ZkrSession *session, const char *path, gint64 *count, gint64 *token, int *version)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  ZkrStat stat;

  *count = *token = 0;
  *version = -1;
  bytes = zkr_node_get (session, path, 5000, NULL, &stat, &error);
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    return TRUE;
  if (bytes == NULL)
    return FALSE;
  *version = stat.version;
  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  return sscanf (text, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, count, token) == 2;
}

/* The write, fenced by the mutex's node: the server applies it only while
 * that node exists, so a holder that lost the lock (expired, partitioned,
 * paused) writes nothing, even before it hears of the loss. @version, the
 * one read, also refuses a write over someone else's. */
static gboolean
counter_write (ZkrMutex *mutex, ZkrSession *session, const char *path, gint64 count,
               gint64 token, int version, GError **error)
{
  g_autoptr (ZkrTxn) txn = zkr_txn_new (session);
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, count, token);

  zkr_txn_fence_mutex (txn, mutex);
  if (version < 0)
    zkr_txn_create (txn, path, text, strlen (text), ZKR_CREATE_PERSISTENT);
  else
    zkr_txn_set (txn, path, text, strlen (text), version);
  return zkr_txn_commit (txn, 5000, NULL, error);
}

/* One acquire / read-modify-write / release, the way an application
 * would: the write carries our fencing token, and a lost lock means no
 * write at all. */
/* Held on purpose while the session is expired from outside: once the
 * loss is heard, the write is tried anyway, and the fence refuses it. */
static void
worker_hold_through_expiry (Worker *worker, const char *counter, gint64 token)
{
  g_autoptr (GError) error = NULL;
  gint64 until = g_get_monotonic_time () + 8 * G_USEC_PER_SEC;

  say (worker, "HOLD");
  zkr_demo_expire_session (worker->session, worker->hosts);
  while (!g_atomic_int_get (&worker->lost) && g_get_monotonic_time () < until)
    g_usleep (20 * 1000);
  if (!counter_write (worker->mutex, worker->session, counter, 0, token, -1, &error)
      && g_error_matches (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST))
    say (worker, "FENCED");
}

/* One acquire / read-modify-write / release, the way an application
 * would: the write is fenced by the lock and carries our fencing token,
 * and a lost lock means no write at all. */
static void
worker_cycle (Worker *worker, const char *counter)
{
  g_autoptr (GError) error = NULL;
  gint64 wait_from = g_get_monotonic_time (), got, count, stored, token;
  int version;

  if (!zkr_mutex_acquire (worker->mutex, 5000, NULL, &error))
    {
      g_usleep (100 * 1000);
      return;
    }
  got = g_get_monotonic_time ();
  token = zkr_mutex_get_fencing_token (worker->mutex);
  g_atomic_int_set (&worker->lost, 0);
  say (worker, "ACQ %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, wait_from, got,
       token);
  if (g_atomic_int_compare_and_exchange (&worker->hold, 1, 0))
    worker_hold_through_expiry (worker, counter, token);
  if (g_atomic_int_get (&worker->lost) || !zkr_mutex_is_held (worker->mutex))
    say (worker, "SKIP");
  else if (counter_read (worker->session, counter, &count, &stored, &version))
    {
      if (stored >= token)
        say (worker, "STALE %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, stored, token);
      else if (counter_write (worker->mutex, worker->session, counter, count + 1, token, version,
                              &error))
        say (worker, "WROTE %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, count + 1, token);
      else if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_LOCK_LOST))
        say (worker, "FENCED");
      g_usleep (1000); /* the rest of the work the lock protects */
    }
  if (zkr_mutex_is_held (worker->mutex))
    zkr_mutex_release (worker->mutex, NULL);
  say (worker, "REL %" G_GINT64_FORMAT, g_get_monotonic_time ());
  g_usleep ((gulong) g_random_int_range (2000, 8000)); /* other work */
}

static gpointer
worker_thread (gpointer data)
{
  Worker *worker = data;
  g_autofree char *counter = g_strdup_printf ("%s/counter", worker->base);

  while (!g_atomic_int_get (&worker->stop))
    worker_cycle (worker, counter);
  g_main_loop_quit (worker->loop);
  return NULL;
}

int
zkr_demo_worker_main (const char *hosts, const char *base, int index)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *lock_path = g_strdup_printf ("%s/lock", base);
  g_autofree char *latch_path = g_strdup_printf ("%s/leader", base);
  g_autofree char *id = g_strdup_printf ("worker-%d", index);
  Worker worker = { .hosts = hosts, .base = base, .index = index };
  GThread *thread;

  g_mutex_init (&worker.out_lock);
  worker.loop = g_main_loop_new (NULL, FALSE);
  zkr_session_options_set_hosts (options, hosts);
  zkr_session_options_set_session_timeout_ms (options, WORKER_SESSION_MS);
  zkr_session_options_set_client_id (options, id);
  worker.session = zkr_session_new (options, &error);
  if (worker.session == NULL || !zkr_session_wait_connected (worker.session, 30000, NULL, &error))
    {
      fprintf (stderr, "%s: %s\n", id, error->message);
      return 1;
    }
  worker.mutex = zkr_mutex_new (worker.session, lock_path, &error);
  if (worker.mutex != NULL)
    worker.latch = zkr_leader_latch_new (worker.session, latch_path, id, &error);
  if (worker.latch == NULL)
    {
      fprintf (stderr, "%s: %s\n", id, error->message);
      zkr_session_close (worker.session);
      return 1;
    }
  zkr_mutex_add_loss_listener (worker.mutex, on_loss, &worker, NULL);
  zkr_leader_latch_add_listener (worker.latch, on_leader, on_follower, &worker, NULL);
  g_unix_signal_add (SIGTERM, on_signal, &worker.stop);
  g_unix_signal_add (SIGUSR1, on_signal, &worker.hold);
  if (!zkr_leader_latch_start (worker.latch, &error))
    {
      fprintf (stderr, "%s: %s\n", id, error->message);
      zkr_session_close (worker.session);
      return 1;
    }
  say (&worker, "READY");
  thread = g_thread_new ("demo-worker", worker_thread, &worker);
  g_main_loop_run (worker.loop);
  g_thread_join (thread);
  zkr_leader_latch_close (worker.latch, ZKR_LEADER_CLOSE_SILENT, NULL);
  zkr_leader_latch_unref (worker.latch);
  zkr_mutex_unref (worker.mutex);
  zkr_session_close (worker.session);
  zkr_session_unref (worker.session);
  g_main_loop_unref (worker.loop);
  return 0;
}

/* ==== the parent ======================================================= */

typedef struct {
  gint64 wait_from, got, released, token;
  int worker;
} Acquisition;

typedef struct _Demo2 Demo2;

typedef struct {
  Demo2 *demo;
  int index;
  GPid pid;
  gboolean alive;
  GIOChannel *out;
  guint out_watch;
  GString *partial;
} Child;

struct _Demo2 {
  const char *hosts;
  char *base;
  gint64 start;
  GMainLoop *loop;
  Child children[WORKERS];
  guint ready;
  GArray *acquisitions;     /* of Acquisition */
  guint writes, stale, skips, fenced, losses, timeouts;
  int leader;               /* -1: none known */
  guint terms;
  GHashTable *leaders_seen; /* worker index set */
  gint64 killed_at;
  int killed;
  gint64 reelected_after;   /* µs, 0 until seen */
  int expired;              /* the worker whose session we expire, -1 */
  gboolean loss_seen;
  guint exited;
  int phase;
  gint64 start_stop_at;
};

static double
since (Demo2 *demo, gint64 at)
{
  return (at - demo->start) / 1e6;
}

static void
note (Demo2 *demo, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
note (Demo2 *demo, const char *format, ...)
{
  va_list args;

  printf ("  [%6.2fs] ", since (demo, g_get_monotonic_time ()));
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
}

static void
child_line (Child *child, const char *line)
{
  Demo2 *demo = child->demo;
  gint64 a = 0, b = 0, c = 0;

  if (g_str_equal (line, "READY"))
    demo->ready++;
  else if (sscanf (line, "ACQ %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &a, &b,
                   &c) == 3)
    {
      Acquisition acquisition = { a, b, 0, c, child->index };

      g_array_append_val (demo->acquisitions, acquisition);
    }
  else if (sscanf (line, "REL %" G_GINT64_FORMAT, &a) == 1)
    {
      for (guint i = demo->acquisitions->len; i > 0; i--)
        {
          Acquisition *last = &g_array_index (demo->acquisitions, Acquisition, i - 1);

          if (last->worker == child->index)
            {
              last->released = a;
              break;
            }
        }
    }
  else if (g_str_has_prefix (line, "WROTE "))
    demo->writes++;
  else if (g_str_has_prefix (line, "STALE "))
    {
      demo->stale++;
      note (demo, "worker-%d: the counter held a newer token: %s", child->index, line);
    }
  else if (g_str_equal (line, "HOLD"))
    {
      note (demo, "worker-%d holds the mutex; its session is expired from outside", child->index);
    }
  else if (sscanf (line, "LOST %" G_GINT64_FORMAT, &a) == 1)
    {
      demo->losses++;
      demo->loss_seen |= child->index == demo->expired;
      note (demo, "worker-%d: loss listener: ZKR_LOCK_LOST (its session expired)", child->index);
    }
  else if (g_str_equal (line, "FENCED"))
    {
      demo->fenced++;
      note (demo, "worker-%d wrote after the loss anyway: refused by its fence, nothing written",
            child->index);
    }
  else if (g_str_equal (line, "SKIP"))
    {
      demo->skips++;
      note (demo, "worker-%d stopped before writing: no update with a lost lock", child->index);
    }
  else if (sscanf (line, "LEADER %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &a, &b) == 2)
    {
      demo->terms++;
      demo->leader = child->index;
      g_hash_table_add (demo->leaders_seen, GINT_TO_POINTER (child->index));
      if (demo->killed_at != 0 && demo->reelected_after == 0)
        {
          demo->reelected_after = a - demo->killed_at;
          note (demo, "worker-%d is the new leader, %.2f s after the kill (token %" G_GINT64_FORMAT ")",
                child->index, demo->reelected_after / 1e6, b);
        }
      else
        note (demo, "worker-%d is leader (term token %" G_GINT64_FORMAT ")", child->index, b);
    }
  else if (g_str_has_prefix (line, "FOLLOWER "))
    {
      if (demo->leader == child->index)
        demo->leader = -1;
      note (demo, "worker-%d is no longer leader", child->index);
    }
}

static gboolean
child_readable (GIOChannel *channel, GIOCondition condition, gpointer data)
{
  Child *child = data;
  char buffer[65536];
  gsize got = 0;
  GIOStatus status = G_IO_STATUS_NORMAL;

  if (condition & G_IO_IN)
    status = g_io_channel_read_chars (channel, buffer, sizeof buffer, &got, NULL);
  if (got > 0)
    {
      char *newline;

      g_string_append_len (child->partial, buffer, (gssize) got);
      while ((newline = strchr (child->partial->str, '\n')) != NULL)
        {
          *newline = '\0';
          child_line (child, child->partial->str);
          g_string_erase (child->partial, 0, newline - child->partial->str + 1);
        }
    }
  if (status == G_IO_STATUS_AGAIN)
    return G_SOURCE_CONTINUE;
  if (status == G_IO_STATUS_EOF || status == G_IO_STATUS_ERROR ||
      (got == 0 && (condition & (G_IO_HUP | G_IO_ERR))))
    {
      child->out_watch = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
child_exited (GPid pid, gint status, gpointer data)
{
  Child *child = data;
  Demo2 *demo = child->demo;

  (void) status;
  g_spawn_close_pid (pid);
  child->alive = FALSE;
  if (++demo->exited == WORKERS)
    g_main_loop_quit (demo->loop);
}

static gboolean
spawn_child (Demo2 *demo, const char *self, int index)
{
  Child *child = &demo->children[index];
  g_autofree char *number = g_strdup_printf ("%d", index);
  const char *argv[] = { self, "--worker", number, demo->base, NULL };
  g_autoptr (GError) error = NULL;
  int out = -1;

  child->demo = demo;
  child->index = index;
  child->partial = g_string_new (NULL);
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                 &child->pid, NULL, &out, NULL, &error))
    {
      fprintf (stderr, "zkr-demo: cannot start a worker: %s\n", error->message);
      return FALSE;
    }
  child->alive = TRUE;
  child->out = g_io_channel_unix_new (out);
  g_io_channel_set_close_on_unref (child->out, TRUE);
  g_io_channel_set_encoding (child->out, NULL, NULL);
  /* Non-blocking: a read returns what is there instead of waiting to
   * fill the buffer. */
  g_io_channel_set_flags (child->out, G_IO_FLAG_NONBLOCK, NULL);
  child->out_watch = g_io_add_watch (child->out, G_IO_IN | G_IO_HUP | G_IO_ERR, child_readable, child);
  g_child_watch_add (child->pid, child_exited, child);
  return TRUE;
}

static void
stop_children (Demo2 *demo, int signo)
{
  for (int i = 0; i < WORKERS; i++)
    if (demo->children[i].alive)
      kill (demo->children[i].pid, signo);
}

/* The script, one step a second. */
static gboolean
tick (gpointer data)
{
  Demo2 *demo = data;
  gint64 now = g_get_monotonic_time ();
  double t = since (demo, now);

  if (demo->phase == 0 && demo->ready == WORKERS && demo->leader >= 0 && t > 5)
    {
      Child *leader = &demo->children[demo->leader];

      note (demo, "killing worker-%d, the leader (SIGKILL: no goodbye, its nodes stay until its "
            "session expires, %d s)", leader->index, WORKER_SESSION_MS / 1000);
      demo->killed = leader->index;
      demo->killed_at = now;
      demo->leader = -1;
      kill (leader->pid, SIGKILL);
      demo->phase = 1;
    }
  else if (demo->phase == 1 && demo->reelected_after != 0 && t > 14)
    {
      for (int i = 0; i < WORKERS; i++)
        if (demo->children[i].alive && i != demo->leader && i != demo->killed)
          {
            demo->expired = i;
            break;
          }
      note (demo, "asking worker-%d to hold the mutex on its next turn while its session is expired",
            demo->expired);
      kill (demo->children[demo->expired].pid, SIGUSR1);
      demo->phase = 2;
    }
  else if (demo->phase == 2 && (demo->loss_seen || t > 45))
    {
      demo->phase = 3;
      demo->start_stop_at = now + 4 * G_USEC_PER_SEC;
    }
  else if (demo->phase == 3 && now > demo->start_stop_at)
    {
      note (demo, "stopping the workers (SIGTERM: each releases and leaves the latch)");
      stop_children (demo, SIGTERM);
      demo->phase = 4;
    }
  else if (t > 90 && demo->phase < 4)
    {
      note (demo, "the script is stuck; stopping");
      stop_children (demo, SIGTERM);
      demo->phase = 4;
    }
  return G_SOURCE_CONTINUE;
}

static int
compare_got (gconstpointer a, gconstpointer b)
{
  const Acquisition *x = a, *y = b;

  return x->got < y->got ? -1 : x->got > y->got;
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
percentile_ms (GArray *values, double p)
{
  if (values->len == 0)
    return 0;
  return g_array_index (values, gint64, (guint) ((values->len - 1) * p)) / 1000.0;
}

/* Deletes @path and everything under it (the demo's own tree). */
static void
delete_tree (ZkrSession *session, const char *path)
{
  g_auto (GStrv) children = zkr_node_get_children (session, path, 5000, NULL, NULL, NULL);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, children[i]);

      delete_tree (session, child);
    }
  zkr_node_delete (session, path, -1, 5000, NULL, NULL);
}

/* The summary; returns TRUE when every promise held. */
static gboolean
summarize (Demo2 *demo, ZkrSession *session)
{
  g_autofree char *counter_path = g_strdup_printf ("%s/counter", demo->base);
  g_autoptr (GArray) handoffs = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 count = 0, token = 0, previous_token = 0, previous_release = 0;
  gboolean increasing = TRUE, ok;
  guint lost_updates;
  int version;

  counter_read (session, counter_path, &count, &token, &version);
  g_array_sort (demo->acquisitions, compare_got);
  for (guint i = 0; i < demo->acquisitions->len; i++)
    {
      Acquisition *a = &g_array_index (demo->acquisitions, Acquisition, i);

      increasing &= a->token > previous_token;
      previous_token = a->token;
      /* A hand-off: this one was waiting when the previous holder let go. */
      if (previous_release != 0 && a->wait_from < previous_release && a->got >= previous_release)
        {
          gint64 handoff = a->got - previous_release;

          g_array_append_val (handoffs, handoff);
        }
      previous_release = a->released;
    }
  g_array_sort (handoffs, compare_gint64);
  lost_updates = demo->writes > count ? demo->writes - (guint) count : 0;
  ok = lost_updates == 0 && demo->stale == 0 && increasing && demo->reelected_after != 0 &&
       demo->loss_seen && demo->fenced > 0 && g_hash_table_size (demo->leaders_seen) >= 2;

  printf ("\n  summary (6 workers, one zkr mutex, one zkr leader latch)\n");
  printf ("  %-34s %u\n", "acquisitions", demo->acquisitions->len);
  printf ("  %-34s %u (counter node says %" G_GINT64_FORMAT ")\n", "counter updates", demo->writes, count);
  printf ("  %-34s %u %s\n", "lost updates", lost_updates, lost_updates == 0 ? "(none: ok)" : "(BAD)");
  printf ("  %-34s %s\n", "fencing tokens strictly increasing", increasing ? "yes" : "NO (BAD)");
  printf ("  %-34s %u\n", "writes refused as stale", demo->stale);
  printf ("  %-34s %u %s\n", "writes refused by the fence", demo->fenced,
          demo->fenced > 0 ? "(the write tried after the loss: ok)" : "(expected one: BAD)");
  printf ("  %-34s %u (terms), by %u workers\n", "leaders seen", demo->terms,
          g_hash_table_size (demo->leaders_seen));
  printf ("  %-34s %.2f s (session timeout %d s)\n", "re-election after the kill",
          demo->reelected_after / 1e6, WORKER_SESSION_MS / 1000);
  printf ("  %-34s %u, then no write (%u skipped)\n", "loss callbacks", demo->losses, demo->skips);
  printf ("  %-34s p50 %.2f ms, p99 %.2f ms (%u hand-offs)\n", "mutex hand-off latency",
          percentile_ms (handoffs, 0.50), percentile_ms (handoffs, 0.99), handoffs->len);
  printf ("  %s\n", ok ? "every check passed" : "SOME CHECK FAILED");
  return ok;
}

int
zkr_demo_workers_run (const char *self, const char *hosts)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  Demo2 demo = { 0 };
  ZkrSession *session;
  gboolean ok;

  zkr_session_options_set_hosts (options, hosts);
  session = zkr_session_new (options, &error);
  if (session == NULL || !zkr_session_wait_connected (session, 30000, NULL, &error))
    {
      fprintf (stderr, "zkr-demo: %s\n", error->message);
      g_clear_pointer (&session, zkr_session_unref);
      return 1;
    }
  demo.hosts = hosts;
  demo.base = g_strdup_printf ("/zkr-demo/run-%d", (int) getpid ());
  demo.start = g_get_monotonic_time ();
  demo.loop = g_main_loop_new (NULL, FALSE);
  demo.acquisitions = g_array_new (FALSE, FALSE, sizeof (Acquisition));
  demo.leaders_seen = g_hash_table_new (NULL, NULL);
  demo.leader = -1;
  demo.expired = -1;
  setvbuf (stdout, NULL, _IOLBF, 0);
  printf ("\nact two: %d worker processes update one counter under a zkr mutex (%s/lock),\n"
          "each write carrying its fencing token, and elect a leader (%s/leader)\n",
          WORKERS, demo.base, demo.base);
  for (int i = 0; i < WORKERS; i++)
    if (!spawn_child (&demo, self, i))
      {
        /* The workers already started must not run on without us. */
        stop_children (&demo, SIGKILL);
        zkr_session_close (session);
        zkr_session_unref (session);
        return 1;
      }
  g_timeout_add (250, tick, &demo);
  g_main_loop_run (demo.loop);
  /* Drain what the workers wrote last. */
  for (int i = 0; i < WORKERS; i++)
    while (demo.children[i].out_watch != 0 && g_main_context_iteration (NULL, FALSE))
      ;
  ok = summarize (&demo, session);
  delete_tree (session, demo.base);
  /* Only if empty: other runs may share it. */
  zkr_node_delete (session, "/zkr-demo", -1, 5000, NULL, NULL);
  for (int i = 0; i < WORKERS; i++)
    {
      if (demo.children[i].out_watch != 0)
        g_source_remove (demo.children[i].out_watch);
      g_io_channel_unref (demo.children[i].out);
      g_string_free (demo.children[i].partial, TRUE);
    }
  g_hash_table_unref (demo.leaders_seen);
  g_array_unref (demo.acquisitions);
  g_main_loop_unref (demo.loop);
  g_free (demo.base);
  zkr_session_close (session);
  zkr_session_unref (session);
  return ok ? 0 : 1;
}
