/* zkr integration: the atomic long and the shared count against the real
 * ensemble: Curator's layouts byte for byte, contended increments that sum
 * exactly, listeners across sessions, bad node data, deadlines through the
 * proxy. */
#include "itest.h"
#include "zkr-test.h"

#include <string.h>

#include <zkr/zkr.h>

#include "session-private.h"

#define CALL_MS ITEST_CALL_MS
#define WAIT_MS ITEST_WAIT_MS
#define MARGIN_MS 750
#define SHORT_TIMEOUT_MS 1000
#define UNNOTICED_SESSION_MS 15000
/* SUSPENDED 6 s after the last byte, LOST about 8 s after it. */
#define SUSPENDED_SESSION_MS 9000
/* LOST about 3.5 s into the black hole, and staying LOST until healed. */
#define LOST_SESSION_MS 4000
#define THREADS 4
#define INCREMENTS 200

/* @path's data read by @session, which may be another session than the
 * writer's, served by another member: a sync first, so that the read sees
 * every write made before. (transfer full) (nullable) */
static GBytes *
node_get_synced (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  GBytes *data;

  CU_ASSERT_TRUE (zkr_node_sync (session, path, CALL_MS, NULL, &error));
  g_clear_error (&error);
  data = zkr_node_get (session, path, CALL_MS, NULL, NULL, &error);
  CU_ASSERT_PTR_NULL (error);
  return data;
}

static void
assert_node_bytes (ZkrSession *session, const char *path, const guint8 *expected, gsize len)
{
  g_autoptr (GBytes) data = node_get_synced (session, path);
  gsize got = 0;
  const void *bytes = data != NULL ? g_bytes_get_data (data, &got) : NULL;

  CU_ASSERT_PTR_NOT_NULL (data);
  CU_ASSERT_EQUAL (got, len);
  if (got == len && len > 0)
    CU_ASSERT_EQUAL (memcmp (bytes, expected, len), 0);
}

static void
finish_root (ZkrSession *session, const char *root)
{
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  itest_assert_path_clean (session, root);
}

/* ---- atomic long ---------------------------------------------------------- */

static void
test_atomic_long__operations_keep_curators_8_byte_layout (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-ops");
  g_autofree char *path = g_strdup_printf ("%s/a/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, &error);
  ZkrAtomicLongValue value;
  static const guint8 seven[8] = { 0, 0, 0, 0, 0, 0, 0, 7 };
  static const guint8 minus_two[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe };

  CU_ASSERT_TRUE_FATAL (atomic != NULL);
  /* A missing node reads 0 (Curator's rule) and is not created by a get. */
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_TRUE (value.succeeded);
  CU_ASSERT_EQUAL (value.pre_value, 0);
  CU_ASSERT_TRUE (itest_node_absent (session, path));

  CU_ASSERT_TRUE (zkr_atomic_long_add (atomic, 5, CALL_MS, NULL, &value, &error));
  CU_ASSERT_TRUE (value.succeeded);
  CU_ASSERT_EQUAL (value.pre_value, 0);
  CU_ASSERT_EQUAL (value.post_value, 5);
  CU_ASSERT_TRUE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, 6);
  CU_ASSERT_TRUE (zkr_atomic_long_add (atomic, 1, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, 7);
  assert_node_bytes (session, path, seven, 8);

  CU_ASSERT_TRUE (zkr_atomic_long_compare_and_set (atomic, 1, 9, CALL_MS, NULL, &value,
                                                   &error));
  CU_ASSERT_FALSE (value.succeeded);
  CU_ASSERT_EQUAL (value.pre_value, 7);
  CU_ASSERT_TRUE (zkr_atomic_long_compare_and_set (atomic, 7, -1, CALL_MS, NULL, &value,
                                                   &error));
  CU_ASSERT_TRUE (value.succeeded);
  CU_ASSERT_EQUAL (value.post_value, -1);
  CU_ASSERT_TRUE (zkr_atomic_long_decrement (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, -2);
  assert_node_bytes (session, path, minus_two, 8);

  CU_ASSERT_TRUE (zkr_atomic_long_set (atomic, G_MAXINT64, CALL_MS, NULL, &value, &error));
  CU_ASSERT_TRUE (value.succeeded);
  /* Java's long wraps. */
  CU_ASSERT_TRUE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, G_MININT64);
  CU_ASSERT_PTR_NULL (error);
  finish_root (session, root);
}

static void
test_atomic_long__compare_and_set_on_a_missing_node_fails_as_curator (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-cas");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, &error);
  ZkrAtomicLongValue value;

  CU_ASSERT_TRUE (zkr_atomic_long_compare_and_set (atomic, 0, 1, CALL_MS, NULL, &value, &error));
  CU_ASSERT_FALSE (value.succeeded);
  CU_ASSERT_TRUE (itest_node_absent (session, path));
  finish_root (session, root);
}

typedef struct {
  const char *path;
  const char *lock_path;     /* nullable: optimistic */
  guint succeeded;
  guint errors;
} Incrementer;

static gpointer
incrementer_run (gpointer data)
{
  Incrementer *inc = data;
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autoptr (ZkrRetryPolicy) few = zkr_retry_policy_n_times_new (2, 1);
  g_autoptr (ZkrAtomicLong) atomic = NULL;

  /* Few retries, so that the promoted mode really takes the lock. */
  atomic = inc->lock_path != NULL
             ? zkr_atomic_long_new_promoted (session, inc->path, few, inc->lock_path, -1, NULL,
                                             NULL)
             : zkr_atomic_long_new (session, inc->path, NULL, NULL);
  while (inc->succeeded < INCREMENTS && inc->errors < 10)
    {
      g_autoptr (GError) error = NULL;
      ZkrAtomicLongValue value;

      if (!zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error))
        inc->errors++;
      else if (value.succeeded)
        inc->succeeded++;
    }
  return NULL;
}

static void
run_incrementers (const char *name, gboolean promoted)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path (name);
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autofree char *lock_path = g_strdup_printf ("%s/lock", root);
  Incrementer inc[THREADS];
  GThread *threads[THREADS];
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, NULL);
  ZkrAtomicLongValue value;
  guint total = 0;

  for (guint i = 0; i < THREADS; i++)
    {
      inc[i] = (Incrementer) { path, promoted ? lock_path : NULL, 0, 0 };
      threads[i] = g_thread_new ("incrementer", incrementer_run, &inc[i]);
    }
  for (guint i = 0; i < THREADS; i++)
    {
      g_thread_join (threads[i]);
      CU_ASSERT_EQUAL (inc[i].errors, 0);
      total += inc[i].succeeded;
    }
  CU_ASSERT_EQUAL (total, THREADS * INCREMENTS);
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, NULL));
  CU_ASSERT_EQUAL (value.pre_value, (gint64) total);
  finish_root (session, root);
}

static void
test_atomic_long__contended_increments_sum_exactly (void)
{
  run_incrementers ("counter-sum", FALSE);
}

static void
test_atomic_long__promoted_increments_sum_exactly (void)
{
  run_incrementers ("counter-promoted", TRUE);
}

/* ---- bad data written by someone else ------------------------------------ */

static void
test_counter__wrong_sized_data_is_an_error_naming_the_path (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-bad");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, NULL);
  g_autoptr (ZkrSharedCount) count = zkr_shared_count_new (session, path, 0, NULL);
  ZkrAtomicLongValue value;

  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, path, "abc", 3, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, CALL_MS, NULL, NULL,
                                         NULL, NULL));
  CU_ASSERT_FALSE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, path) != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* The 3 bytes are neither a long nor an int: nothing was overwritten. */
  assert_node_bytes (session, path, (const guint8 *) "abc", 3);
  CU_ASSERT_FALSE (zkr_shared_count_start (count, CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_set (session, path, "", 0, -1, CALL_MS, NULL, NULL, NULL));
  /* No data is 0 to the atomic long (Curator's rule). */
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.pre_value, 0);
  finish_root (session, root);
}

/* ---- shared count ---------------------------------------------------------- */

typedef struct {
  GMutex lock;
  gint last;
  int version;
  guint calls;
  gboolean wrong_context;
  GMainContext *context;
} Seen;

static void
seen_changed (ZkrSharedCount *count, gint value, int version, const GError *error,
              gpointer user_data)
{
  Seen *seen = user_data;

  (void) count;
  if (!g_main_context_is_owner (seen->context))
    seen->wrong_context = TRUE;
  if (error == NULL)
    {
      seen->last = value;
      seen->version = version;
    }
  seen->calls++;
}

static gboolean
wait_seen (Seen *seen, gint value)
{
  gint64 end = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;

  while (seen->last != value && g_get_monotonic_time () < end)
    g_main_context_iteration (seen->context, FALSE), g_usleep (1000);
  return seen->last == value;
}

static void
test_shared_count__set_by_one_session_reaches_the_others_listener (void)
{
  g_autoptr (ZkrSession) one = itest_connect (itest_hosts (), 10000);
  g_autoptr (ZkrSession) two = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-shared");
  g_autofree char *path = g_strdup_printf ("%s/c", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSharedCount) a = zkr_shared_count_new (one, path, 3, NULL);
  g_autoptr (ZkrSharedCount) b = zkr_shared_count_new (two, path, 99, NULL);
  Seen seen = { .last = -1, .context = g_main_context_default () };
  static const guint8 twelve[4] = { 0, 0, 0, 12 };
  gboolean was_set = TRUE;
  gint value;
  int version;

  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (a, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (b, CALL_MS, NULL, &error));
  /* The first start seeded the node; the second read it. */
  CU_ASSERT_EQUAL (zkr_shared_count_get_count (b), 3);
  zkr_shared_count_add_listener (b, seen_changed, &seen, NULL);

  CU_ASSERT_TRUE (zkr_shared_count_set (a, 12, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (wait_seen (&seen, 12));
  CU_ASSERT_FALSE (seen.wrong_context);
  assert_node_bytes (one, path, twelve, 4);

  /* A stale version loses without a write; the fresh one wins. */
  zkr_shared_count_get_versioned (b, &value, &version);
  CU_ASSERT_TRUE (zkr_shared_count_try_set (b, version - 1, 50, CALL_MS, NULL, &was_set,
                                            &error));
  CU_ASSERT_FALSE (was_set);
  CU_ASSERT_TRUE (zkr_shared_count_try_set (b, version, 13, CALL_MS, NULL, &was_set, &error));
  CU_ASSERT_TRUE (was_set);
  CU_ASSERT_EQUAL (zkr_shared_count_get_count (b), 13);
  /* a's view was moved by its watch; its old version now loses. */
  CU_ASSERT_TRUE (zkr_shared_count_try_set (a, version, 14, CALL_MS, NULL, &was_set, &error));
  CU_ASSERT_FALSE (was_set);
  CU_ASSERT_PTR_NULL (error);
  g_clear_pointer (&a, zkr_shared_count_unref);
  g_clear_pointer (&b, zkr_shared_count_unref);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  finish_root (one, root);
}

/* ---- a node deleted and created again ---------------------------------- */

typedef struct {
  ZkrSharedCount *count;
  gint value;
} CountIs;

static gboolean
count_is (gpointer data)
{
  CountIs *is = data;

  return zkr_shared_count_get_count (is->count) == is->value;
}

/* TRUE once @count's value (from memory) is @value, by the deadline. */
static gboolean
wait_count (ZkrSharedCount *count, gint value)
{
  CountIs is = { count, value };

  return itest_wait_for (count_is, &is, WAIT_MS);
}

static void
count_node_set (ZkrSession *session, const char *path, gint value)
{
  g_autoptr (GError) error = NULL;
  guint8 bytes[4] = { (guint8) (value >> 24), (guint8) (value >> 16), (guint8) (value >> 8),
                      (guint8) value };

  CU_ASSERT_TRUE (zkr_node_set (session, path, bytes, 4, -1, CALL_MS, NULL, NULL, &error));
}

static gint
count_node_value (ZkrSession *session, const char *path)
{
  g_autoptr (GBytes) data = node_get_synced (session, path);
  gsize len = 0;
  const guint8 *bytes = data != NULL ? g_bytes_get_data (data, &len) : NULL;

  CU_ASSERT_EQUAL_FATAL (len, 4);
  return (gint) (gint32) ((guint32) bytes[0] << 24 | (guint32) bytes[1] << 16 |
                          (guint32) bytes[2] << 8 | bytes[3]);
}

/* The node's second life: deleted, created again holding 10, set to 11
 * and 12, so its version (2) climbs back to the first life's. */
static void
count_node_recreate (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  static const guint8 ten[4] = { 0, 0, 0, 10 };

  CU_ASSERT_TRUE (zkr_node_delete (session, path, -1, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_create (session, path, ten, 4, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  count_node_set (session, path, 11);
  count_node_set (session, path, 12);
}

/* The first life: the count started on seed 0, then 5 and 7 (version 2),
 * kept in @stale. */
static void
count_first_life (ZkrSharedCount *count, ZkrSession *other, const char *path,
                  ZkrSharedCountValue *stale)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (count, CALL_MS, NULL, &error));
  count_node_set (other, path, 5);
  count_node_set (other, path, 7);
  CU_ASSERT_TRUE_FATAL (wait_count (count, 7));
  zkr_shared_count_get_value (count, stale);
  CU_ASSERT_EQUAL (stale->value, 7);
  CU_ASSERT_EQUAL (stale->version, 2);
  CU_ASSERT_TRUE (stale->czxid > 0 && stale->mzxid > stale->czxid);
}

/* After the second life is made: the count follows it, its later sets by
 * others, its own set, and the increment idiom writes on the live value;
 * a value kept from the first life (@stale, at the same version number)
 * writes nothing. */
static void
count_follows_second_life (ZkrSharedCount *count, ZkrSession *other, const char *path,
                           const ZkrSharedCountValue *stale)
{
  g_autoptr (GError) error = NULL;
  ZkrSharedCountValue live = { 0 };
  gboolean was_set = TRUE;
  gint value = 0;
  int version = -1;

  CU_ASSERT_TRUE (wait_count (count, 12));
  zkr_shared_count_get_versioned (count, &value, &version);
  CU_ASSERT_EQUAL (value, 12);
  CU_ASSERT_EQUAL (version, 2);
  zkr_shared_count_get_value (count, &live);
  CU_ASSERT_EQUAL (live.value, 12);
  CU_ASSERT_EQUAL (live.version, stale->version);
  CU_ASSERT_TRUE (live.czxid > stale->czxid);
  /* The first life's 7 at version 2: the same version number, another
   * node; refused without a write. */
  CU_ASSERT_TRUE (zkr_shared_count_try_set_value (count, stale, stale->value + 1, CALL_MS, NULL,
                                                  &was_set, &error));
  CU_ASSERT_FALSE (was_set);
  CU_ASSERT_EQUAL (count_node_value (other, path), 12);
  /* A negative version is ZooKeeper's "any": never a try's. */
  CU_ASSERT_FALSE (zkr_shared_count_try_set (count, -1, 99, CALL_MS, NULL, &was_set, &error));
  itest_assert_invalid_naming (error, "-1");
  g_clear_error (&error);
  /* Curator's increment idiom, on what the count holds now. */
  CU_ASSERT_TRUE (zkr_shared_count_try_set (count, version, value + 1, CALL_MS, NULL, &was_set,
                                            &error));
  CU_ASSERT_TRUE (was_set);
  CU_ASSERT_EQUAL (count_node_value (other, path), 13);
  count_node_set (other, path, 20);
  CU_ASSERT_TRUE (wait_count (count, 20));
  CU_ASSERT_TRUE (zkr_shared_count_set (count, 30, CALL_MS, NULL, &error));
  CU_ASSERT_EQUAL (zkr_shared_count_get_count (count), 30);
  CU_ASSERT_EQUAL (count_node_value (other, path), 30);
  /* The idiom through the value that names its node. */
  zkr_shared_count_get_value (count, &live);
  CU_ASSERT_TRUE (zkr_shared_count_try_set_value (count, &live, live.value + 1, CALL_MS, NULL,
                                                  &was_set, &error));
  CU_ASSERT_TRUE (was_set);
  CU_ASSERT_EQUAL (count_node_value (other, path), 31);
  CU_ASSERT_EQUAL (zkr_shared_count_get_count (count), 31);
}

static void
test_shared_count__follows_its_node_deleted_and_created_again_lower (void)
{
  g_autoptr (ZkrSession) one = itest_connect (itest_hosts (), 10000);
  g_autoptr (ZkrSession) two = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-recreated");
  g_autofree char *path = g_strdup_printf ("%s/c", root);
  g_autoptr (ZkrSharedCount) count = zkr_shared_count_new (one, path, 0, NULL);
  ZkrSharedCountValue stale = { 0 };

  count_first_life (count, two, path, &stale);
  count_node_recreate (two, path);
  count_follows_second_life (count, two, path, &stale);
  g_clear_pointer (&count, zkr_shared_count_unref);
  finish_root (two, root);
}

static void
test_shared_count__follows_its_node_created_again_while_its_session_expired (void)
{
  ItestProxied f;
  g_autofree char *path = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  ZkrSharedCountValue stale = { 0 };
  guint from;

  itest_proxied_init (&f, NULL, "counter-recreated-lost", LOST_SESSION_MS);
  path = g_strdup_printf ("%s/c", f.root);
  count = zkr_shared_count_new (f.proxied, path, 0, NULL);
  count_first_life (count, f.direct, path, &stale);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             NULL) >= 0);
  /* Made while the count's session is gone: its watch never tells. */
  count_node_recreate (f.direct, path);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.proxied, WAIT_MS, NULL, NULL));
  count_follows_second_life (count, f.direct, path, &stale);
  g_clear_pointer (&count, zkr_shared_count_unref);
  itest_proxied_finish (&f, FALSE);
}

/* A try made while the count cannot vouch for its value (its link cut,
 * SUSPENDED), from a value at version 0 of a node that is meanwhile
 * deleted and created again, also at version 0: the new node is read
 * before anything is written, and the try is refused. */
static void
test_shared_count__try_set_value_unsure_of_its_value_reads_the_node_first (void)
{
  ItestProxied f;
  g_autofree char *path = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  g_autoptr (GError) error = NULL;
  ZkrSharedCountValue stale = { 0 };
  ItestAsync wait;
  GAsyncResult *result;
  gboolean was_set = TRUE;
  guint from;

  itest_proxied_init (&f, NULL, "counter-unsure", SUSPENDED_SESSION_MS);
  path = g_strdup_printf ("%s/c", f.root);
  count = zkr_shared_count_new (f.proxied, path, 3, NULL);
  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (count, CALL_MS, NULL, &error));
  zkr_shared_count_get_value (count, &stale);
  CU_ASSERT_EQUAL (stale.version, 0);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, from,
                                             WAIT_MS, NULL) >= 0);
  {
    static const guint8 forty[4] = { 0, 0, 0, 40 };

    CU_ASSERT_TRUE (zkr_node_delete (f.direct, path, -1, CALL_MS, NULL, &error));
    CU_ASSERT_TRUE (zkr_node_create (f.direct, path, forty, 4, ZKR_CREATE_PERSISTENT,
                                     ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL,
                                     &error));
  }
  itest_async_begin (&wait);
  zkr_shared_count_try_set_value_async (count, &stale, stale.value + 1, WAIT_MS, NULL,
                                        itest_async_done, &wait);
  zkr_test_proxy_heal (f.proxy);
  result = itest_async_wait (&wait, WAIT_MS);
  CU_ASSERT_PTR_NOT_NULL_FATAL (result);
  CU_ASSERT_TRUE (zkr_shared_count_try_set_value_finish (count, result, &was_set, &error));
  itest_async_end (&wait);
  CU_ASSERT_FALSE (was_set);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (count_node_value (f.direct, path), 40);
  CU_ASSERT_TRUE (wait_count (count, 40));
  g_clear_pointer (&count, zkr_shared_count_unref);
  itest_proxied_finish (&f, FALSE);
}

/* The atomic long's node: 5 at version 4 (created at 1), then deleted and
 * created again holding 100 at version 0, set to 101: both objects (one
 * promoted) count on from the new node, and a compare_and_set expecting
 * the old node's value fails. */
static void
atomic_first_life (ZkrAtomicLong *atomic)
{
  g_autoptr (GError) error = NULL;
  ZkrAtomicLongValue value;

  for (int i = 0; i < 5; i++)
    CU_ASSERT_TRUE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, 5);
}

static void
atomic_node_recreate (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  static const guint8 hundred[8] = { 0, 0, 0, 0, 0, 0, 0, 100 };
  static const guint8 hundred_one[8] = { 0, 0, 0, 0, 0, 0, 0, 101 };

  CU_ASSERT_TRUE (zkr_node_delete (session, path, -1, CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_create (session, path, hundred, 8, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_TRUE (zkr_node_set (session, path, hundred_one, 8, -1, CALL_MS, NULL, NULL, &error));
}

static void
atomic_follows_second_life (ZkrAtomicLong *atomic, ZkrAtomicLong *promoted, const char *path,
                            ZkrSession *other)
{
  g_autoptr (GError) error = NULL;
  ZkrAtomicLongValue value;
  static const guint8 hundred_four[8] = { 0, 0, 0, 0, 0, 0, 0, 104 };

  CU_ASSERT_TRUE (zkr_atomic_long_compare_and_set (atomic, 5, 6, CALL_MS, NULL, &value,
                                                   &error));
  CU_ASSERT_FALSE (value.succeeded);
  CU_ASSERT_EQUAL (value.pre_value, 101);
  CU_ASSERT_TRUE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  CU_ASSERT_TRUE (value.succeeded);
  CU_ASSERT_EQUAL (value.pre_value, 101);
  CU_ASSERT_EQUAL (value.post_value, 102);
  CU_ASSERT_TRUE (zkr_atomic_long_increment (promoted, CALL_MS, NULL, &value, &error));
  CU_ASSERT_EQUAL (value.post_value, 103);
  CU_ASSERT_TRUE (zkr_atomic_long_compare_and_set (atomic, 103, 104, CALL_MS, NULL, &value,
                                                   &error));
  CU_ASSERT_TRUE (value.succeeded);
  CU_ASSERT_PTR_NULL (error);
  assert_node_bytes (other, path, hundred_four, 8);
}

static void
test_atomic_long__counts_on_its_node_deleted_and_created_again_lower (void)
{
  g_autoptr (ZkrSession) one = itest_connect (itest_hosts (), 10000);
  g_autoptr (ZkrSession) two = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("atomic-recreated");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autofree char *lock_path = g_strdup_printf ("%s/lock", root);
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (one, path, NULL, NULL);
  g_autoptr (ZkrAtomicLong) promoted =
    zkr_atomic_long_new_promoted (one, path, NULL, lock_path, -1, NULL, NULL);

  atomic_first_life (atomic);
  atomic_node_recreate (two, path);
  atomic_follows_second_life (atomic, promoted, path, two);
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&promoted, zkr_atomic_long_unref);
  finish_root (two, root);
}

static void
test_atomic_long__counts_on_its_node_created_again_while_its_session_expired (void)
{
  ItestProxied f;
  g_autofree char *path = NULL;
  g_autofree char *lock_path = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (ZkrAtomicLong) promoted = NULL;
  guint from;

  itest_proxied_init (&f, NULL, "atomic-recreated-lost", LOST_SESSION_MS);
  path = g_strdup_printf ("%s/n", f.root);
  lock_path = g_strdup_printf ("%s/lock", f.root);
  atomic = zkr_atomic_long_new (f.proxied, path, NULL, NULL);
  promoted = zkr_atomic_long_new_promoted (f.proxied, path, NULL, lock_path, -1, NULL, NULL);
  atomic_first_life (atomic);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             NULL) >= 0);
  atomic_node_recreate (f.direct, path);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.proxied, WAIT_MS, NULL, NULL));
  atomic_follows_second_life (atomic, promoted, path, f.direct);
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&promoted, zkr_atomic_long_unref);
  itest_proxied_finish (&f, FALSE);
}

/* ---- deadlines through the proxy --------------------------------------- */

static void
test_counter__black_holed_calls_answer_by_the_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  ZkrAtomicLongValue value;
  gint64 start;

  itest_proxied_init (&f, NULL, "counter-blackhole", UNNOTICED_SESSION_MS);
  path = g_strdup_printf ("%s/n", f.root);
  atomic = zkr_atomic_long_new (f.proxied, path, NULL, NULL);
  count = zkr_shared_count_new (f.proxied, path, 0, NULL);
  itest_proxied_black_hole (&f);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, SHORT_TIMEOUT_MS, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_shared_count_start (count, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= SHORT_TIMEOUT_MS + MARGIN_MS);
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&count, zkr_shared_count_unref);
  /* The create may land once healed: the finish removes the tree. */
  itest_proxied_finish (&f, FALSE);
}


/* ---- lost replies ---------------------------------------------------------- */

static void
assert_unknown (const GError *error)
{
  ITEST_ASSERT_CODE (error, ZKR_ERROR_CONNECTION_LOSS);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "whether it landed is unknown") != NULL);
}

/* The set landed, its reply was lost: our bytes at the next version could
 * be another client's same increment, so the answer is "unknown", never
 * "succeeded" (which could count one increment twice) and never a resend
 * (the node holds exactly one increment more). */
static void
test_atomic_long__a_lost_set_reply_is_unknown_never_counted_or_resent (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-lost-set");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, NULL);
  g_autofree char *count_path = g_strdup_printf ("%s/c", root);
  g_autoptr (ZkrSharedCount) count = zkr_shared_count_new (session, count_path, 5, NULL);
  ZkrAtomicLongValue value = { .succeeded = TRUE, .post_value = -7 };
  ZkrStat stat = { 0 };
  gboolean was_set = TRUE;
  int version;
  gint current;

  CU_ASSERT_TRUE_FATAL (zkr_atomic_long_set (atomic, 41, CALL_MS, NULL, &value, NULL));
  zkr__session_test_drop_next_set_reply (session);
  CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  assert_unknown (error);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, NULL));
  CU_ASSERT_EQUAL (value.pre_value, 42);
  g_bytes_unref (zkr_node_get (session, path, CALL_MS, NULL, &stat, NULL));
  CU_ASSERT_EQUAL (stat.version, 1);

  /* The shared count's try_set, by the same rule. */
  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (count, CALL_MS, NULL, NULL));
  zkr_shared_count_get_versioned (count, &current, &version);
  zkr__session_test_drop_next_set_reply (session);
  CU_ASSERT_FALSE (zkr_shared_count_try_set (count, version, 6, CALL_MS, NULL, &was_set,
                                             &error));
  assert_unknown (error);
  g_clear_pointer (&count, zkr_shared_count_unref);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  finish_root (session, root);
}

/* The first increment creates the node; its reply lost: the same. */
static void
test_atomic_long__a_lost_create_reply_is_unknown (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("counter-lost-create");
  g_autofree char *path = g_strdup_printf ("%s/n", root);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, path, NULL, NULL);
  ZkrAtomicLongValue value;

  CU_ASSERT_TRUE_FATAL (itest_create_with_retries (session, root, CALL_MS) == 0);
  zkr__session_test_drop_next_create_reply (session);
  CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, CALL_MS, NULL, &value, &error));
  assert_unknown (error);
  CU_ASSERT_TRUE (zkr_atomic_long_get (atomic, CALL_MS, NULL, &value, NULL));
  CU_ASSERT_EQUAL (value.pre_value, 1);
  finish_root (session, root);
}

/* ---- every session state ---------------------------------------------------- */

typedef struct {
  ZkrAtomicLong *atomic;
  int timeout_ms;
  GCancellable *cancellable;
  GError *error;
  gint64 answered;
} BlockingIncrement;

static gpointer
blocking_increment_thread (gpointer data)
{
  BlockingIncrement *inc = data;
  ZkrAtomicLongValue value;

  zkr_atomic_long_increment (inc->atomic, inc->timeout_ms, inc->cancellable, &value,
                             &inc->error);
  inc->answered = g_get_monotonic_time ();
  return NULL;
}

static void
test_counter__cancel_answers_at_once (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GCancellable) already = g_cancellable_new ();
  g_autofree char *path = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  BlockingIncrement inc = { 0 };
  ItestAsync wait;
  GThread *thread;
  gint64 cancelled_at;
  gboolean was_set;
  ZkrAtomicLongValue value;

  itest_proxied_init (&f, NULL, "counter-cancel", UNNOTICED_SESSION_MS);
  path = g_strdup_printf ("%s/n", f.root);
  atomic = zkr_atomic_long_new (f.proxied, path, NULL, NULL);
  count = zkr_shared_count_new (f.proxied, path, 0, NULL);
  CU_ASSERT_TRUE_FATAL (zkr_shared_count_start (count, CALL_MS, NULL, NULL));
  itest_proxied_black_hole (&f);
  /* A blocking increment with no deadline, cancelled from another thread. */
  inc = (BlockingIncrement) { atomic, -1, cancellable, NULL, 0 };
  thread = g_thread_new ("blocking-increment", blocking_increment_thread, &inc);
  g_usleep (200 * 1000); /* let it be in flight; the answer is what is checked */
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  g_thread_join (thread);
  ITEST_ASSERT_CANCELLED (inc.error);
  CU_ASSERT_TRUE ((inc.answered - cancelled_at) / 1000 <= MARGIN_MS);
  g_clear_error (&inc.error);

  /* An async get and an async shared set, cancelled from this thread. */
  g_cancellable_reset (cancellable);
  itest_async_begin (&wait);
  zkr_atomic_long_get_async (atomic, -1, cancellable, itest_async_done, &wait);
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_atomic_long_get_finish (atomic, itest_async_wait (&wait, WAIT_MS), &value,
                                               &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  g_clear_error (&error);
  itest_async_end (&wait);
  g_cancellable_reset (cancellable);
  itest_async_begin (&wait);
  zkr_shared_count_set_async (count, 3, -1, cancellable, itest_async_done, &wait);
  cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (zkr_shared_count_set_finish (count, itest_async_wait (&wait, WAIT_MS),
                                                &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  g_clear_error (&error);
  itest_async_end (&wait);

  /* Already cancelled: answered at once. */
  g_cancellable_cancel (already);
  cancelled_at = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_atomic_long_compare_and_set (atomic, 0, 1, -1, already, &value, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_shared_count_try_set (count, 0, 1, -1, already, &was_set, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_TRUE (itest_elapsed_ms (cancelled_at) <= MARGIN_MS);
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&count, zkr_shared_count_unref);
  itest_proxied_finish (&f, FALSE);
}

static void
test_counter__calls_while_suspended_answer_by_the_deadline (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (ZkrAtomicLong) promoted = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  g_autofree char *lock_path = NULL;
  ZkrAtomicLongValue value;
  guint from;
  gint64 start;

  itest_proxied_init (&f, NULL, "counter-suspended", SUSPENDED_SESSION_MS);
  path = g_strdup_printf ("%s/n", f.root);
  lock_path = g_strdup_printf ("%s/lock", f.root);
  atomic = zkr_atomic_long_new (f.proxied, path, NULL, NULL);
  promoted = zkr_atomic_long_new_promoted (f.proxied, path, NULL, lock_path, -1, NULL, NULL);
  count = zkr_shared_count_new (f.proxied, path, 0, NULL);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE_FATAL (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, from,
                                                   WAIT_MS, NULL) >= 0);
  /* Timeout 0 does not wait; others wait until their deadline. */
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_atomic_long_get (atomic, 0, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_CONNECTION_LOSS);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  g_clear_error (&error);
  if (zkr_session_get_state (f.proxied) == ZKR_SESSION_STATE_SUSPENDED)
    {
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, 300, NULL, &value, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_atomic_long_add (promoted, 2, 300, NULL, &value, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
      start = g_get_monotonic_time ();
      CU_ASSERT_FALSE (zkr_shared_count_start (count, 300, NULL, &error));
      ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
      CU_ASSERT_TRUE (itest_elapsed_ms (start) <= 300 + MARGIN_MS);
      g_clear_error (&error);
    }
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&promoted, zkr_atomic_long_unref);
  g_clear_pointer (&count, zkr_shared_count_unref);
  itest_proxied_finish (&f, FALSE);
}

static void
test_counter__call_in_flight_answers_session_expired_at_lost (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (ZkrAtomicLong) atomic = NULL;
  g_autoptr (ZkrSharedCount) count = NULL;
  BlockingIncrement inc = { 0 };
  ZkrAtomicLongValue value;
  GThread *thread;
  gint64 lost_at = 0, start;
  guint from;

  itest_proxied_init (&f, NULL, "counter-lost", LOST_SESSION_MS);
  path = g_strdup_printf ("%s/n", f.root);
  atomic = zkr_atomic_long_new (f.proxied, path, NULL, NULL);
  count = zkr_shared_count_new (f.proxied, path, 0, NULL);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  inc = (BlockingIncrement) { atomic, -1, NULL, NULL, 0 };
  thread = g_thread_new ("blocking-increment", blocking_increment_thread, &inc);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, WAIT_MS,
                                             &lost_at) >= 0);
  g_thread_join (thread);
  ITEST_ASSERT_CODE (inc.error, ZKR_ERROR_SESSION_EXPIRED);
  CU_ASSERT_TRUE (lost_at != 0 && (inc.answered - lost_at) / 1000 <= MARGIN_MS);
  g_clear_error (&inc.error);
  CU_ASSERT_EQUAL (zkr_session_get_state (f.proxied), ZKR_SESSION_STATE_LOST);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_atomic_long_set (atomic, 4, -1, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_shared_count_start (count, SHORT_TIMEOUT_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_EXPIRED);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
  g_clear_pointer (&atomic, zkr_atomic_long_unref);
  g_clear_pointer (&count, zkr_shared_count_unref);
  itest_proxied_finish (&f, FALSE);
}

static void
test_counter__calls_on_a_closed_session_fail_at_once (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrAtomicLong) atomic = zkr_atomic_long_new (session, "/zkr-closed/n", NULL, NULL);
  g_autoptr (ZkrAtomicLong) promoted =
    zkr_atomic_long_new_promoted (session, "/zkr-closed/n", NULL, "/zkr-closed/l", -1, NULL,
                                  NULL);
  g_autoptr (ZkrSharedCount) count = zkr_shared_count_new (session, "/zkr-closed/c", 0, NULL);
  ZkrAtomicLongValue value;
  gboolean was_set;
  gint64 start;

  zkr_session_close (session);
  start = g_get_monotonic_time ();
  CU_ASSERT_FALSE (zkr_atomic_long_increment (atomic, -1, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_atomic_long_add (promoted, 3, -1, NULL, &value, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_shared_count_start (count, -1, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_shared_count_set (count, 1, -1, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  /* A try_set with a version not the newest seen loses without a call. */
  CU_ASSERT_TRUE (zkr_shared_count_try_set (count, 7, 1, -1, NULL, &was_set, &error));
  CU_ASSERT_FALSE (was_set);
  CU_ASSERT_TRUE (itest_elapsed_ms (start) <= MARGIN_MS);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_atomic_long__operations_keep_curators_8_byte_layout),
  ZKR_TEST_CASE (test_atomic_long__compare_and_set_on_a_missing_node_fails_as_curator),
  ZKR_TEST_CASE (test_atomic_long__contended_increments_sum_exactly),
  ZKR_TEST_CASE (test_atomic_long__promoted_increments_sum_exactly),
  ZKR_TEST_CASE (test_counter__wrong_sized_data_is_an_error_naming_the_path),
  ZKR_TEST_CASE (test_shared_count__set_by_one_session_reaches_the_others_listener),
  ZKR_TEST_CASE (test_shared_count__follows_its_node_deleted_and_created_again_lower),
  ZKR_TEST_CASE (test_shared_count__follows_its_node_created_again_while_its_session_expired),
  ZKR_TEST_CASE (test_shared_count__try_set_value_unsure_of_its_value_reads_the_node_first),
  ZKR_TEST_CASE (test_atomic_long__counts_on_its_node_deleted_and_created_again_lower),
  ZKR_TEST_CASE (test_atomic_long__counts_on_its_node_created_again_while_its_session_expired),
  ZKR_TEST_CASE (test_counter__black_holed_calls_answer_by_the_deadline),
  ZKR_TEST_CASE (test_atomic_long__a_lost_set_reply_is_unknown_never_counted_or_resent),
  ZKR_TEST_CASE (test_atomic_long__a_lost_create_reply_is_unknown),
  ZKR_TEST_CASE (test_counter__cancel_answers_at_once),
  ZKR_TEST_CASE (test_counter__calls_while_suspended_answer_by_the_deadline),
  ZKR_TEST_CASE (test_counter__call_in_flight_answers_session_expired_at_lost),
  ZKR_TEST_CASE (test_counter__calls_on_a_closed_session_fail_at_once),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "counter", NULL, NULL, tests);
}
