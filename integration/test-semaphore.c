/* zkr integration: the semaphore against the real ensemble: never more
 * than N holders among many sessions, several leases all or nothing under
 * one deadline, leases released one by one, Curator's layout, the shared
 * count node, cancel, async, loss on expiry, bad input. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "session-private.h"
#include "zkr-test.h"

#define WAIT_MS 30000

/* ---- helpers ---------------------------------------------------------- */

static char *
child_path (const char *path, const char *child)
{
  return g_strdup_printf ("%s/%s", path, child);
}

/* Counted through @session after a sync: the writes may have been made
 * through another session, whose server @session's may lag behind. */
static guint
synced_children (ZkrSession *session, const char *path, const char *child)
{
  g_autofree char *parent = child_path (path, child);

  zkr__op_sync_path_sync (session, parent);
  return itest_count_children (session, parent);
}

/* Counted through @session with nothing sent before: the first request
 * after a call's answer. No sync: for what this session itself changed,
 * or saw changed (ZNONODE: a reaped container, no children). */
static guint
children_now (ZkrSession *session, const char *path, const char *child)
{
  g_autofree char *parent = child_path (path, child);
  g_autoptr (GPtrArray) children = NULL;
  int rc = zkr__op_test_get_children (session, parent, &children);

  CU_ASSERT_TRUE (rc == ZOK || rc == ZNONODE);
  return rc == ZOK ? children->len : 0;
}

static guint
leases_count (ZkrSession *session, const char *path)
{
  return synced_children (session, path, "leases");
}

static guint
locks_count (ZkrSession *session, const char *path)
{
  return synced_children (session, path, "locks");
}

static ZkrSemaphore *
semaphore_new (ZkrSession *session, const char *path, guint max)
{
  g_autoptr (GError) error = NULL;
  ZkrSemaphore *semaphore = zkr_semaphore_new (session, path, max, &error);

  CU_ASSERT_PTR_NOT_NULL (semaphore);
  return semaphore;
}

/* Creates /zkr-it and @base as plain nodes (the count node's parents). */
static void
make_base (ZkrSession *session, const char *base)
{
  zkr__op_test_create (session, "/zkr-it", NULL, -1, ZOO_CONTAINER, NULL, NULL);
  CU_ASSERT_EQUAL (zkr__op_test_create (session, base, NULL, -1, 0, NULL, NULL), ZOK);
}

/* Curator's SharedCount encoding in @out[0..3]; @out[4] is a NUL because
 * zkr__op_create/set copy one byte past the data (see core/op.c). */
static void
count_bytes (gint32 count, char out[5])
{
  guint32 big_endian = GUINT32_TO_BE ((guint32) count);

  memcpy (out, &big_endian, 4);
  out[4] = '\0';
}

/* Curator's SharedCount.setCount (@count) on @count_path. */
static int
set_count (ZkrSession *session, const char *count_path, gint32 count)
{
  char bytes[5];

  count_bytes (count, bytes);
  return zkr__op_test_set (session, count_path, bytes, 4);
}

/* Makes @base, its count node @base/count holding 1, and a semaphore on
 * @base/sem following that count for each of @a and @b. */
static void
shared_count_pair (ZkrSession *a, ZkrSession *b, const char *base, char **path,
                   char **count_path, ZkrSemaphore **sem_a, ZkrSemaphore **sem_b)
{
  g_autoptr (GError) error = NULL;
  char bytes[5];

  make_base (a, base);
  *path = child_path (base, "sem");
  *count_path = child_path (base, "count");
  count_bytes (1, bytes);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (a, *count_path, bytes, 4, 0, NULL, NULL), ZOK);
  *sem_a = zkr_semaphore_new_shared_count (a, *path, *count_path, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (*sem_a);
  /* b reads the count node a just made: b's server may lag behind. */
  zkr__op_sync_path_sync (b, *count_path);
  *sem_b = zkr_semaphore_new_shared_count (b, *path, *count_path, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (*sem_b);
}

typedef struct {
  ZkrSession *session;
  const char *path;
  guint leases;
} LeaseCount;

static gboolean
leases_are (gpointer data)
{
  LeaseCount *want = data;

  return leases_count (want->session, want->path) == want->leases;
}

static void
semaphore_add_loss (gpointer lock, ZkrLockLossFunc func, gpointer user_data)
{
  zkr_semaphore_add_loss_listener (lock, func, user_data, NULL);
}

/* ---- never more than N ------------------------------------------------- */

#define CONTENDERS 10
#define MAX_LEASES 3
#define ROUNDS 5
#define WORK_US (20 * 1000)

typedef struct {
  GMutex lock;
  GCond cond;
  gint holders;        /* protected by lock */
  gint max_holders;    /* protected by lock */
  gint failures;       /* atomic */
} Census;

typedef struct {
  Census *census;
  ZkrSemaphore *semaphore;
} Contender;

static void
contender_hold (Census *census)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_mutex_lock (&census->lock);
  census->holders++;
  census->max_holders = MAX (census->max_holders, census->holders);
  g_cond_broadcast (&census->cond);
  /* Hold until N holders were seen at once (or a while): so the test shows
   * that N is reached, not only that it is never passed. */
  while (census->max_holders < MAX_LEASES &&
         g_cond_wait_until (&census->cond, &census->lock, deadline))
    ;
  g_mutex_unlock (&census->lock);
  /* The work done under the lease: long enough for a contender that the
   * semaphore wrongly let through to be counted (a grant takes ~1 ms). */
  g_usleep (WORK_US);
  g_mutex_lock (&census->lock);
  census->holders--;
  g_mutex_unlock (&census->lock);
}

static gpointer
contender_run (gpointer data)
{
  Contender *contender = data;

  for (int round = 0; round < ROUNDS; round++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) leases = zkr_semaphore_acquire (contender->semaphore, 1, 60000,
                                                            NULL, &error);

      if (leases == NULL)
        {
          g_printerr ("contender: %s\n", error->message);
          g_atomic_int_inc (&contender->census->failures);
          continue;
        }
      contender_hold (contender->census);
      if (!zkr_lease_release (g_ptr_array_index (leases, 0), &error))
        g_atomic_int_inc (&contender->census->failures);
    }
  return NULL;
}

static void
test_semaphore__never_more_than_max_holders_among_ten_sessions (void)
{
  g_autofree char *path = itest_scratch_path ("sem-census");
  ZkrSession *sessions[CONTENDERS];
  Contender contenders[CONTENDERS];
  GThread *threads[CONTENDERS];
  Census census = { 0 };

  g_mutex_init (&census.lock);
  g_cond_init (&census.cond);
  for (int i = 0; i < CONTENDERS; i++)
    {
      sessions[i] = itest_connect (itest_hosts (), 20000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sessions[i]);
      contenders[i].census = &census;
      contenders[i].semaphore = semaphore_new (sessions[i], path, MAX_LEASES);
      CU_ASSERT_PTR_NOT_NULL_FATAL (contenders[i].semaphore);
    }
  for (int i = 0; i < CONTENDERS; i++)
    threads[i] = g_thread_new ("contender", contender_run, &contenders[i]);
  for (int i = 0; i < CONTENDERS; i++)
    g_thread_join (threads[i]);
  CU_ASSERT_EQUAL (g_atomic_int_get (&census.failures), 0);
  CU_ASSERT_TRUE (census.max_holders <= MAX_LEASES);
  CU_ASSERT_EQUAL (census.max_holders, MAX_LEASES);
  CU_ASSERT_EQUAL (leases_count (sessions[0], path), 0);
  CU_ASSERT_EQUAL (locks_count (sessions[0], path), 0);
  for (int i = 0; i < CONTENDERS; i++)
    zkr_semaphore_unref (contenders[i].semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (sessions[0], path));
  for (int i = 0; i < CONTENDERS; i++)
    zkr_session_unref (sessions[i]);
  g_mutex_clear (&census.lock);
  g_cond_clear (&census.cond);
}

/* ---- all or nothing ---------------------------------------------------- */

static void
test_semaphore__several_leases_are_all_or_nothing_under_one_deadline (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("sem-all-or-nothing");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) held = NULL;
  g_autoptr (GPtrArray) taken = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  ZkrSemaphore *sem_a, *sem_b;
  gint64 started, elapsed_ms;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  sem_a = semaphore_new (a, path, 3);
  sem_b = semaphore_new (b, path, 3);
  held = zkr_semaphore_acquire (sem_b, 2, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (held);
  CU_ASSERT_EQUAL (held->len, 2);

  /* 2 held of 3: a second lease for us would be the 4th node. */
  started = g_get_monotonic_time ();
  taken = zkr_semaphore_acquire (sem_a, 2, 500, NULL, &error);
  elapsed_ms = (g_get_monotonic_time () - started) / 1000;
  CU_ASSERT_PTR_NULL (taken);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  CU_ASSERT_TRUE (elapsed_ms >= 450);
  g_clear_error (&error);
  /* Nothing of ours is left: only b's two leases (a's acquire saw them),
   * and locks/ is free. The failed acquire sent its deletes before it
   * answered, so the first thing a sends after it sees them gone. */
  CU_ASSERT_EQUAL (children_now (a, path, "leases"), 2);
  CU_ASSERT_EQUAL (children_now (a, path, "locks"), 0);
  participants = zkr_semaphore_list_participants (sem_a, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL (participants->len, 2);
  for (guint i = 0; i < participants->len; i++)
    {
      ZkrParticipant *p = g_ptr_array_index (participants, i);
      CU_ASSERT_EQUAL (p->session_id, zkr_session_get_id (b));
      CU_ASSERT_TRUE (p->is_holder);
    }

  /* Try-once fails the same way, leaving nothing, each time (the first
   * lease is taken, the second does not fit). */
  for (guint round = 0; round < 10; round++)
    {
      taken = zkr_semaphore_acquire (sem_a, 2, 0, NULL, &error);
      CU_ASSERT_PTR_NULL (taken);
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
      g_clear_error (&error);
      CU_ASSERT_EQUAL (children_now (a, path, "leases"), 2);
      CU_ASSERT_EQUAL (children_now (a, path, "locks"), 0);
    }

  /* One of b's leases back: now two fit. */
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (held, 0), &error));
  taken = zkr_semaphore_acquire (sem_a, 2, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (taken);
  CU_ASSERT_EQUAL (taken->len, 2);
  CU_ASSERT_EQUAL (leases_count (a, path), 3);
  for (guint i = 0; i < taken->len; i++)
    CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (taken, i), &error));
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (held, 1), &error));
  CU_ASSERT_EQUAL (leases_count (a, path), 0);
  CU_ASSERT_EQUAL (locks_count (a, path), 0);
  zkr_semaphore_unref (sem_a);
  zkr_semaphore_unref (sem_b);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* ---- lease handles ----------------------------------------------------- */

static gboolean
is_curator_lease_name (const char *name)
{
  return g_regex_match_simple ("^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                               "-lease-[0-9]{10}$", name, 0, 0);
}

static void
test_semaphore__leases_are_released_one_by_one_in_curators_layout (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("sem-handles");
  g_autofree char *leases_dir = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  g_autoptr (GPtrArray) other = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  ZkrSemaphore *sem_a, *sem_b;
  gint64 last_token = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  leases_dir = child_path (path, "leases");
  sem_a = semaphore_new (a, path, 3);
  sem_b = semaphore_new (b, path, 3);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (sem_a), 3);
  leases = zkr_semaphore_acquire (sem_a, 3, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  CU_ASSERT_EQUAL_FATAL (leases->len, 3);
  for (guint i = 0; i < leases->len; i++)
    {
      ZkrLease *lease = g_ptr_array_index (leases, i);
      g_autofree char *node = zkr_lease_dup_node_path (lease);
      gint64 token = zkr_lease_get_fencing_token (lease);

      CU_ASSERT_TRUE (zkr_lease_is_held (lease));
      CU_ASSERT_TRUE (zkr_lease_verify (lease, NULL, &error));
      /* Taken one after the other: tokens increase. */
      CU_ASSERT_TRUE (token > last_token);
      last_token = token;
      CU_ASSERT_PTR_NOT_NULL_FATAL (node);
      CU_ASSERT_TRUE (g_str_has_prefix (node, leases_dir));
      CU_ASSERT_TRUE (is_curator_lease_name (node + strlen (leases_dir) + 1));
    }
  /* locks/ is Curator's mutex: free again once the leases are through. */
  CU_ASSERT_EQUAL (locks_count (a, path), 0);
  participants = zkr_semaphore_list_participants (sem_b, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL (participants->len, 3);
  for (guint i = 0; i < participants->len; i++)
    {
      ZkrParticipant *p = g_ptr_array_index (participants, i);
      CU_ASSERT_TRUE (p->is_holder);
      CU_ASSERT_EQUAL (p->session_id, zkr_session_get_id (a));
      CU_ASSERT_STRING_EQUAL (p->client_id, "zkr-integration-test");
    }

  /* Full: another client cannot get one. */
  other = zkr_semaphore_acquire (sem_b, 1, 0, NULL, &error);
  CU_ASSERT_PTR_NULL (other);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);

  /* One lease back, the others still held. */
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, 1), &error));
  CU_ASSERT_FALSE (zkr_lease_is_held (g_ptr_array_index (leases, 1)));
  CU_ASSERT_EQUAL (zkr_lease_get_fencing_token (g_ptr_array_index (leases, 1)), 0);
  CU_ASSERT_PTR_NULL (zkr_lease_dup_node_path (g_ptr_array_index (leases, 1)));
  CU_ASSERT_TRUE (zkr_lease_is_held (g_ptr_array_index (leases, 0)));
  CU_ASSERT_TRUE (zkr_lease_is_held (g_ptr_array_index (leases, 2)));
  CU_ASSERT_FALSE (zkr_lease_release (g_ptr_array_index (leases, 1), &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_lease_verify (g_ptr_array_index (leases, 1), NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  /* Two, through b at once: b's failed try above sent the delete of its
   * node before it answered, so b's sync (for a's release) goes behind it
   * (through a, the node may show for one more round trip). */
  CU_ASSERT_EQUAL (leases_count (b, path), 2);

  other = zkr_semaphore_acquire (sem_b, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  CU_ASSERT_TRUE (zkr_lease_get_fencing_token (g_ptr_array_index (other, 0)) > last_token);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (other, 0), &error));
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, 2), &error));
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, 0), &error));
  CU_ASSERT_EQUAL (leases_count (a, path), 0);
  CU_ASSERT_EQUAL (locks_count (a, path), 0);
  zkr_semaphore_unref (sem_a);
  zkr_semaphore_unref (sem_b);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* Dropping the array (or a handle) gives back what is still held. */
static void
test_semaphore__freeing_leases_releases_them_in_the_background (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("sem-free");
  g_autoptr (GError) error = NULL;
  GPtrArray *leases;
  ZkrSemaphore *semaphore;
  LeaseCount none;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  semaphore = semaphore_new (session, path, 2);
  leases = zkr_semaphore_acquire (semaphore, 2, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  zkr_semaphore_unref (semaphore);   /* leases outlive the object */
  CU_ASSERT_EQUAL (leases_count (session, path), 2);
  CU_ASSERT_TRUE (zkr_lease_is_held (g_ptr_array_index (leases, 0)));
  g_ptr_array_unref (leases);
  none = (LeaseCount) { session, path, 0 };
  CU_ASSERT_TRUE (itest_wait_for (leases_are, &none, WAIT_MS));
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* ---- shared count ------------------------------------------------------ */

static void
test_semaphore__max_follows_the_shared_count_node (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("sem-count");
  g_autofree char *path = NULL;
  g_autofree char *count_path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) first = NULL;
  g_autoptr (GPtrArray) second = NULL;
  ZkrSemaphore *sem_a, *sem_b;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  shared_count_pair (a, b, base, &path, &count_path, &sem_a, &sem_b);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (sem_a), 1);

  first = zkr_semaphore_acquire (sem_a, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  second = zkr_semaphore_acquire (sem_b, 1, 0, NULL, &error);
  CU_ASSERT_PTR_NULL (second);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);

  /* Curator's SharedCount.setCount(2): the next acquire sees it. */
  CU_ASSERT_EQUAL (set_count (a, count_path, 2), ZOK);
  second = zkr_semaphore_acquire (sem_b, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (second);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (sem_b), 2);
  CU_ASSERT_EQUAL (leases_count (a, path), 2);

  /* Down to 1: two held already, nobody else gets one (b reads the count
   * a wrote: its server may lag behind a's). */
  CU_ASSERT_EQUAL (set_count (a, count_path, 1), ZOK);
  zkr__op_sync_path_sync (b, count_path);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (second, 0), &error));
  g_clear_pointer (&second, g_ptr_array_unref);
  second = zkr_semaphore_acquire (sem_b, 1, 0, NULL, &error);
  CU_ASSERT_PTR_NULL (second);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (sem_b), 1);

  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (first, 0), &error));
  /* Counted through b: the deletes of b's failed try were sent before it
   * answered, so b's own (synced) reads come after them; a's session has
   * no such order with b's requests. */
  CU_ASSERT_EQUAL (leases_count (b, path), 0);
  CU_ASSERT_EQUAL (locks_count (b, path), 0);
  zkr_semaphore_unref (sem_a);
  zkr_semaphore_unref (sem_b);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* ---- cancel, async, loss ----------------------------------------------- */

typedef struct {
  ZkrSemaphore *semaphore;
  GCancellable *cancellable;
  guint count;
  GPtrArray *leases;
  GError *error;
} Waiter;

static gpointer
waiter_run (gpointer data)
{
  Waiter *waiter = data;

  waiter->leases = zkr_semaphore_acquire (waiter->semaphore, waiter->count, -1,
                                          waiter->cancellable, &waiter->error);
  return NULL;
}

/* A waiter blocked for a slot wakes when the shared count grows, without
 * anyone releasing (Curator's SharedCount listener does the same). */
static gpointer
bounded_waiter_run (gpointer data)
{
  Waiter *waiter = data;

  waiter->leases = zkr_semaphore_acquire (waiter->semaphore, waiter->count, 20000,
                                          waiter->cancellable, &waiter->error);
  return NULL;
}

static void
test_semaphore__a_waiter_wakes_when_the_shared_count_grows (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("sem-count-grows");
  g_autofree char *path = NULL;
  g_autofree char *count_path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) first = NULL;
  Waiter waiter = { 0 };
  g_autofree char *leases = NULL;
  ZkrSemaphore *sem_a;
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  shared_count_pair (a, b, base, &path, &count_path, &sem_a, &waiter.semaphore);
  waiter.count = 1;
  first = zkr_semaphore_acquire (sem_a, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);

  thread = g_thread_new ("waiter", bounded_waiter_run, &waiter);
  leases = child_path (path, "leases");
  CU_ASSERT_TRUE (itest_wait_for_children (a, leases, 2, 10000));
  CU_ASSERT_EQUAL (set_count (a, count_path, 2), ZOK);
  g_thread_join (thread);
  /* Without the count watch it would time out: A never releases first. */
  CU_ASSERT_PTR_NOT_NULL (waiter.leases);
  CU_ASSERT_PTR_NULL (waiter.error);
  CU_ASSERT_TRUE (zkr_lease_is_held (g_ptr_array_index (first, 0)));
  if (waiter.leases != NULL)
    {
      CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (waiter.leases, 0), &error));
      g_ptr_array_unref (waiter.leases);
    }
  g_clear_error (&waiter.error);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (first, 0), &error));
  /* Counted through b: the deletes of b's failed try were sent before it
   * answered, so b's own (synced) reads come after them; a's session has
   * no such order with b's requests. */
  CU_ASSERT_EQUAL (leases_count (b, path), 0);
  CU_ASSERT_EQUAL (locks_count (b, path), 0);
  zkr_semaphore_unref (sem_a);
  zkr_semaphore_unref (waiter.semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* The count node deleted (after it climbed to version 2), then created
 * again at version 0 with more leases while a waiter waits: the waiter's
 * count watch found no node, and must still see the new one. */
static void
test_semaphore__a_waiter_follows_the_count_node_created_again (void)
{
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("sem-count-recreated");
  g_autofree char *path = NULL;
  g_autofree char *count_path = NULL;
  g_autofree char *leases = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) first = NULL;
  Waiter waiter = { 0 };
  ZkrSemaphore *sem_a;
  GThread *thread;
  char bytes[5];

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  shared_count_pair (a, b, base, &path, &count_path, &sem_a, &waiter.semaphore);
  CU_ASSERT_EQUAL (set_count (a, count_path, 1), ZOK);
  CU_ASSERT_EQUAL (set_count (a, count_path, 1), ZOK);
  first = zkr_semaphore_acquire (sem_a, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (first);
  /* Gone before the waiter comes: its read finds no node (max stays 1). */
  CU_ASSERT_EQUAL (zkr__op_delete_sync (a, count_path, -1), ZOK);
  waiter.count = 1;
  thread = g_thread_new ("waiter", bounded_waiter_run, &waiter);
  leases = child_path (path, "leases");
  CU_ASSERT_TRUE (itest_wait_for_children (a, leases, 2, 10000));
  count_bytes (2, bytes);
  CU_ASSERT_EQUAL (zkr__op_test_create (a, count_path, bytes, 4, 0, NULL, NULL), ZOK);
  g_thread_join (thread);
  /* Without a watch for the node's return it would time out. */
  CU_ASSERT_PTR_NOT_NULL (waiter.leases);
  CU_ASSERT_PTR_NULL (waiter.error);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (waiter.semaphore), 2);
  if (waiter.leases != NULL)
    {
      CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (waiter.leases, 0), &error));
      g_ptr_array_unref (waiter.leases);
    }
  g_clear_error (&waiter.error);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (first, 0), &error));
  CU_ASSERT_EQUAL (leases_count (b, path), 0);
  CU_ASSERT_EQUAL (locks_count (b, path), 0);
  zkr_semaphore_unref (sem_a);
  zkr_semaphore_unref (waiter.semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (a, base));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* The count node deleted and created again (lower version, more leases)
 * while the semaphore's session was cut off and expired: the first
 * acquire after it counts with the new node. */
static void
test_semaphore__max_follows_the_count_node_created_again_while_expired (void)
{
  ItestProxied f;
  g_autofree char *path = NULL;
  g_autofree char *count_path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  ZkrSemaphore *semaphore;
  char bytes[5];
  guint from;

  itest_proxied_init (&f, NULL, "sem-count-recreated-lost", 4000);
  path = child_path (f.root, "sem");
  count_path = child_path (f.root, "count");
  count_bytes (1, bytes);
  CU_ASSERT_EQUAL_FATAL (zkr__op_test_create (f.direct, count_path, bytes, 4, 0, NULL, NULL),
                         ZOK);
  CU_ASSERT_EQUAL (set_count (f.direct, count_path, 1), ZOK);
  CU_ASSERT_EQUAL (set_count (f.direct, count_path, 1), ZOK);
  zkr__op_sync_path_sync (f.proxied, count_path);
  semaphore = zkr_semaphore_new_shared_count (f.proxied, path, count_path, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (semaphore), 1);
  from = itest_recorder_count (f.recorder);
  itest_proxied_black_hole (&f);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_LOST, from, 30000,
                                             NULL) >= 0);
  CU_ASSERT_EQUAL (zkr__op_delete_sync (f.direct, count_path, -1), ZOK);
  count_bytes (2, bytes);
  CU_ASSERT_EQUAL (zkr__op_test_create (f.direct, count_path, bytes, 4, 0, NULL, NULL), ZOK);
  zkr_test_proxy_heal (f.proxy);
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.proxied, 30000, NULL, NULL));
  leases = zkr_semaphore_acquire (semaphore, 2, 10000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL (leases);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr_semaphore_get_max_leases (semaphore), 2);
  for (guint i = 0; leases != NULL && i < leases->len; i++)
    CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, i), &error));
  zkr_semaphore_unref (semaphore);
  itest_proxied_finish (&f, FALSE);
}

static void
test_semaphore__cancel_wakes_a_blocked_waiter (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("sem-cancel");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) held = NULL;
  Waiter waiter = { 0 };
  ZkrSemaphore *semaphore;
  LeaseCount two;
  GThread *thread;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  semaphore = semaphore_new (session, path, 1);
  held = zkr_semaphore_acquire (semaphore, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (held);
  waiter.semaphore = semaphore;
  waiter.count = 1;
  waiter.cancellable = g_cancellable_new ();
  thread = g_thread_new ("waiter", waiter_run, &waiter);
  two = (LeaseCount) { session, path, 2 };
  CU_ASSERT_TRUE (itest_wait_for (leases_are, &two, WAIT_MS));
  g_cancellable_cancel (waiter.cancellable);
  g_thread_join (thread);
  CU_ASSERT_PTR_NULL (waiter.leases);
  CU_ASSERT_TRUE (g_error_matches (waiter.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&waiter.error);
  CU_ASSERT_EQUAL (leases_count (session, path), 1);
  CU_ASSERT_EQUAL (locks_count (session, path), 0);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (held, 0), &error));
  g_object_unref (waiter.cancellable);
  zkr_semaphore_unref (semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

typedef struct {
  GMainLoop *loop;
  ZkrSemaphore *semaphore;
  GPtrArray *leases;
  GThread *thread;
  GError *error;
} AsyncAcquire;

static void
async_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncAcquire *async = user_data;

  (void) source;
  async->thread = g_thread_self ();
  async->leases = zkr_semaphore_acquire_finish (async->semaphore, result, &async->error);
  g_main_loop_quit (async->loop);
}

static void
test_semaphore__async_acquire_calls_back_in_the_callers_context (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("sem-async");
  g_autoptr (GError) error = NULL;
  GMainContext *context = g_main_context_new ();
  AsyncAcquire async = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  g_main_context_push_thread_default (context);
  async.loop = g_main_loop_new (context, FALSE);
  async.semaphore = semaphore_new (session, path, 2);
  zkr_semaphore_acquire_async (async.semaphore, 2, 5000, NULL, async_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_PTR_EQUAL (async.thread, g_thread_self ());
  CU_ASSERT_PTR_NOT_NULL_FATAL (async.leases);
  CU_ASSERT_EQUAL (async.leases->len, 2);
  for (guint i = 0; i < async.leases->len; i++)
    CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (async.leases, i), &error));
  g_ptr_array_unref (async.leases);

  /* A bad count fails the same way: in the context, after the call. */
  async.thread = NULL;
  zkr_semaphore_acquire_async (async.semaphore, 0, 5000, NULL, async_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_PTR_NULL (async.leases);
  CU_ASSERT_TRUE (g_error_matches (async.error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&async.error);

  g_main_context_pop_thread_default (context);
  g_main_loop_unref (async.loop);
  g_main_context_unref (context);
  zkr_semaphore_unref (async.semaphore);
  CU_ASSERT_EQUAL (leases_count (session, path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* Expired from outside: each lease is lost (one LOST per lease), and a
 * waiter gets through. */
/* Two sessions on one semaphore path of at most @max leases: the holder's
 * semaphore, and a waiter (for @max leases) on the other session's. */
typedef struct {
  ZkrSession *holder_session;
  ZkrSession *waiter_session;
  char *path;
  ZkrSemaphore *semaphore;   /* the holder's */
  Waiter waiter;
} TwoSessions;

static void
two_sessions_start (TwoSessions *two, const char *name, int max)
{
  memset (two, 0, sizeof *two);
  two->holder_session = itest_connect (itest_hosts (), 10000);
  two->waiter_session = itest_connect (itest_hosts (), 10000);
  two->path = itest_scratch_path (name);
  CU_ASSERT_PTR_NOT_NULL_FATAL (two->holder_session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (two->waiter_session);
  two->semaphore = semaphore_new (two->holder_session, two->path, max);
  two->waiter.semaphore = semaphore_new (two->waiter_session, two->path, max);
  two->waiter.count = (guint) max;
}

/* Checks nothing is left and deletes the test's tree (through the waiter's
 * session: the holder's may have been expired). */
static void
two_sessions_finish (TwoSessions *two)
{
  CU_ASSERT_EQUAL (leases_count (two->waiter_session, two->path), 0);
  CU_ASSERT_EQUAL (locks_count (two->waiter_session, two->path), 0);
  g_clear_error (&two->waiter.error);
  zkr_semaphore_unref (two->semaphore);
  zkr_semaphore_unref (two->waiter.semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (two->waiter_session, two->path));
  g_free (two->path);
  zkr_session_unref (two->holder_session);
  zkr_session_unref (two->waiter_session);
}

/* Expired from outside: each lease is lost (one LOST per lease), and a
 * waiter gets through. */
static void
test_semaphore__expired_holder_loses_its_leases (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) held = NULL;
  ItestLossRecorder *recorder;
  TwoSessions two;
  GThread *thread;

  two_sessions_start (&two, "sem-expired", 2);
  recorder = itest_loss_recorder_new (two.semaphore, semaphore_add_loss);
  held = zkr_semaphore_acquire (two.semaphore, 2, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (held);
  thread = g_thread_new ("waiter", waiter_run, &two.waiter);
  CU_ASSERT_FATAL (itest_expire_session (two.holder_session));
  CU_ASSERT_TRUE (itest_loss_wait (recorder, ZKR_LOCK_LOST, 2, WAIT_MS) > 0);
  CU_ASSERT_FALSE (zkr_lease_is_held (g_ptr_array_index (held, 0)));
  CU_ASSERT_FALSE (zkr_lease_is_held (g_ptr_array_index (held, 1)));
  g_thread_join (thread);
  CU_ASSERT_PTR_NOT_NULL_FATAL (two.waiter.leases);
  CU_ASSERT_EQUAL (two.waiter.leases->len, 2);
  CU_ASSERT_FALSE (zkr_lease_release (g_ptr_array_index (held, 0), &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  for (guint i = 0; i < two.waiter.leases->len; i++)
    CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (two.waiter.leases, i), &error));
  g_ptr_array_unref (two.waiter.leases);
  CU_ASSERT_TRUE (itest_loss_right_source (recorder));
  itest_loss_recorder_free (recorder);
  two_sessions_finish (&two);
}

/* A server that sheds load answers "throttled" and keeps the connection:
 * no reconnect comes to make a waiter look again. The waiter's next three
 * answers after the holder gave its lease back are throttled; it looks
 * again after short pauses and gets the lease (bounded: 20 s). */
static void
test_semaphore__waiter_gets_a_lease_through_throttled_answers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) held = NULL;
  LeaseCount both;
  TwoSessions two;
  GThread *thread;

  two_sessions_start (&two, "sem-throttled", 1);
  held = zkr_semaphore_acquire (two.semaphore, 1, 5000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (held);
  thread = g_thread_new ("waiter", bounded_waiter_run, &two.waiter);
  /* Its lease node is there: it waits for ours to go. */
  both = (LeaseCount) { two.holder_session, two.path, 2 };
  CU_ASSERT_TRUE (itest_wait_for (leases_are, &both, WAIT_MS));
  /* Only the semaphore's own requests: a liveness ping must not take one. */
  zkr__session_test_rewrite_answers_under (two.waiter_session, two.path, ZTHROTTLEDOP, 3);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (held, 0), &error));
  g_thread_join (thread);
  CU_ASSERT_PTR_NULL (two.waiter.error);
  CU_ASSERT_PTR_NOT_NULL (two.waiter.leases);
  CU_ASSERT_EQUAL (zkr__session_test_count_rewritten (two.waiter_session), 3);
  if (two.waiter.leases != NULL)
    {
      CU_ASSERT_TRUE (zkr_lease_verify (g_ptr_array_index (two.waiter.leases, 0), NULL, &error));
      CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (two.waiter.leases, 0), &error));
      g_ptr_array_unref (two.waiter.leases);
    }
  two_sessions_finish (&two);
}

/* ---- bad input --------------------------------------------------------- */

static void
test_semaphore__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *closed = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("sem-bad");
  g_autofree char *path = NULL;
  g_autofree char *count_path = NULL;
  g_autoptr (GError) error = NULL;
  const char *bad[] = { "", "a", "/a/", "//", "/a/./b", "/", NULL };
  ZkrSemaphore *semaphore;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (closed);
  make_base (session, base);
  path = child_path (base, "sem");
  count_path = child_path (base, "count");

  CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, path, 0, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL (error != NULL ? strstr (error->message, "max leases 0") : NULL);
  g_clear_error (&error);
  for (guint i = 0; bad[i] != NULL; i++)
    {
      CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, bad[i], 1, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, path, bad[i], NULL, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
    }
  {
    /* Valid alone, too long once "/leases" is added. */
    g_autofree char *longest = g_strnfill (4096, 'x');
    longest[0] = '/';
    CU_ASSERT_PTR_NULL (zkr_semaphore_new (session, longest, 1, &error));
    CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    g_clear_error (&error);
  }
  zkr_test_expect_criticals_begin ();
  CU_ASSERT_PTR_NULL (zkr_semaphore_new (NULL, path, 1, &error));
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);

  /* The count node: missing, then of the wrong size. */
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, path, count_path, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (zkr__op_test_create (session, count_path, "3", 1, 0, NULL, NULL), ZOK);
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (session, path, count_path, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);

  /* Counts: zero, or more than the max. */
  semaphore = semaphore_new (session, path, 2);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 0, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 3, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  zkr_semaphore_unref (semaphore);

  /* A semaphore whose session was closed. */
  semaphore = semaphore_new (closed, path, 2);
  zkr_session_close (closed);
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 1, 1000, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_semaphore_new_shared_count (closed, path, count_path, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_SESSION_CLOSED));
  g_clear_error (&error);
  zkr_semaphore_unref (semaphore);
  CU_ASSERT_EQUAL (leases_count (session, path), 0);
  CU_ASSERT_EQUAL (locks_count (session, path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (session, base));
  zkr_session_unref (session);
  zkr_session_unref (closed);
}

/* ---- release_async ------------------------------------------------------ */

static void
lease_release_start (gpointer lease, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  zkr_lease_release_async (lease, cancellable, callback, user_data);
}

static gboolean
lease_release_finish (gpointer lease, GAsyncResult *result, GError **error)
{
  return zkr_lease_release_finish (lease, result, error);
}

static gboolean
lease_is_held (gpointer lease)
{
  return zkr_lease_is_held (lease);
}

static gboolean
lease_is_release_pending (gpointer lease)
{
  return zkr_lease_is_release_pending (lease);
}

static const ItestRelease lease_release = {
  lease_release_start, lease_release_finish, lease_is_held, lease_is_release_pending
};

/* With one lease of one taken, a lease's release_async answers TRUE once
 * its node is gone: another session gets the lease with a single try. A
 * second one answers NOT_HELD; a cancelled one answers CANCELLED, and that
 * lease is given up and its node goes all the same. */
static void
test_semaphore__lease_release_async_deletes_refuses_and_answers_a_cancel (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("semaphore-release-async");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  g_autoptr (GPtrArray) others = NULL;
  ZkrSemaphore *semaphore, *other;
  ZkrLease *lease;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  semaphore = semaphore_new (session, path, 1);
  other = semaphore_new (other_session, path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);
  leases = zkr_semaphore_acquire (semaphore, 1, WAIT_MS, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  lease = g_ptr_array_index (leases, 0);
  itest_assert_release_async_releases (lease, &lease_release);
  CU_ASSERT_EQUAL (leases_count (other_session, path), 0);
  others = zkr_semaphore_acquire (other, 1, 0, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (others);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (others, 0), &error));
  itest_assert_release_async_not_held (lease, &lease_release, NULL);
  g_clear_pointer (&leases, g_ptr_array_unref);

  leases = zkr_semaphore_acquire (semaphore, 1, WAIT_MS, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  lease = g_ptr_array_index (leases, 0);
  itest_assert_release_async_cancelled (lease, &lease_release);
  CU_ASSERT_EQUAL (leases_count (other_session, path), 0);
  g_clear_pointer (&leases, g_ptr_array_unref);
  zkr_semaphore_unref (other);
  zkr_semaphore_unref (semaphore);
  itest_assert_path_clean (session, path);
  zkr_session_unref (other_session);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_semaphore__never_more_than_max_holders_among_ten_sessions),
  ZKR_TEST_CASE (test_semaphore__several_leases_are_all_or_nothing_under_one_deadline),
  ZKR_TEST_CASE (test_semaphore__leases_are_released_one_by_one_in_curators_layout),
  ZKR_TEST_CASE (test_semaphore__freeing_leases_releases_them_in_the_background),
  ZKR_TEST_CASE (test_semaphore__max_follows_the_shared_count_node),
  ZKR_TEST_CASE (test_semaphore__a_waiter_wakes_when_the_shared_count_grows),
  ZKR_TEST_CASE (test_semaphore__a_waiter_follows_the_count_node_created_again),
  ZKR_TEST_CASE (test_semaphore__max_follows_the_count_node_created_again_while_expired),
  ZKR_TEST_CASE (test_semaphore__cancel_wakes_a_blocked_waiter),
  ZKR_TEST_CASE (test_semaphore__async_acquire_calls_back_in_the_callers_context),
  ZKR_TEST_CASE (test_semaphore__expired_holder_loses_its_leases),
  ZKR_TEST_CASE (test_semaphore__waiter_gets_a_lease_through_throttled_answers),
  ZKR_TEST_CASE (test_semaphore__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_semaphore__lease_release_async_deletes_refuses_and_answers_a_cancel),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "semaphore", NULL, NULL, tests);
}
