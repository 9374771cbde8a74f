/* zkr integration: the read-write lock against the real ensemble: shared
 * readers, exclusive writers, writer preference, the CURATOR-621 downgrade,
 * refused upgrade, per-thread reentrancy, tokens, timeouts, cancel, async
 * and loss. Every test removes its nodes and checks that none is left. */

#include <string.h>

#include <CUnit/CUnit.h>

#include "itest.h"
#include "nodename.h"
#include "zkr-test.h"

#define WAIT_MS 30000

/* ---- helpers ---------------------------------------------------------- */

static ZkrRwlock *
rwlock_new (ZkrSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  ZkrRwlock *rwlock = zkr_rwlock_new (session, path, &error);

  CU_ASSERT_PTR_NOT_NULL (rwlock);
  return rwlock;
}

typedef struct {
  const char *path;
  ZkrSession *session;
  guint count;
} ChildCount;

static gboolean
children_are (gpointer data)
{
  ChildCount *expect = data;

  return itest_count_children (expect->session, expect->path) == expect->count;
}

static gboolean
wait_children (ZkrSession *session, const char *path, guint count)
{
  ChildCount expect = { path, session, count };

  return itest_wait_for (children_are, &expect, WAIT_MS);
}

/* An acquire on a thread of its own, blocking; the outcome under lock. */
typedef struct {
  ZkrRwlock *rwlock;
  gboolean write;
  int timeout_ms;
  GCancellable *cancellable;
  GMutex lock;
  GCond cond;
  gboolean done;
  gboolean ok;
  gint64 token;
  GError *error;
  GThread *thread;
  /* Released by the test through the same thread. */
  gboolean release;
  gboolean released;
} Acquirer;

static gpointer
acquirer_run (gpointer data)
{
  Acquirer *acq = data;
  GError *error = NULL;
  gboolean ok;
  gint64 token;

  ok = acq->write ? zkr_rwlock_acquire_write (acq->rwlock, acq->timeout_ms, acq->cancellable, &error)
                  : zkr_rwlock_acquire_read (acq->rwlock, acq->timeout_ms, acq->cancellable, &error);
  token = acq->write ? zkr_rwlock_get_write_token (acq->rwlock)
                     : zkr_rwlock_get_read_token (acq->rwlock);
  g_mutex_lock (&acq->lock);
  acq->ok = ok;
  acq->token = token;
  acq->error = error;
  acq->done = TRUE;
  g_cond_broadcast (&acq->cond);
  /* A holder keeps its hold until told to release it (holds are per
   * thread, so this thread must release). */
  while (ok && !acq->release)
    g_cond_wait (&acq->cond, &acq->lock);
  g_mutex_unlock (&acq->lock);
  if (ok)
    {
      gboolean released = acq->write ? zkr_rwlock_release_write (acq->rwlock, NULL)
                                     : zkr_rwlock_release_read (acq->rwlock, NULL);
      g_mutex_lock (&acq->lock);
      acq->released = released;
      g_mutex_unlock (&acq->lock);
    }
  return NULL;
}

static Acquirer *
acquirer_start (ZkrRwlock *rwlock, gboolean write, int timeout_ms, GCancellable *cancellable)
{
  Acquirer *acq = g_new0 (Acquirer, 1);

  acq->rwlock = zkr_rwlock_ref (rwlock);
  acq->write = write;
  acq->timeout_ms = timeout_ms;
  acq->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  g_mutex_init (&acq->lock);
  g_cond_init (&acq->cond);
  acq->thread = g_thread_new (write ? "writer" : "reader", acquirer_run, acq);
  return acq;
}

/* Waits for the acquire's outcome; returns whether it holds. */
static gboolean
acquirer_wait (Acquirer *acq)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  gboolean ok;

  g_mutex_lock (&acq->lock);
  while (!acq->done && g_cond_wait_until (&acq->cond, &acq->lock, deadline))
    ;
  CU_ASSERT_TRUE (acq->done);
  ok = acq->done && acq->ok;
  g_mutex_unlock (&acq->lock);
  return ok;
}

static gboolean
acquirer_is_done (Acquirer *acq)
{
  gboolean done;

  g_mutex_lock (&acq->lock);
  done = acq->done;
  g_mutex_unlock (&acq->lock);
  return done;
}

/* Tells a holder to release, joins it, frees. Returns whether the release
 * succeeded (TRUE when it never held). */
static gboolean
acquirer_finish (Acquirer *acq)
{
  gboolean ok;

  g_mutex_lock (&acq->lock);
  acq->release = TRUE;
  g_cond_broadcast (&acq->cond);
  g_mutex_unlock (&acq->lock);
  g_thread_join (acq->thread);
  ok = !acq->ok || acq->released;
  g_clear_error (&acq->error);
  g_clear_object (&acq->cancellable);
  zkr_rwlock_unref (acq->rwlock);
  g_mutex_clear (&acq->lock);
  g_cond_clear (&acq->cond);
  g_free (acq);
  return ok;
}

/* The child names of @path, sorted the rwlock way. */
static GPtrArray *
sorted_children (ZkrSession *session, const char *path)
{
  GPtrArray *children = NULL;

  if (zkr__op_test_get_children (session, path, &children) != ZOK)
    return g_ptr_array_new_with_free_func (g_free);
  zkr__nodename_sort_rwlock (children);
  return children;
}

/* ---- tests ------------------------------------------------------------ */

static void
test_rwlock__bad_input_gets_clear_errors (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autoptr (GError) error = NULL;
  const char *bad[] = { "", "a", "/a/", "//", "/a/./b", "/", NULL };
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (guint i = 0; bad[i] != NULL; i++)
    {
      CU_ASSERT_PTR_NULL (zkr_rwlock_new (session, bad[i], &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
      g_clear_error (&error);
    }
  zkr_test_expect_criticals_begin ();
  CU_ASSERT_PTR_NULL (zkr_rwlock_new (NULL, "/x", &error));
  CU_ASSERT_EQUAL (zkr_test_expect_criticals_end (), 1);
  rwlock = rwlock_new (session, "/zkr-it/rwlock-never-used");
  CU_ASSERT_FALSE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_verify (rwlock, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_node_absent (session, "/zkr-it/rwlock-never-used"));
  zkr_session_unref (session);
}

#define READERS 5

static void
test_rwlock__many_readers_hold_at_once (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-readers");
  g_autoptr (GPtrArray) participants = NULL;
  g_autoptr (GError) error = NULL;
  ZkrSession *sessions[READERS];
  ZkrRwlock *locks[READERS];

  for (int i = 0; i < READERS; i++)
    {
      sessions[i] = itest_connect (itest_hosts (), 10000);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sessions[i]);
      locks[i] = rwlock_new (sessions[i], path);
      /* Try once: a reader behind readers only is through at once. */
      CU_ASSERT_TRUE (zkr_rwlock_acquire_read (locks[i], 0, NULL, &error));
      CU_ASSERT_TRUE (zkr_rwlock_is_read_held (locks[i]));
      CU_ASSERT_FALSE (zkr_rwlock_is_write_held (locks[i]));
      CU_ASSERT_TRUE (zkr_rwlock_get_read_token (locks[i]) > 0);
    }
  CU_ASSERT_EQUAL (itest_count_children (sessions[0], path), READERS);
  participants = zkr_rwlock_list_participants (locks[0], NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL (participants->len, READERS);
  for (guint i = 0; i < participants->len; i++)
    {
      ZkrParticipant *p = g_ptr_array_index (participants, i);

      CU_ASSERT_TRUE (p->is_holder);
      CU_ASSERT_PTR_NOT_NULL (strstr (p->node, "-__READ__"));
      CU_ASSERT_STRING_EQUAL (p->client_id, "zkr-integration-test");
    }
  for (int i = 0; i < READERS; i++)
    {
      CU_ASSERT_TRUE (zkr_rwlock_verify (locks[i], NULL, &error));
      CU_ASSERT_TRUE (zkr_rwlock_release_read (locks[i], &error));
      CU_ASSERT_FALSE (zkr_rwlock_is_read_held (locks[i]));
      zkr_rwlock_unref (locks[i]);
    }
  CU_ASSERT_EQUAL (itest_count_children (sessions[0], path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (sessions[0], path));
  for (int i = 0; i < READERS; i++)
    zkr_session_unref (sessions[i]);
}

/* A writer waits while a reader holds; readers wait while a writer holds;
 * each gets in when the other leaves. */
static void
test_rwlock__writer_excludes_readers_and_readers_exclude_writers (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-exclude");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrSession *c = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *reader, *writer, *late_reader;
  Acquirer *w, *r;
  gint64 read_token;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  reader = rwlock_new (a, path);
  writer = rwlock_new (b, path);
  late_reader = rwlock_new (c, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (reader, 5000, NULL, &error));
  read_token = zkr_rwlock_get_read_token (reader);

  /* A writer cannot get in while a reader holds. */
  CU_ASSERT_FALSE (zkr_rwlock_acquire_write (writer, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  w = acquirer_start (writer, TRUE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 2));
  CU_ASSERT_FALSE (acquirer_is_done (w));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (reader, &error));
  CU_ASSERT_TRUE (acquirer_wait (w));
  CU_ASSERT_TRUE (w->token > read_token);

  /* Readers cannot get in while the writer holds. */
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (late_reader, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (reader, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  r = acquirer_start (late_reader, FALSE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 2));
  CU_ASSERT_FALSE (acquirer_is_done (r));
  {
    g_autoptr (GPtrArray) participants = zkr_rwlock_list_participants (reader, NULL, &error);

    CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
    CU_ASSERT_EQUAL (participants->len, 2);
    if (participants->len == 2)
      {
        ZkrParticipant *first = g_ptr_array_index (participants, 0);
        ZkrParticipant *second = g_ptr_array_index (participants, 1);

        CU_ASSERT_TRUE (first->is_holder);
        CU_ASSERT_PTR_NOT_NULL (strstr (first->node, "-__WRIT__"));
        CU_ASSERT_EQUAL (first->session_id, zkr_session_get_id (b));
        CU_ASSERT_EQUAL (first->token, w->token);
        CU_ASSERT_FALSE (second->is_holder);
      }
  }
  CU_ASSERT_TRUE (acquirer_finish (w));
  CU_ASSERT_TRUE (acquirer_wait (r));
  CU_ASSERT_TRUE (acquirer_finish (r));

  CU_ASSERT_TRUE (wait_children (a, path, 0));
  zkr_rwlock_unref (reader);
  zkr_rwlock_unref (writer);
  zkr_rwlock_unref (late_reader);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
  zkr_session_unref (c);
}

/* Writer preference: a reader that comes after a waiting writer waits,
 * though only readers hold; it is let in after that writer is done. */
static void
test_rwlock__reader_behind_a_waiting_writer_waits (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-fair");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrSession *c = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *first_reader, *writer, *late_reader;
  gint64 write_token;
  Acquirer *w, *r;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  first_reader = rwlock_new (a, path);
  writer = rwlock_new (b, path);
  late_reader = rwlock_new (c, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (first_reader, 5000, NULL, &error));
  w = acquirer_start (writer, TRUE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 2));

  /* Only a reader holds, yet the late reader is refused... */
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (late_reader, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (c, path), 2);
  /* ...and queues behind the writer. */
  r = acquirer_start (late_reader, FALSE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 3));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (first_reader, &error));
  CU_ASSERT_TRUE (acquirer_wait (w));
  /* The writer holds: the late reader is still out (it watches the
   * writer's node, which has not changed). */
  CU_ASSERT_FALSE (acquirer_is_done (r));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 2);
  write_token = w->token;
  CU_ASSERT_TRUE (acquirer_finish (w));
  CU_ASSERT_TRUE (acquirer_wait (r));
  CU_ASSERT_TRUE (r->token > write_token);
  CU_ASSERT_TRUE (acquirer_finish (r));

  CU_ASSERT_TRUE (wait_children (a, path, 0));
  zkr_rwlock_unref (first_reader);
  zkr_rwlock_unref (writer);
  zkr_rwlock_unref (late_reader);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
  zkr_session_unref (c);
}

/* CURATOR-621 (and CURATOR-276): A holds write, B queues for write, A takes
 * the read lock (downgrade) and releases write: B must still be out while
 * A holds read; once A releases read, B gets write. */
static void
test_rwlock__downgrade_keeps_a_queued_writer_out (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-downgrade");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  g_autofree char *write_node = NULL;
  g_autofree char *read_node = NULL;
  g_autofree char *expected_name = NULL;
  g_autoptr (GPtrArray) children = NULL;
  ZkrRwlock *holder, *other;
  gint64 write_token, read_token;
  struct Stat stat;
  Acquirer *w;
  ItestWatchOn on;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  holder = rwlock_new (a, path);
  other = rwlock_new (b, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (holder, 5000, NULL, &error));
  write_token = zkr_rwlock_get_write_token (holder);
  write_node = zkr_rwlock_dup_write_node_path (holder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (write_node);
  w = acquirer_start (other, TRUE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 2));

  /* The downgrade: granted at once, the read node named after the write
   * node's sequence, a plain ephemeral of our session. */
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (holder, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_is_read_held (holder));
  CU_ASSERT_TRUE (zkr_rwlock_is_write_held (holder));
  read_node = zkr_rwlock_dup_read_node_path (holder);
  CU_ASSERT_PTR_NOT_NULL_FATAL (read_node);
  expected_name = g_strconcat ("-__READ__", zkr__nodename_rwlock_sort_key (write_node), NULL);
  CU_ASSERT_TRUE (g_str_has_suffix (read_node, expected_name));
  CU_ASSERT_TRUE (zkr__nodename_is_protected (strrchr (read_node, '/') + 1));
  CU_ASSERT_EQUAL (strlen (strrchr (read_node, '/')), strlen (strrchr (write_node, '/')));
  CU_ASSERT_EQUAL (zkr__op_test_exists (a, read_node, &stat), ZOK);
  CU_ASSERT_EQUAL (stat.ephemeralOwner, zkr_session_get_id (a));
  /* The read hold is in the write hold's place, with its token. */
  read_token = zkr_rwlock_get_read_token (holder);
  CU_ASSERT_EQUAL (read_token, write_token);
  CU_ASSERT_TRUE (stat.czxid > write_token);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 3);

  /* Release write: the read node keeps B out. Wait until B watches it
   * (B re-lists if it was watching the write node), then check. */
  CU_ASSERT_TRUE (zkr_rwlock_release_write (holder, &error));
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (holder));
  CU_ASSERT_TRUE (zkr_rwlock_is_read_held (holder));
  CU_ASSERT_TRUE (itest_node_absent (a, write_node));
  on.node_path = read_node;
  on.session_id = zkr_session_get_id (b);
  CU_ASSERT_TRUE (itest_wait_for (itest_watch_is_set, &on, WAIT_MS));
  CU_ASSERT_FALSE (acquirer_is_done (w));
  children = sorted_children (a, path);
  CU_ASSERT_EQUAL (children->len, 2);
  if (children->len == 2)
    CU_ASSERT_STRING_EQUAL (g_ptr_array_index (children, 0), strrchr (read_node, '/') + 1);
  CU_ASSERT_TRUE (zkr_rwlock_verify (holder, NULL, &error));
  /* Upgrading back is refused. */
  CU_ASSERT_FALSE (zkr_rwlock_acquire_write (holder, 0, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (acquirer_is_done (w));

  CU_ASSERT_EQUAL (zkr_rwlock_get_read_token (holder), write_token);
  /* Release read: B gets write, with a token above A's. */
  CU_ASSERT_TRUE (zkr_rwlock_release_read (holder, &error));
  CU_ASSERT_TRUE (acquirer_wait (w));
  CU_ASSERT_TRUE (w->token > read_token);
  CU_ASSERT_TRUE (acquirer_finish (w));

  CU_ASSERT_TRUE (wait_children (a, path, 0));
  zkr_rwlock_unref (holder);
  zkr_rwlock_unref (other);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* The downgrade in the other order of releases: read first, then write. */
static void
test_rwlock__downgrade_then_release_read_first (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-downgrade-order");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  rwlock = rwlock_new (a, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 2);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  /* And again, still holding write: a fresh downgrade node. */
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* A reader asking for the write lock would wait on itself forever: refused
 * at once, nothing sent. */
static void
test_rwlock__upgrade_is_refused (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-upgrade");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  rwlock = rwlock_new (a, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  CU_ASSERT_FALSE (zkr_rwlock_acquire_write (rwlock, -1, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_TRUE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  /* Without the read lock, the write lock is fine. */
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* Re-acquires by the holding thread count without a request; the node
 * goes at the last release. */
static void
test_rwlock__reentrant_counts_without_new_nodes (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-reentrant");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *rwlock;
  gint64 token;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  rwlock = rwlock_new (a, path);
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  token = zkr_rwlock_get_read_token (rwlock);
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, -1, NULL, &error));
  CU_ASSERT_EQUAL (zkr_rwlock_get_read_hold_count (rwlock), 3);
  CU_ASSERT_EQUAL (zkr_rwlock_get_read_token (rwlock), token);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_EQUAL (zkr_rwlock_get_read_token (rwlock), 0);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  CU_ASSERT_FALSE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);

  /* Write twice, read twice (one downgrade node), all released. */
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (rwlock, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 0, NULL, &error));
  CU_ASSERT_EQUAL (zkr_rwlock_get_write_hold_count (rwlock), 2);
  CU_ASSERT_EQUAL (zkr_rwlock_get_read_hold_count (rwlock), 2);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 2);
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_FALSE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* Two threads sharing one object queue separately, as two processes. */
static void
test_rwlock__threads_of_one_object_exclude_each_other (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-threads");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *rwlock;
  Acquirer *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  rwlock = rwlock_new (a, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  /* Another thread of the same object: no reentry for it. */
  other = acquirer_start (rwlock, FALSE, 0, NULL);
  CU_ASSERT_FALSE (acquirer_wait (other));
  CU_ASSERT_TRUE (g_error_matches (other->error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  CU_ASSERT_TRUE (acquirer_finish (other));
  other = acquirer_start (rwlock, TRUE, 0, NULL);
  CU_ASSERT_FALSE (acquirer_wait (other));
  CU_ASSERT_TRUE (g_error_matches (other->error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  CU_ASSERT_TRUE (acquirer_finish (other));
  /* The waiting thread gets in when this one leaves. */
  other = acquirer_start (rwlock, TRUE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (a, path, 2));
  CU_ASSERT_FALSE (acquirer_is_done (other));
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (acquirer_wait (other));
  /* Its hold is its own: this thread holds nothing. */
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_FALSE (zkr_rwlock_release_write (rwlock, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (acquirer_finish (other));
  /* Two threads read at once. */
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  other = acquirer_start (rwlock, FALSE, 0, NULL);
  CU_ASSERT_TRUE (acquirer_wait (other));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 2);
  CU_ASSERT_TRUE (acquirer_finish (other));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* Every acquisition's token is above the previous holder's. */
static void
test_rwlock__tokens_increase (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-tokens");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *first, *second;
  gint64 last = 0;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  first = rwlock_new (a, path);
  second = rwlock_new (b, path);
  for (int i = 0; i < 4; i++)
    {
      ZkrRwlock *rwlock = i % 2 == 0 ? first : second;
      gboolean write = i % 3 != 1;
      gint64 token;

      CU_ASSERT_TRUE (write ? zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error)
                            : zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
      token = write ? zkr_rwlock_get_write_token (rwlock) : zkr_rwlock_get_read_token (rwlock);
      CU_ASSERT_TRUE (token > last);
      last = token;
      CU_ASSERT_TRUE (write ? zkr_rwlock_release_write (rwlock, &error)
                            : zkr_rwlock_release_read (rwlock, &error));
      CU_ASSERT_EQUAL (write ? zkr_rwlock_get_write_token (rwlock)
                             : zkr_rwlock_get_read_token (rwlock), 0);
    }
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (first);
  zkr_rwlock_unref (second);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

static void
test_rwlock__try_lock_and_timeouts_leave_no_node (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-try");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *holder, *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  holder = rwlock_new (a, path);
  other = rwlock_new (b, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (holder, 5000, NULL, &error));
  for (int i = 0; i < 4; i++)
    {
      gboolean write = i % 2 == 1;
      int timeout_ms = i < 2 ? 0 : 300;

      CU_ASSERT_FALSE (write ? zkr_rwlock_acquire_write (other, timeout_ms, NULL, &error)
                             : zkr_rwlock_acquire_read (other, timeout_ms, NULL, &error));
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
      g_clear_error (&error);
      CU_ASSERT_EQUAL (itest_count_children (b, path), 1);
      CU_ASSERT_FALSE (zkr_rwlock_is_read_held (other));
      CU_ASSERT_FALSE (zkr_rwlock_is_write_held (other));
    }
  CU_ASSERT_TRUE (zkr_rwlock_release_write (holder, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (other, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (holder);
  zkr_rwlock_unref (other);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

static void
test_rwlock__cancel_wakes_a_blocked_reader (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-cancel");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  GCancellable *cancellable = g_cancellable_new ();
  ZkrRwlock *holder, *waiter;
  Acquirer *r;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  holder = rwlock_new (a, path);
  waiter = rwlock_new (a, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (holder, 5000, NULL, &error));
  r = acquirer_start (waiter, FALSE, -1, cancellable);
  CU_ASSERT_TRUE (wait_children (a, path, 2));
  g_cancellable_cancel (cancellable);
  CU_ASSERT_FALSE (acquirer_wait (r));
  CU_ASSERT_TRUE (g_error_matches (r->error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  /* The delete is sent before the cancel is reported: a listing from the
   * same session sees it done. */
  CU_ASSERT_EQUAL (itest_count_children (a, path), 1);
  CU_ASSERT_TRUE (acquirer_finish (r));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (holder, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  zkr_rwlock_unref (holder);
  zkr_rwlock_unref (waiter);
  g_object_unref (cancellable);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

typedef struct {
  GMainLoop *loop;
  ZkrRwlock *rwlock;
  gboolean ok;
  GThread *thread;
  GError *error;
} AsyncAcquire;

static void
async_read_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncAcquire *async = user_data;

  (void) source;
  async->thread = g_thread_self ();
  async->ok = zkr_rwlock_acquire_read_finish (async->rwlock, result, &async->error);
  g_main_loop_quit (async->loop);
}

static void
async_write_acquired (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncAcquire *async = user_data;

  (void) source;
  async->thread = g_thread_self ();
  async->ok = zkr_rwlock_acquire_write_finish (async->rwlock, result, &async->error);
  g_main_loop_quit (async->loop);
}

/* Both async acquires call back once, in the caller's context, after the
 * call returned; the refused upgrade too. */
static void
test_rwlock__async_acquire_calls_back_in_the_callers_context (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-async");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  GMainContext *context = g_main_context_new ();
  AsyncAcquire async = { 0 };

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  g_main_context_push_thread_default (context);
  async.loop = g_main_loop_new (context, FALSE);
  async.rwlock = rwlock_new (a, path);

  zkr_rwlock_acquire_write_async (async.rwlock, 5000, NULL, async_write_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_TRUE (async.ok);
  CU_ASSERT_PTR_EQUAL (async.thread, g_thread_self ());
  CU_ASSERT_TRUE (zkr_rwlock_is_write_held (async.rwlock));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (async.rwlock, &error));

  async.thread = NULL;
  zkr_rwlock_acquire_read_async (async.rwlock, 5000, NULL, async_read_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_TRUE (async.ok);
  CU_ASSERT_PTR_EQUAL (async.thread, g_thread_self ());
  CU_ASSERT_TRUE (zkr_rwlock_is_read_held (async.rwlock));

  async.thread = NULL;
  zkr_rwlock_acquire_write_async (async.rwlock, 5000, NULL, async_write_acquired, &async);
  CU_ASSERT_PTR_NULL (async.thread);
  g_main_loop_run (async.loop);
  CU_ASSERT_FALSE (async.ok);
  CU_ASSERT_TRUE (g_error_matches (async.error, ZKR_ERROR, ZKR_ERROR_ALREADY_HELD));
  g_clear_error (&async.error);
  CU_ASSERT_TRUE (zkr_rwlock_release_read (async.rwlock, &error));

  g_main_context_pop_thread_default (context);
  g_main_loop_unref (async.loop);
  g_main_context_unref (context);
  zkr_rwlock_unref (async.rwlock);
  CU_ASSERT_EQUAL (itest_count_children (a, path), 0);
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* ---- loss ----------------------------------------------------------- */

static void
rwlock_add_loss (gpointer lock, ZkrLockLossFunc func, gpointer user_data)
{
  zkr_rwlock_add_loss_listener (lock, func, user_data, NULL);
}

/* Expired from outside while holding write and (downgraded) read: both
 * sides are lost and reported, nothing is held any more, a waiting writer
 * gets in, and the object works again on the fresh session. */
static void
test_rwlock__expired_holder_loses_both_sides (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-expired");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrSession *b = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *holder, *other;
  ItestLossRecorder *recorder;
  Acquirer *w;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  holder = rwlock_new (a, path);
  other = rwlock_new (b, path);
  recorder = itest_loss_recorder_new (holder, rwlock_add_loss);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (holder, 5000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (holder, 5000, NULL, &error));
  w = acquirer_start (other, TRUE, -1, NULL);
  CU_ASSERT_TRUE (wait_children (b, path, 3));
  CU_ASSERT_FATAL (itest_expire_session (a));
  CU_ASSERT_TRUE (itest_loss_wait (recorder, ZKR_LOCK_LOST, 2, WAIT_MS) > 0);
  CU_ASSERT_EQUAL (itest_loss_count (recorder, ZKR_LOCK_LOST), 2);
  CU_ASSERT_TRUE (itest_loss_right_source (recorder));
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (holder));
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (holder));
  CU_ASSERT_FALSE (zkr_rwlock_verify (holder, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_release_read (holder, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NOT_HELD));
  g_clear_error (&error);
  CU_ASSERT_TRUE (acquirer_wait (w));
  CU_ASSERT_TRUE (acquirer_finish (w));
  /* A fresh start on the new session. */
  CU_ASSERT_TRUE (zkr_session_wait_connected (a, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (holder, 5000, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (holder, &error));
  CU_ASSERT_TRUE (wait_children (b, path, 0));
  itest_loss_recorder_free (recorder);
  zkr_rwlock_unref (holder);
  zkr_rwlock_unref (other);
  CU_ASSERT_TRUE (itest_delete_tree (b, path));
  zkr_session_unref (a);
  zkr_session_unref (b);
}

/* The last unref while holding gives the holds up in the background. */
static void
test_rwlock__unref_while_holding_releases (void)
{
  g_autofree char *path = itest_scratch_path ("rwlock-unref");
  g_autoptr (GError) error = NULL;
  ZkrSession *a = itest_connect (itest_hosts (), 10000);
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (a);
  rwlock = rwlock_new (a, path);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, 5000, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, 5000, NULL, &error));
  CU_ASSERT_EQUAL (itest_count_children (a, path), 2);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (wait_children (a, path, 0));
  CU_ASSERT_TRUE (itest_delete_tree (a, path));
  zkr_session_unref (a);
}

/* ---- release_async ------------------------------------------------------ */

static void
read_release_start (gpointer rwlock, GCancellable *cancellable, GAsyncReadyCallback callback,
                    gpointer user_data)
{
  zkr_rwlock_release_read_async (rwlock, cancellable, callback, user_data);
}

static gboolean
read_release_finish (gpointer rwlock, GAsyncResult *result, GError **error)
{
  return zkr_rwlock_release_read_finish (rwlock, result, error);
}

static void
write_release_start (gpointer rwlock, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  zkr_rwlock_release_write_async (rwlock, cancellable, callback, user_data);
}

static gboolean
write_release_finish (gpointer rwlock, GAsyncResult *result, GError **error)
{
  return zkr_rwlock_release_write_finish (rwlock, result, error);
}

static gboolean
rwlock_release_settled (gpointer rwlock)
{
  return !zkr_rwlock_is_release_pending (rwlock);
}

/* Each side's release_async counts down first, then at zero answers TRUE
 * once its node is gone: a writer of another session gets in with a
 * single try. Not held, each answers NOT_HELD. */
static void
test_rwlock__release_async_of_each_side_deletes_its_node (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  ZkrSession *other_session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("rwlock-release-async");
  g_autoptr (GError) error = NULL;
  ZkrRwlock *rwlock, *other;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other_session);
  rwlock = rwlock_new (session, path);
  other = rwlock_new (other_session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  CU_ASSERT_PTR_NOT_NULL_FATAL (other);

  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_async_call (rwlock, write_release_start, write_release_finish, NULL,
                                    &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 0);
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (other, &error));

  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, WAIT_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_async_call (rwlock, read_release_start, read_release_finish, NULL,
                                    &error));
  CU_ASSERT_EQUAL (zkr_rwlock_get_read_hold_count (rwlock), 1);
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 1);
  CU_ASSERT_TRUE (itest_async_call (rwlock, read_release_start, read_release_finish, NULL,
                                    &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_FALSE (zkr_rwlock_is_release_pending (rwlock));
  CU_ASSERT_EQUAL (itest_count_children (other_session, path), 0);
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (other, 0, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (other, &error));

  CU_ASSERT_FALSE (itest_async_call (rwlock, read_release_start, read_release_finish, NULL,
                                     &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_HELD);
  g_clear_error (&error);
  CU_ASSERT_FALSE (itest_async_call (rwlock, write_release_start, write_release_finish, NULL,
                                     &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NOT_HELD);
  zkr_rwlock_unref (other);
  zkr_rwlock_unref (rwlock);
  itest_assert_path_clean (session, path);
  zkr_session_unref (other_session);
  zkr_session_unref (session);
}

/* A cancelled release_async of either side answers CANCELLED; the side is
 * no longer held and its node goes in the background. */
static void
test_rwlock__a_cancelled_release_async_answers_cancelled_and_the_node_goes (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("rwlock-release-cancelled");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  ZkrRwlock *rwlock;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  rwlock = rwlock_new (session, path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);
  g_cancellable_cancel (cancellable);
  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_write (rwlock, WAIT_MS, NULL, &error));
  CU_ASSERT_FALSE (itest_async_call (rwlock, write_release_start, write_release_finish,
                                     cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_rwlock_is_write_held (rwlock));
  CU_ASSERT_TRUE (itest_wait_for (rwlock_release_settled, rwlock, WAIT_MS));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);

  CU_ASSERT_TRUE_FATAL (zkr_rwlock_acquire_read (rwlock, WAIT_MS, NULL, &error));
  CU_ASSERT_FALSE (itest_async_call (rwlock, read_release_start, read_release_finish,
                                     cancellable, &error));
  ITEST_ASSERT_CANCELLED (error);
  CU_ASSERT_FALSE (zkr_rwlock_is_read_held (rwlock));
  CU_ASSERT_TRUE (itest_wait_for (rwlock_release_settled, rwlock, WAIT_MS));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_rwlock_unref (rwlock);
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_rwlock__bad_input_gets_clear_errors),
  ZKR_TEST_CASE (test_rwlock__many_readers_hold_at_once),
  ZKR_TEST_CASE (test_rwlock__writer_excludes_readers_and_readers_exclude_writers),
  ZKR_TEST_CASE (test_rwlock__reader_behind_a_waiting_writer_waits),
  ZKR_TEST_CASE (test_rwlock__downgrade_keeps_a_queued_writer_out),
  ZKR_TEST_CASE (test_rwlock__downgrade_then_release_read_first),
  ZKR_TEST_CASE (test_rwlock__upgrade_is_refused),
  ZKR_TEST_CASE (test_rwlock__reentrant_counts_without_new_nodes),
  ZKR_TEST_CASE (test_rwlock__threads_of_one_object_exclude_each_other),
  ZKR_TEST_CASE (test_rwlock__tokens_increase),
  ZKR_TEST_CASE (test_rwlock__try_lock_and_timeouts_leave_no_node),
  ZKR_TEST_CASE (test_rwlock__cancel_wakes_a_blocked_reader),
  ZKR_TEST_CASE (test_rwlock__async_acquire_calls_back_in_the_callers_context),
  ZKR_TEST_CASE (test_rwlock__expired_holder_loses_both_sides),
  ZKR_TEST_CASE (test_rwlock__unref_while_holding_releases),
  ZKR_TEST_CASE (test_rwlock__release_async_of_each_side_deletes_its_node),
  ZKR_TEST_CASE (test_rwlock__a_cancelled_release_async_answers_cancelled_and_the_node_goes),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "rwlock", NULL, NULL, tests);
}
