/* zkr benchmarks: contended increments of one counter. "raw-counter" is
 * the textbook loop on raw libzookeeper_mt (get, set with the version
 * read, again on a lost race); "raw-counter-async" the same increment on
 * libzookeeper's async calls, the set sent from the get's completion and
 * the caller blocked until the set's answer (the thread path a blocking
 * call on async requests takes, with nothing else); "atomic-long" and
 * "atomic-long-promoted" are zkr's ZkrAtomicLong, optimistic and
 * promoted, on the same node. */

#include <string.h>

#include <zkr/zkr.h>

#include "bench-common.h"

/* The driver creates the run's path; the counter and the promoted mode's
 * lock live under it, so the driver's cleanup removes both. */
#define COUNTER_NODE "/n"
#define LOCK_NODE "/lock"

typedef struct {
  BenchZk *zk;     /* (owned) */
  char *path;      /* the counter's node (owned) */
} RawCounter;

static gpointer
raw_counter_new (const BenchOptions *options, GError **error)
{
  BenchZk *zk = bench_zk_connect (options->hosts, error);
  RawCounter *client;

  if (zk == NULL)
    return NULL;
  client = g_new0 (RawCounter, 1);
  client->zk = zk;
  client->path = g_strconcat (options->path, COUNTER_NODE, NULL);
  return client;
}

static void
raw_counter_free (gpointer data)
{
  RawCounter *client = data;

  bench_zk_close (client->zk);
  g_free (client->path);
  g_free (client);
}

/* One increment, as a hand-written client does it: the same 8-byte
 * big-endian layout, retried at once on a lost race. */
static gboolean
raw_counter_increment (gpointer data, GError **error)
{
  RawCounter *client = data;
  zhandle_t *zh = bench_zk_handle (client->zk);

  for (;;)
    {
      char buf[8] = { 0 };
      int len = sizeof buf;
      struct Stat stat;
      guint64 value = 0;
      int rc = zoo_get (zh, client->path, 0, buf, &len, &stat);

      if (rc == ZNONODE)
        {
          guint64 one = GUINT64_TO_BE (1);

          rc = zoo_create (zh, client->path, (const char *) &one, 8, &ZOO_OPEN_ACL_UNSAFE,
                           ZOO_PERSISTENT, NULL, 0);
          if (rc == ZOK)
            return TRUE;
          if (rc == ZNODEEXISTS)
            continue;
          bench_set_zk_error (error, rc, "create", client->path);
          return FALSE;
        }
      if (rc != ZOK)
        {
          bench_set_zk_error (error, rc, "get", client->path);
          return FALSE;
        }
      if (len == 8)
        {
          memcpy (&value, buf, 8);
          value = GUINT64_FROM_BE (value);
        }
      value = GUINT64_TO_BE (value + 1);
      rc = zoo_set (zh, client->path, (const char *) &value, 8, stat.version);
      if (rc == ZOK)
        return TRUE;
      if (rc != ZBADVERSION)
        {
          bench_set_zk_error (error, rc, "set", client->path);
          return FALSE;
        }
    }
}

/* ---- the same increment on async calls ---------------------------------
 * libzookeeper_mt answers a synchronous call on its I/O thread, and an
 * async one on its completion thread: a blocking call made of async
 * requests (as every zkr call is, to keep its deadline and cancel) costs
 * one more thread wake-up per increment than the textbook loop. This is
 * that path and nothing else: the caller sends the get, the get's
 * completion sends the set, the set's completion wakes the caller. */

typedef struct {
  RawCounter *client;
  GMutex lock;
  GCond cond;
  gboolean done;     /* lock */
  int rc;            /* lock: the increment's end (ZOK, or the error) */
  const char *what;  /* lock: the request that failed */
} AsyncIncrement;

static void async_get_done (int rc, const char *value, int len, const struct Stat *stat,
                            const void *data);

static void
async_finish (AsyncIncrement *inc, int rc, const char *what)
{
  g_mutex_lock (&inc->lock);
  inc->rc = rc;
  inc->what = what;
  inc->done = TRUE;
  g_cond_signal (&inc->cond);
  g_mutex_unlock (&inc->lock);
}

/* On the completion thread: a lost race reads again. */
static void
async_again (AsyncIncrement *inc)
{
  zhandle_t *zh = bench_zk_handle (inc->client->zk);
  int rc = zoo_aget (zh, inc->client->path, 0, async_get_done, inc);

  if (rc != ZOK)
    async_finish (inc, rc, "get");
}

static void
async_set_done (int rc, const struct Stat *stat, const void *data)
{
  AsyncIncrement *inc = (AsyncIncrement *) data;

  (void) stat;
  if (rc == ZBADVERSION)
    async_again (inc);
  else
    async_finish (inc, rc, "set");
}

static void
async_create_done (int rc, const char *value, const void *data)
{
  AsyncIncrement *inc = (AsyncIncrement *) data;

  (void) value;
  if (rc == ZNODEEXISTS)
    async_again (inc);
  else
    async_finish (inc, rc, "create");
}

static void
async_get_done (int rc, const char *value, int len, const struct Stat *stat, const void *data)
{
  AsyncIncrement *inc = (AsyncIncrement *) data;
  zhandle_t *zh = bench_zk_handle (inc->client->zk);
  guint64 current = 0;
  guint64 next;

  if (rc == ZNONODE)
    {
      next = GUINT64_TO_BE (1);
      rc = zoo_acreate (zh, inc->client->path, (const char *) &next, 8, &ZOO_OPEN_ACL_UNSAFE,
                        ZOO_PERSISTENT, async_create_done, inc);
      if (rc != ZOK)
        async_finish (inc, rc, "create");
      return;
    }
  if (rc != ZOK)
    {
      async_finish (inc, rc, "get");
      return;
    }
  if (len == 8)
    {
      memcpy (&current, value, 8);
      current = GUINT64_FROM_BE (current);
    }
  next = GUINT64_TO_BE (current + 1);
  rc = zoo_aset (zh, inc->client->path, (const char *) &next, 8, stat->version, async_set_done,
                 inc);
  if (rc != ZOK)
    async_finish (inc, rc, "set");
}

static gboolean
raw_counter_async_increment (gpointer data, GError **error)
{
  RawCounter *client = data;
  AsyncIncrement inc = { .client = client };
  int rc;

  g_mutex_init (&inc.lock);
  g_cond_init (&inc.cond);
  rc = zoo_aget (bench_zk_handle (client->zk), client->path, 0, async_get_done, &inc);
  if (rc != ZOK)
    async_finish (&inc, rc, "get");
  g_mutex_lock (&inc.lock);
  while (!inc.done)
    g_cond_wait (&inc.cond, &inc.lock);
  g_mutex_unlock (&inc.lock);
  g_mutex_clear (&inc.lock);
  g_cond_clear (&inc.cond);
  if (inc.rc != ZOK)
    {
      bench_set_zk_error (error, inc.rc, inc.what, client->path);
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  ZkrSession *session;     /* (owned) */
  ZkrAtomicLong *atomic;   /* (owned) */
} ZkrCounter;

static void
zkr_counter_free (gpointer data)
{
  ZkrCounter *client = data;

  g_clear_pointer (&client->atomic, zkr_atomic_long_unref);
  zkr_session_close (client->session);
  zkr_session_unref (client->session);
  g_free (client);
}

/* Retries without sleeping, as the raw loop does: what is measured is the
 * library's cost, not a backoff's. Promoted: two optimistic tries, then
 * the mutex. */
static gpointer
zkr_counter_new (const BenchOptions *options, gboolean promoted, GError **error)
{
  g_autoptr (ZkrSessionOptions) session_options = zkr_session_options_new ();
  g_autoptr (ZkrRetryPolicy) eager = zkr_retry_policy_n_times_new (1000, 0);
  g_autoptr (ZkrRetryPolicy) twice = zkr_retry_policy_n_times_new (2, 0);
  g_autofree char *path = g_strconcat (options->path, COUNTER_NODE, NULL);
  g_autofree char *lock_path = g_strconcat (options->path, LOCK_NODE, NULL);
  ZkrCounter *client;

  zkr_session_options_set_hosts (session_options, options->hosts);
  client = g_new0 (ZkrCounter, 1);
  client->session = zkr_session_connect (session_options, error);
  if (client->session == NULL)
    {
      g_free (client);
      return NULL;
    }
  client->atomic = promoted ? zkr_atomic_long_new_promoted (client->session, path, twice,
                                                            lock_path, -1, eager, error)
                            : zkr_atomic_long_new (client->session, path, eager, error);
  if (client->atomic == NULL)
    {
      zkr_counter_free (client);
      return NULL;
    }
  return client;
}

static gpointer
atomic_long_new (const BenchOptions *options, GError **error)
{
  return zkr_counter_new (options, FALSE, error);
}

static gpointer
atomic_long_promoted_new (const BenchOptions *options, GError **error)
{
  return zkr_counter_new (options, TRUE, error);
}

static gboolean
zkr_counter_increment (gpointer data, GError **error)
{
  ZkrCounter *client = data;

  for (;;)
    {
      ZkrAtomicLongValue value;

      if (!zkr_atomic_long_increment (client->atomic, -1, NULL, &value, error))
        return FALSE;
      if (value.succeeded)
        return TRUE;
    }
}

/* Nothing is held between increments. */
static gboolean
counter_release (gpointer data, GError **error)
{
  (void) data;
  (void) error;
  return TRUE;
}

#define COUNTER_IMPL(impl_name, new_func, increment, free_func)               \
  { .name = impl_name, .creates_path = TRUE, .max_holders = 0,               \
    .client_new = new_func, .acquire = increment, .release = counter_release, \
    .client_free = free_func }

const BenchImpl bench_impl_raw_counter =
  COUNTER_IMPL ("raw-counter", raw_counter_new, raw_counter_increment, raw_counter_free);
const BenchImpl bench_impl_raw_counter_async =
  COUNTER_IMPL ("raw-counter-async", raw_counter_new, raw_counter_async_increment,
                raw_counter_free);
const BenchImpl bench_impl_atomic_long =
  COUNTER_IMPL ("atomic-long", atomic_long_new, zkr_counter_increment, zkr_counter_free);
const BenchImpl bench_impl_atomic_long_promoted =
  COUNTER_IMPL ("atomic-long-promoted", atomic_long_promoted_new, zkr_counter_increment,
                zkr_counter_free);
