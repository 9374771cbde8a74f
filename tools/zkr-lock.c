/* zkr lock: flock(1) for a cluster. Takes a mutex, a read lock or a
 * semaphore lease on PATH (Curator's layouts), runs CMD with the fencing
 * token in its environment, and releases when CMD exits. If the lock is
 * lost while CMD runs, CMD is stopped before anyone else can hold the lock
 * (zkr-guard.c) and zkr exits 70. */

#include "zkr-cli.h"
#include "zkr-guard.h"

typedef enum {
  MODE_MUTEX,
  MODE_READ,
  MODE_SEMAPHORE,
} LockMode;

typedef struct {
  ZkrCliRun base;           /* timeout_s: --timeout, -1 none, 0 one try */
  const char *path;
  LockMode mode;
  int max_leases;
  gboolean shared;
  gboolean revocable;
  char *on_loss_text;
  ZkrOnLoss on_loss;
  ZkrMutex *mutex;          /* (owned) MODE_MUTEX */
  ZkrRwlock *rwlock;        /* (owned) MODE_READ */
  ZkrSemaphore *semaphore;  /* (owned) MODE_SEMAPHORE */
  ZkrLease *lease;          /* (owned) the lease held, MODE_SEMAPHORE */
  guint loss_listener;
  ZkrGuard *guard;          /* (owned) */
  gboolean acquired;
  GError *acquire_error;
} LockRun;

/* ---- the lock, whichever kind -------------------------------------------- */

static gboolean
lock_object_new (LockRun *run, GError **error)
{
  switch (run->mode)
    {
    case MODE_MUTEX:
      run->mutex = zkr_mutex_new (run->base.session, run->path, error);
      return run->mutex != NULL;
    case MODE_READ:
      run->rwlock = zkr_rwlock_new (run->base.session, run->path, error);
      return run->rwlock != NULL;
    case MODE_SEMAPHORE:
      run->semaphore = zkr_semaphore_new (run->base.session, run->path, run->max_leases, error);
      return run->semaphore != NULL;
    }
  g_return_val_if_reached (FALSE);
}

static void
lock_object_free (gpointer data)
{
  LockRun *run = data;

  if (run->revocable && run->mutex != NULL)
    zkr_mutex_make_revocable (run->mutex, NULL, NULL, NULL);
  else if (run->revocable && run->rwlock != NULL)
    zkr_rwlock_make_read_revocable (run->rwlock, NULL, NULL, NULL);
  if (run->loss_listener != 0)
    {
      if (run->mutex != NULL)
        zkr_mutex_remove_loss_listener (run->mutex, run->loss_listener);
      else if (run->rwlock != NULL)
        zkr_rwlock_remove_loss_listener (run->rwlock, run->loss_listener);
      else if (run->semaphore != NULL)
        zkr_semaphore_remove_loss_listener (run->semaphore, run->loss_listener);
      run->loss_listener = 0;
    }
  g_clear_pointer (&run->lease, zkr_lease_free);
  g_clear_pointer (&run->mutex, zkr_mutex_unref);
  g_clear_pointer (&run->rwlock, zkr_rwlock_unref);
  g_clear_pointer (&run->semaphore, zkr_semaphore_unref);
}

/* Runs in the main context: the lock's loss events drive the guard. */
static void
on_lock_event (gpointer lock, ZkrLockEvent event, gpointer user_data)
{
  LockRun *run = user_data;

  (void) lock;
  if (event == ZKR_LOCK_IN_DOUBT)
    zkr_guard_note (run->guard, "lock in doubt: the connection to ZooKeeper is down");
  else if (event == ZKR_LOCK_RESTORED)
    zkr_guard_note (run->guard, "lock restored: reconnected and the lock node is still ours");
  else if (zkr_session_get_state (run->base.session) == ZKR_SESSION_STATE_SUSPENDED)
    zkr_guard_lost (run->guard, "no contact with ZooKeeper until the session's safe deadline "
                                "(it must be presumed expired)");
  else
    zkr_guard_lost (run->guard, "the session expired or the lock node vanished");
}

/* Runs in the main context: a request to give the lock up ends CMD. */
static void
on_revocation (gpointer lock, gpointer user_data)
{
  LockRun *run = user_data;

  (void) lock;
  zkr_guard_revoked (run->guard, "another client asked for the lock (zkr revoke)");
}

static void
lock_add_loss_listener (LockRun *run)
{
  if (run->revocable && run->mutex != NULL)
    zkr_mutex_make_revocable (run->mutex, on_revocation, run, NULL);
  else if (run->revocable && run->rwlock != NULL)
    zkr_rwlock_make_read_revocable (run->rwlock, on_revocation, run, NULL);
  if (run->mutex != NULL)
    run->loss_listener = zkr_mutex_add_loss_listener (run->mutex, on_lock_event, run, NULL);
  else if (run->rwlock != NULL)
    run->loss_listener = zkr_rwlock_add_loss_listener (run->rwlock, on_lock_event, run, NULL);
  else
    run->loss_listener = zkr_semaphore_add_loss_listener (run->semaphore, on_lock_event, run,
                                                          NULL);
}

static void
on_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LockRun *run = user_data;
  g_autoptr (GPtrArray) leases = NULL;

  (void) source;
  if (run->mode == MODE_MUTEX)
    run->acquired = zkr_mutex_acquire_finish (run->mutex, result, &run->acquire_error);
  else if (run->mode == MODE_READ)
    run->acquired = zkr_rwlock_acquire_read_finish (run->rwlock, result, &run->acquire_error);
  else
    {
      leases = zkr_semaphore_acquire_finish (run->semaphore, result, &run->acquire_error);
      if (leases != NULL)
        run->lease = g_ptr_array_steal_index (leases, 0);
      run->acquired = leases != NULL;
    }
  g_main_loop_quit (run->base.loop);
}

/* Waits in the main loop, so that a signal cancels the wait. */
static gboolean
lock_acquire (LockRun *run)
{
  GCancellable *cancellable = zkr_guard_get_cancellable (run->guard);
  /* --timeout 0 tries once; a longer one is what the connect left. */
  int timeout_ms = run->base.timeout_s < 0 ? -1
                   : run->base.deadline == 0 ? 0 : zkr_cli_left_ms (run->base.deadline);

  if (run->mode == MODE_MUTEX)
    zkr_mutex_acquire_async (run->mutex, timeout_ms, cancellable, on_acquired, run);
  else if (run->mode == MODE_READ)
    zkr_rwlock_acquire_read_async (run->rwlock, timeout_ms, cancellable, on_acquired, run);
  else
    zkr_semaphore_acquire_async (run->semaphore, 1, timeout_ms, cancellable, on_acquired, run);
  g_main_loop_run (run->base.loop);
  return run->acquired;
}

static gint64
lock_token (LockRun *run)
{
  if (run->mode == MODE_MUTEX)
    return zkr_mutex_get_fencing_token (run->mutex);
  if (run->mode == MODE_READ)
    return zkr_rwlock_get_read_token (run->rwlock);
  return zkr_lease_get_fencing_token (run->lease);
}

static char *
lock_node (LockRun *run)
{
  if (run->mode == MODE_MUTEX)
    return zkr_mutex_dup_node_path (run->mutex);
  if (run->mode == MODE_READ)
    return zkr_rwlock_dup_read_node_path (run->rwlock);
  return zkr_lease_dup_node_path (run->lease);
}

/* Releases if still held. A lost lock has nothing left to release; a
 * release the server did not confirm stays pending in the library, and
 * closing the session removes the node anyway. */
static void
lock_release (LockRun *run)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = TRUE;

  if (run->mode == MODE_MUTEX && zkr_mutex_is_held (run->mutex))
    ok = zkr_mutex_release (run->mutex, &error);
  else if (run->mode == MODE_READ && zkr_rwlock_is_read_held (run->rwlock))
    ok = zkr_rwlock_release_read (run->rwlock, &error);
  else if (run->mode == MODE_SEMAPHORE && run->lease != NULL && zkr_lease_is_held (run->lease))
    ok = zkr_lease_release (run->lease, &error);
  if (!ok && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD))
    zkr_cli_note (&run->base.cli, "release of %s not confirmed: %s", run->path, error->message);
}

/* ---- the command -------------------------------------------------------- */

static char **
lock_environment (LockRun *run)
{
  g_autofree char *node = lock_node (run);
  char **env = g_new0 (char *, 5);

  env[0] = g_strdup_printf ("ZKR_FENCING_TOKEN=%" G_GINT64_FORMAT, lock_token (run));
  env[1] = g_strdup_printf ("ZKR_LOCK_NODE=%s", node != NULL ? node : "");
  env[2] = g_strdup_printf ("ZKR_LOCK_PATH=%s", run->path);
  env[3] = g_strdup_printf ("ZKR_SESSION_ID=0x%016" G_GINT64_MODIFIER "x",
                            zkr_session_get_id (run->base.session));
  return env;
}

static int
lock_failed (LockRun *run)
{
  GError *error = run->acquire_error;
  int signo = zkr_guard_get_signal (run->guard);

  if (signo != 0)
    return 128 + signo;
  if (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT))
    {
      zkr_cli_note (&run->base.cli, "timed out after %g s waiting for the lock %s",
                    run->base.timeout_s, run->path);
      return ZKR_EXIT_TIMEOUT;
    }
  zkr_cli_error (&run->base.cli, "could not take the lock %s: %s", run->path, error->message);
  return zkr_cli_exit_status_for (error);
}

/* Connected: take the lock, run CMD, release. */
static int
lock_run_connected (gpointer data, char **command)
{
  LockRun *run = data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = NULL;
  int status;

  if (!lock_object_new (run, &error))
    return zkr_cli_report (&run->base.cli, error);
  run->guard = zkr_guard_new ("zkr lock", run->on_loss, run->base.cli.quiet);
  zkr_guard_set_grace_ms (run->guard, zkr_guard_grace_for_session_ms (
                                        zkr_session_get_timeout_ms (run->base.session)));
  lock_add_loss_listener (run);
  if (!lock_acquire (run))
    return lock_failed (run);
  env = lock_environment (run);
  status = zkr_guard_run (run->guard, command, env);
  lock_release (run);
  return status;
}

static gboolean
lock_check_arguments (gpointer data, int argc, char **argv, char **command)
{
  LockRun *run = data;

  if (!zkr_cli_check_path_and_command (&run->base.cli, argc, argv, command))
    return FALSE;
  if (run->shared && run->max_leases != 0)
    return zkr_cli_usage_error (&run->base.cli, "--shared and --semaphore exclude each other"),
           FALSE;
  if (run->revocable && run->max_leases != 0)
    return zkr_cli_usage_error (&run->base.cli, "--revocable and --semaphore exclude each other "
                                           "(Curator's semaphore is not revocable)"), FALSE;
  if (run->max_leases < 0)
    return zkr_cli_usage_error (&run->base.cli, "bad --semaphore %d: need N >= 1", run->max_leases),
           FALSE;
  if (run->base.timeout_s != -1 && !(run->base.timeout_s >= 0 && run->base.timeout_s < 1e9))
    return zkr_cli_usage_error (&run->base.cli, "bad --timeout %g: need seconds >= 0",
                                run->base.timeout_s), FALSE;
  if (run->on_loss_text != NULL && !zkr_on_loss_parse (run->on_loss_text, &run->on_loss))
    return zkr_cli_usage_error (&run->base.cli, "bad --on-loss '%s': need term, kill or ignore",
                                run->on_loss_text), FALSE;
  run->path = argv[1];
  run->mode = run->shared ? MODE_READ : run->max_leases > 0 ? MODE_SEMAPHORE : MODE_MUTEX;
  return TRUE;
}

int
zkr_cmd_lock (int argc, char **argv)
{
  static const ZkrCliSteps steps = { lock_check_arguments, lock_run_connected, lock_object_free };
  LockRun run = { .base = { .cli = { .command = "lock" }, .timeout_s = -1 },
                  .on_loss = ZKR_ON_LOSS_TERM };
  GOptionEntry entries[] = {
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &run.base.timeout_s, NULL, NULL },
    { "shared", 's', 0, G_OPTION_ARG_NONE, &run.shared, NULL, NULL },
    { "semaphore", 0, 0, G_OPTION_ARG_INT, &run.max_leases, NULL, NULL },
    { "revocable", 0, 0, G_OPTION_ARG_NONE, &run.revocable, NULL, NULL },
    { "on-loss", 0, 0, G_OPTION_ARG_STRING, &run.on_loss_text, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  int status = zkr_cli_run (&run.base, entries, &steps, argc, argv);

  g_clear_pointer (&run.guard, zkr_guard_free);
  g_clear_error (&run.acquire_error);
  g_free (run.on_loss_text);
  return status;
}
