/* zkr integration: interop with real Curator. A small Java peer
 * (integration/interop/ZkrPeer.java, Debian's Curator jars) holds Curator's
 * recipes on a path while zkr contends, and the other way round. */

#include <string.h>

#include <CUnit/CUnit.h>
#include <gio/gio.h>

#include "itest.h"
#include "zkr-test.h"

typedef struct {
  GSubprocess *process;
  GDataInputStream *out;
  GOutputStream *in;
} Peer;

static char *
peer_read_line (Peer *peer)
{
  g_autoptr (GError) error = NULL;
  char *line = g_data_input_stream_read_line_utf8 (peer->out, NULL, NULL, &error);

  if (line == NULL)
    g_printerr ("peer: no answer (%s)\n", error != NULL ? error->message : "end of output");
  return line;
}

/* Sends @command and returns the peer's answer line. (transfer full) */
static char *
peer_ask (Peer *peer, const char *command)
{
  g_autofree char *line = g_strdup_printf ("%s\n", command);

  if (!g_output_stream_write_all (peer->in, line, strlen (line), NULL, NULL, NULL) ||
      !g_output_stream_flush (peer->in, NULL, NULL))
    return NULL;
  return peer_read_line (peer);
}

static gboolean
peer_answers (Peer *peer, const char *command, const char *expected_prefix)
{
  g_autofree char *answer = peer_ask (peer, command);

  if (answer == NULL || !g_str_has_prefix (answer, expected_prefix))
    {
      g_printerr ("peer: '%s' answered '%s', expected '%s...'\n", command,
                  answer != NULL ? answer : "(nothing)", expected_prefix);
      return FALSE;
    }
  return TRUE;
}

/* @leases: (nullable) the semaphore's lease count; @id: (nullable) the
 * latch or selector participant id. */
static Peer *
peer_start_full (const char *recipe, const char *path, const char *leases, const char *id)
{
  const char *classpath = g_getenv ("ZKR_INTEROP_CLASSPATH");
  g_autoptr (GError) error = NULL;
  g_autofree char *ready = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  Peer *peer;

  if (classpath == NULL)
    {
      CU_FAIL ("ZKR_INTEROP_CLASSPATH is not set");
      return NULL;
    }
  g_ptr_array_add (argv, (char *) "java");
  g_ptr_array_add (argv, (char *) "-cp");
  g_ptr_array_add (argv, (char *) classpath);
  g_ptr_array_add (argv, (char *) "ZkrPeer");
  g_ptr_array_add (argv, (char *) "--hosts");
  g_ptr_array_add (argv, (char *) itest_hosts ());
  g_ptr_array_add (argv, (char *) "--recipe");
  g_ptr_array_add (argv, (char *) recipe);
  g_ptr_array_add (argv, (char *) "--path");
  g_ptr_array_add (argv, (char *) path);
  if (leases != NULL)
    {
      g_ptr_array_add (argv, (char *) "--leases");
      g_ptr_array_add (argv, (char *) leases);
    }
  if (id != NULL)
    {
      g_ptr_array_add (argv, (char *) "--id");
      g_ptr_array_add (argv, (char *) id);
    }
  g_ptr_array_add (argv, NULL);
  peer = g_new0 (Peer, 1);
  peer->process = g_subprocess_newv ((const char *const *) argv->pdata,
                                     G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                     &error);
  if (peer->process == NULL)
    {
      g_printerr ("peer: %s\n", error->message);
      g_free (peer);
      CU_FAIL ("could not start the Java peer");
      return NULL;
    }
  peer->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (peer->process));
  peer->in = g_subprocess_get_stdin_pipe (peer->process);
  ready = peer_read_line (peer);
  CU_ASSERT_STRING_EQUAL (ready != NULL ? ready : "", "READY");
  return peer;
}

static Peer *
peer_start (const char *recipe, const char *path, const char *leases)
{
  return peer_start_full (recipe, path, leases, NULL);
}

/* The number in an answer such as "LEADER 4294967310", or 0. */
static gint64
peer_ask_number (Peer *peer, const char *command, const char *expected_prefix)
{
  g_autofree char *answer = peer_ask (peer, command);

  if (answer == NULL || !g_str_has_prefix (answer, expected_prefix))
    {
      g_printerr ("peer: '%s' answered '%s', expected '%s...'\n", command,
                  answer != NULL ? answer : "(nothing)", expected_prefix);
      return 0;
    }
  return g_ascii_strtoll (answer + strlen (expected_prefix), NULL, 10);
}

static void
peer_quit (Peer *peer)
{
  if (peer == NULL)
    return;
  CU_ASSERT_TRUE (peer_answers (peer, "quit", "BYE"));
  g_output_stream_close (peer->in, NULL, NULL);
  CU_ASSERT_TRUE (g_subprocess_wait_check (peer->process, NULL, NULL));
  g_object_unref (peer->out);
  g_object_unref (peer->process);
  g_free (peer);
}

/* Curator's InterProcessMutex and zkr_mutex exclude each other, both ways,
 * and queue behind each other. */
static void
test_interop__curator_mutex_and_zkr_mutex_exclude_each_other (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("interop-mutex");
  g_autoptr (GError) error = NULL;
  ZkrMutex *mutex;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  peer = peer_start ("mutex", path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer);
  mutex = zkr_mutex_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mutex);

  CU_ASSERT_TRUE (peer_answers (peer, "acquire 10000", "ACQUIRED"));
  CU_ASSERT_FALSE (zkr_mutex_acquire (mutex, 500, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (peer_answers (peer, "release", "RELEASED"));

  CU_ASSERT_TRUE (zkr_mutex_acquire (mutex, 10000, NULL, &error));
  CU_ASSERT_TRUE (peer_answers (peer, "acquire 500", "TIMEOUT"));
  CU_ASSERT_TRUE (zkr_mutex_release (mutex, &error));
  CU_ASSERT_TRUE (peer_answers (peer, "acquire 10000", "ACQUIRED"));
  CU_ASSERT_TRUE (peer_answers (peer, "release", "RELEASED"));
  peer_quit (peer);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_mutex_unref (mutex);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* Curator's InterProcessReadWriteLock and zkr_rwlock share the
 * __READ__/__WRIT__ layout: readers share across clients, a writer on
 * either side excludes the other side's readers and writers. */
static void
test_interop__curator_rwlock_and_zkr_rwlock_agree (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("interop-rwlock");
  g_autoptr (GError) error = NULL;
  ZkrRwlock *rwlock;
  Peer *reader, *writer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  reader = peer_start ("rwlock-read", path, NULL);
  writer = peer_start ("rwlock-write", path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (reader);
  CU_ASSERT_PTR_NOT_NULL_FATAL (writer);
  rwlock = zkr_rwlock_new (session, path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rwlock);

  /* A Curator reader and a zkr reader hold together; writers wait. */
  CU_ASSERT_TRUE (peer_answers (reader, "acquire 10000", "ACQUIRED"));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 10000, NULL, &error));
  CU_ASSERT_TRUE (peer_answers (writer, "acquire 500", "TIMEOUT"));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));
  CU_ASSERT_TRUE (peer_answers (reader, "release", "RELEASED"));

  /* A zkr writer keeps the Curator reader and writer out. */
  CU_ASSERT_TRUE (zkr_rwlock_acquire_write (rwlock, 10000, NULL, &error));
  CU_ASSERT_TRUE (peer_answers (reader, "acquire 500", "TIMEOUT"));
  CU_ASSERT_TRUE (peer_answers (writer, "acquire 500", "TIMEOUT"));
  CU_ASSERT_TRUE (zkr_rwlock_release_write (rwlock, &error));

  /* A Curator writer keeps zkr's reader out. */
  CU_ASSERT_TRUE (peer_answers (writer, "acquire 10000", "ACQUIRED"));
  CU_ASSERT_FALSE (zkr_rwlock_acquire_read (rwlock, 500, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (peer_answers (writer, "release", "RELEASED"));
  CU_ASSERT_TRUE (zkr_rwlock_acquire_read (rwlock, 10000, NULL, &error));
  CU_ASSERT_TRUE (zkr_rwlock_release_read (rwlock, &error));

  peer_quit (reader);
  peer_quit (writer);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_rwlock_unref (rwlock);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* InterProcessSemaphoreV2 and zkr_semaphore on one path with 2 leases:
 * never more than 2 holders across both. */
static void
test_interop__curator_semaphore_and_zkr_semaphore_share_the_leases (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("interop-semaphore");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  ZkrSemaphore *semaphore;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  peer = peer_start ("semaphore", path, "2");
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer);
  semaphore = zkr_semaphore_new (session, path, 2, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (semaphore);

  CU_ASSERT_TRUE (peer_answers (peer, "acquire 10000", "ACQUIRED"));
  leases = zkr_semaphore_acquire (semaphore, 1, 10000, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (leases);
  /* Two leases out, one on each side: both sides see the semaphore full. */
  CU_ASSERT_TRUE (peer_answers (peer, "acquire 500", "TIMEOUT"));
  CU_ASSERT_PTR_NULL (zkr_semaphore_acquire (semaphore, 1, 500, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_lease_release (g_ptr_array_index (leases, 0), &error));
  CU_ASSERT_TRUE (peer_answers (peer, "acquire 10000", "ACQUIRED"));
  CU_ASSERT_TRUE (peer_answers (peer, "release", "RELEASED"));
  CU_ASSERT_TRUE (peer_answers (peer, "release", "RELEASED"));
  peer_quit (peer);
  g_clear_pointer (&leases, g_ptr_array_unref);
  zkr_semaphore_unref (semaphore);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* Curator's LeaderLatch and zkr_leader_latch on one path elect one leader:
 * each side sees the other's participant id in the listing, and leadership
 * passes both ways on close with increasing tokens. */
static void
test_interop__curator_leader_latch_and_zkr_latch_agree_on_one_leader (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("interop-latch");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  g_autofree char *leader = NULL;
  ZkrLeaderLatch *latch;
  gint64 curator_token, zkr_token;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  peer = peer_start_full ("latch", path, NULL, "curator-latch");
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer);
  latch = zkr_leader_latch_new (session, path, "zkr-latch", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (latch);

  /* Curator first: it leads, zkr waits behind it. */
  CU_ASSERT_TRUE (peer_answers (peer, "start", "STARTED"));
  curator_token = peer_ask_number (peer, "await 10000", "LEADER ");
  CU_ASSERT_TRUE (curator_token > 0);
  CU_ASSERT_TRUE (zkr_leader_latch_start (latch, &error));
  CU_ASSERT_FALSE (zkr_leader_latch_await (latch, 500, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_TIMEOUT));
  g_clear_error (&error);
  participants = zkr_leader_latch_list_participants (latch, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL_FATAL (participants->len, 2);
  CU_ASSERT_STRING_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 0))->client_id, "curator-latch");
  CU_ASSERT_TRUE (((ZkrParticipant *) g_ptr_array_index (participants, 0))->is_holder);
  CU_ASSERT_STRING_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 1))->client_id, "zkr-latch");
  CU_ASSERT_FALSE (((ZkrParticipant *) g_ptr_array_index (participants, 1))->is_holder);
  leader = zkr_leader_latch_dup_leader_id (latch, NULL, &error);
  CU_ASSERT_STRING_EQUAL (leader != NULL ? leader : "", "curator-latch");

  /* Curator leaves: zkr leads, and a new Curator latch waits behind it. */
  CU_ASSERT_TRUE (peer_answers (peer, "close", "CLOSED"));
  CU_ASSERT_TRUE (zkr_leader_latch_await (latch, 10000, NULL, &error));
  zkr_token = zkr_leader_latch_get_fencing_token (latch);
  CU_ASSERT_TRUE (zkr_token > curator_token);
  CU_ASSERT_TRUE (peer_answers (peer, "start", "STARTED"));
  CU_ASSERT_TRUE (peer_answers (peer, "await 500", "NOT_LEADER"));
  CU_ASSERT_TRUE (zkr_leader_latch_has_leadership (latch));
  /* Curator reads zkr's node data as the leader's id. */
  CU_ASSERT_TRUE (peer_answers (peer, "leader", "LEADER_ID zkr-latch"));

  /* zkr leaves: Curator leads. */
  CU_ASSERT_TRUE (zkr_leader_latch_close (latch, ZKR_LEADER_CLOSE_SILENT, &error));
  CU_ASSERT_TRUE (peer_ask_number (peer, "await 10000", "LEADER ") > zkr_token);
  CU_ASSERT_TRUE (peer_answers (peer, "close", "CLOSED"));
  peer_quit (peer);
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_leader_latch_unref (latch);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

typedef struct {
  GMutex lock;
  GCond cond;
  gint64 token;        /* of the running term, 0 when none */
  guint terms;
} SelectorTerm;

static void
interop_lead (ZkrLeaderSelector *selector, gint64 token, GCancellable *interrupt, gpointer user_data)
{
  SelectorTerm *term = user_data;

  (void) selector;
  g_mutex_lock (&term->lock);
  term->token = token;
  term->terms++;
  g_cond_broadcast (&term->cond);
  g_mutex_unlock (&term->lock);
  /* Lead until told to stop, checking in steps as real work would. */
  while (!g_cancellable_is_cancelled (interrupt))
    g_usleep (5000);
  g_mutex_lock (&term->lock);
  term->token = 0;
  g_cond_broadcast (&term->cond);
  g_mutex_unlock (&term->lock);
}

/* Waits up to @timeout_ms for a running term; returns its token or 0. */
static gint64
interop_wait_term (SelectorTerm *term, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gint64 token;

  g_mutex_lock (&term->lock);
  while (term->token == 0 && g_cond_wait_until (&term->cond, &term->lock, deadline))
    ;
  token = term->token;
  g_mutex_unlock (&term->lock);
  return token;
}

/* Curator's LeaderSelector and zkr_leader_selector take turns on one path:
 * never both leading, tokens increasing, ids in each other's listing. */
static void
test_interop__curator_leader_selector_and_zkr_selector_take_turns (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("interop-selector");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) participants = NULL;
  SelectorTerm term = { 0 };
  ZkrLeaderSelector *selector;
  gint64 curator_token, zkr_token;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  g_mutex_init (&term.lock);
  g_cond_init (&term.cond);
  peer = peer_start_full ("selector", path, NULL, "curator-selector");
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer);
  selector = zkr_leader_selector_new (session, path, "zkr-selector", interop_lead, &term, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (selector);

  CU_ASSERT_TRUE (peer_answers (peer, "start", "STARTED"));
  curator_token = peer_ask_number (peer, "await 10000", "LEADING ");
  CU_ASSERT_TRUE (curator_token > 0);
  CU_ASSERT_TRUE (zkr_leader_selector_start (selector, &error));
  CU_ASSERT_EQUAL (interop_wait_term (&term, 500), 0);
  participants = zkr_leader_selector_list_participants (selector, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (participants);
  CU_ASSERT_EQUAL_FATAL (participants->len, 2);
  CU_ASSERT_STRING_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 0))->client_id, "curator-selector");
  CU_ASSERT_STRING_EQUAL (((ZkrParticipant *) g_ptr_array_index (participants, 1))->client_id, "zkr-selector");

  /* Curator's term ends: zkr's begins; Curator queued again waits. */
  CU_ASSERT_TRUE (peer_answers (peer, "yield", "YIELDED"));
  zkr_token = interop_wait_term (&term, 10000);
  CU_ASSERT_TRUE (zkr_token > curator_token);
  CU_ASSERT_TRUE (peer_answers (peer, "start", "STARTED"));
  CU_ASSERT_TRUE (peer_answers (peer, "await 500", "NOT_LEADER"));
  CU_ASSERT_TRUE (peer_answers (peer, "leader", "LEADER_ID zkr-selector"));

  /* zkr's term ends (no auto-requeue): Curator leads. */
  zkr_leader_selector_interrupt (selector);
  CU_ASSERT_TRUE (peer_ask_number (peer, "await 10000", "LEADING ") > zkr_token);
  g_mutex_lock (&term.lock);
  CU_ASSERT_EQUAL (term.token, 0);
  CU_ASSERT_EQUAL (term.terms, 1);
  g_mutex_unlock (&term.lock);
  CU_ASSERT_TRUE (peer_answers (peer, "close", "CLOSED"));
  peer_quit (peer);
  CU_ASSERT_TRUE (zkr_leader_selector_close (selector, &error));
  CU_ASSERT_EQUAL (itest_count_children (session, path), 0);
  zkr_leader_selector_unref (selector);
  g_mutex_clear (&term.lock);
  g_cond_clear (&term.cond);
  CU_ASSERT_TRUE (itest_delete_tree (session, path));
  zkr_session_unref (session);
}

/* ---- tree cache ------------------------------------------------------ */

/* "TREE path=version:hexdata ..." as the peer's `dump` writes it: each node
 * then its children in byte order. @cache NULL: read from the server. */
static void
tree_dump_node (ZkrSession *session, ZkrTreeCache *cache, const char *path, GString *text)
{
  g_autoptr (GBytes) data = NULL;
  g_auto (GStrv) children = NULL;
  ZkrStat stat;
  gsize len = 0;
  const guint8 *bytes;

  data = cache != NULL ? zkr_tree_cache_get_data (cache, path, &stat)
                       : zkr_node_get (session, path, 10000, NULL, &stat, NULL);
  if (data == NULL)
    return;
  g_string_append_printf (text, " %s=%d:", path, stat.version);
  bytes = g_bytes_get_data (data, &len);
  for (gsize i = 0; i < len; i++)
    g_string_append_printf (text, "%02x", bytes[i]);
  children = cache != NULL ? zkr_tree_cache_get_children (cache, path)
                           : zkr_node_get_children (session, path, 10000, NULL, NULL, NULL);
  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      g_autofree char *child = g_strdup_printf ("%s/%s", path, children[i]);

      tree_dump_node (session, cache, child, text);
    }
}

static char *
tree_dump (ZkrSession *session, ZkrTreeCache *cache, const char *root)
{
  GString *text = g_string_new ("TREE");

  tree_dump_node (session, cache, root, text);
  return g_string_free (text, FALSE);
}

typedef struct {
  ZkrSession *session;
  ZkrTreeCache *cache;   /* (nullable) zkr's cache, else the peer's */
  Peer *peer;
  const char *root;
  char *last;            /* the last differing dump, for the log */
} TreeMatch;

/* For itest_wait_for: the cache's dump equals a fresh read of the server. */
static gboolean
tree_matches (gpointer data)
{
  TreeMatch *m = data;
  g_autofree char *server = tree_dump (m->session, NULL, m->root);
  char *cached = m->cache != NULL ? tree_dump (m->session, m->cache, m->root)
                                  : peer_ask (m->peer, "dump");
  gboolean same = g_strcmp0 (server, cached) == 0;

  g_free (m->last);
  m->last = same ? NULL : g_strdup_printf ("server: %s\ncache:  %s", server, cached);
  g_free (cached);
  return same;
}

static void
assert_tree_matches (ZkrSession *session, ZkrTreeCache *cache, Peer *peer, const char *root)
{
  TreeMatch m = { session, cache, peer, root, NULL };
  gboolean same = itest_wait_for (tree_matches, &m, 20000);

  if (!same)
    g_printerr ("%s cache differs:\n%s\n", cache != NULL ? "zkr's" : "Curator's", m.last);
  CU_ASSERT_TRUE (same);
  g_free (m.last);
}

static void
put_node (ZkrSession *session, const char *root, const char *rest, const char *data)
{
  g_autofree char *path = g_strdup_printf ("%s/%s", root, rest);

  if (!zkr_node_create (session, path, data, strlen (data), ZKR_CREATE_PERSISTENT,
                        ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL, NULL))
    CU_ASSERT_TRUE (zkr_node_set (session, path, data, strlen (data), -1, 10000, NULL, NULL, NULL));
}

/* Curator's TreeCache sees zkr's writes, and zkr's tree cache sees the
 * Java side's; both end equal to a fresh read of the server. */
static void
test_interop__curator_tree_cache_and_zkr_tree_cache_see_each_others_writes (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *root = itest_scratch_path ("interop-treecache");
  g_autofree char *command = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *events = NULL;
  ZkrTreeCache *cache;
  Peer *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  put_node (session, root, "a/x", "zkr-ax");
  put_node (session, root, "b", "zkr-b");
  peer = peer_start ("treecache", root, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (peer);
  CU_ASSERT_TRUE (peer_answers (peer, "start 10000", "STARTED"));
  cache = zkr_tree_cache_new (session, root, -1, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  CU_ASSERT_TRUE (zkr_tree_cache_start (cache, &error));
  CU_ASSERT_TRUE (zkr_tree_cache_wait_initialized (cache, 10000, NULL, &error));
  assert_tree_matches (session, NULL, peer, root);
  assert_tree_matches (session, cache, NULL, root);

  /* zkr writes: Curator's cache follows. */
  put_node (session, root, "c", "zkr-c");
  put_node (session, root, "a", "zkr-a");
  put_node (session, root, "a/x/deep", "zkr-deep");
  g_free (command);
  command = g_strdup_printf ("%s/b", root);
  CU_ASSERT_TRUE (zkr_node_delete (session, command, -1, 10000, NULL, NULL));
  assert_tree_matches (session, NULL, peer, root);

  /* Curator writes: zkr's cache follows. */
  g_free (command);
  command = g_strdup_printf ("put %s/d java-d", root);
  CU_ASSERT_TRUE (peer_answers (peer, command, "PUT"));
  g_free (command);
  command = g_strdup_printf ("put %s/a java-a", root);
  CU_ASSERT_TRUE (peer_answers (peer, command, "PUT"));
  g_free (command);
  command = g_strdup_printf ("delete %s/a/x", root);
  CU_ASSERT_TRUE (peer_answers (peer, command, "DELETED"));
  assert_tree_matches (session, cache, NULL, root);
  assert_tree_matches (session, NULL, peer, root);
  events = peer_ask (peer, "events");
  CU_ASSERT_PTR_NOT_NULL (events != NULL ? strstr (events, "INITIALIZED=1") : NULL);
  CU_ASSERT_TRUE (peer_answers (peer, "close", "CLOSED"));
  peer_quit (peer);
  zkr_tree_cache_unref (cache);
  CU_ASSERT_TRUE (itest_delete_tree (session, root));
  CU_ASSERT_TRUE (itest_node_absent (session, root));
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_interop__curator_mutex_and_zkr_mutex_exclude_each_other),
  ZKR_TEST_CASE (test_interop__curator_rwlock_and_zkr_rwlock_agree),
  ZKR_TEST_CASE (test_interop__curator_semaphore_and_zkr_semaphore_share_the_leases),
  ZKR_TEST_CASE (test_interop__curator_leader_latch_and_zkr_latch_agree_on_one_leader),
  ZKR_TEST_CASE (test_interop__curator_leader_selector_and_zkr_selector_take_turns),
  ZKR_TEST_CASE (test_interop__curator_tree_cache_and_zkr_tree_cache_see_each_others_writes),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "interop", NULL, NULL, tests);
}
