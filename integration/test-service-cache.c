/* zkr integration: the service cache and provider against the real
 * ensemble: the cache sees instances come, change and go (its listener
 * hears it) and skips a node that is not an instance (or nests too deep to
 * parse) beside the valid ones; the round-robin, random and sticky strategies; disabled instances
 * and those noted as failing are left out, the latter until down_ms
 * passed; bad input. */
#include <string.h>

#include "itest.h"
#include "zkr-test.h"

#define SESSION_MS 6000

typedef struct {
  ZkrSession *session;
  ZkrSession *direct;
  char *root;
  char *base;
  ZkrServiceDiscovery *registrar;     /* on session */
  ZkrServiceDiscovery *reader;        /* on direct */
  ZkrServiceCache *cache;             /* of "api", on direct */
  guint warnings;                     /* counted around every read */
} Fixture;

static void
fixture_init (Fixture *f, const char *name)
{
  g_autoptr (GError) error = NULL;

  memset (f, 0, sizeof *f);
  f->session = itest_connect (itest_hosts (), SESSION_MS);
  f->direct = itest_connect (itest_hosts (), SESSION_MS);
  f->root = itest_scratch_path (name);
  f->base = g_strconcat (f->root, "/services", NULL);
  f->registrar = zkr_service_discovery_new (f->session, f->base, &error);
  f->reader = zkr_service_discovery_new (f->direct, f->base, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->reader);
  f->cache = zkr_service_cache_new (f->reader, "api", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->cache);
}

static void
fixture_start (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE (zkr_service_cache_start (f->cache, &error));
  CU_ASSERT_TRUE (zkr_service_cache_wait_initialized (f->cache, ITEST_CALL_MS, NULL, &error));
}

static void
fixture_finish (Fixture *f)
{
  zkr_service_cache_unref (f->cache);
  CU_ASSERT_TRUE (zkr_service_discovery_close (f->registrar, ITEST_CALL_MS, NULL, NULL));
  zkr_service_discovery_unref (f->registrar);
  zkr_service_discovery_unref (f->reader);
  zkr_session_unref (f->session);
  itest_cleanup_root (f->direct, NULL, f->root);
  itest_assert_path_clean (f->direct, f->root);
  zkr_session_unref (f->direct);
  g_free (f->base);
  g_free (f->root);
}

static void
register_id (Fixture *f, const char *id, ZkrServiceType type)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("api", id, NULL);
  g_autoptr (GError) error = NULL;

  zkr_service_instance_set_address (instance, "10.0.0.1");
  CU_ASSERT_TRUE (zkr_service_instance_set_service_type (instance, type, NULL));
  CU_ASSERT_TRUE (zkr_service_discovery_register (f->registrar, instance, ITEST_CALL_MS, NULL,
                                                  &error));
}

/* "a,b" from instances (transfer full) */
static char *
ids_of (GPtrArray *instances)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < instances->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "," : "",
                            zkr_service_instance_get_id (g_ptr_array_index (instances, i)));
  return g_string_free (text, FALSE);
}

/* The cache's ids, its warnings counted (a foreign node's warning is
 * expected, and comes from this read only). */
static char *
cached_ids (Fixture *f)
{
  g_autoptr (GPtrArray) instances = NULL;

  zkr_test_expect_criticals_begin ();
  instances = zkr_service_cache_dup_instances (f->cache);
  f->warnings += zkr_test_expect_criticals_end ();
  return ids_of (instances);
}

typedef struct {
  Fixture *f;
  const char *ids;
  guint warnings;
} CachedWait;

static gboolean
cache_is (gpointer data)
{
  CachedWait *wait = data;
  g_autofree char *ids = cached_ids (wait->f);

  return strcmp (ids, wait->ids) == 0 && wait->f->warnings == wait->warnings;
}

static void
assert_cache_becomes (Fixture *f, const char *ids, guint warnings)
{
  CachedWait wait = { f, ids, warnings };

  if (!itest_wait_for (cache_is, &wait, ITEST_WAIT_MS))
    {
      g_autofree char *seen = cached_ids (f);

      g_printerr ("cache has \"%s\" (%u warnings), not \"%s\" (%u)\n", seen, f->warnings, ids,
                  warnings);
      CU_FAIL ("the cache did not become what the server has");
    }
}

/* ---- a listener on a thread of its own -------------------------------------------- */

typedef struct {
  ItestLoopThread runner;
  gint changes;                 /* atomic */
} Heard;

static void
cache_changed (ZkrServiceCache *cache, gpointer data)
{
  (void) cache;
  g_atomic_int_inc (&((Heard *) data)->changes);
}

static gboolean
heard_some (gpointer data)
{
  return g_atomic_int_get (&((Heard *) data)->changes) > 0;
}

/* ---- tests --------------------------------------------------------------------------- */

static void
test_service_cache__instances_come_change_and_go_and_foreign_nodes_are_skipped (void)
{
  Fixture f;
  Heard heard = { 0 };
  g_autofree char *bad = NULL;
  g_autoptr (ZkrServiceInstance) changed = zkr_service_instance_new ("api", "b", NULL);

  fixture_init (&f, "service-cache-see");
  itest_loop_thread_init (&heard.runner);
  g_main_context_push_thread_default (heard.runner.context);
  CU_ASSERT_TRUE (zkr_service_cache_add_listener (f.cache, cache_changed, &heard, NULL) > 0);
  g_main_context_pop_thread_default (heard.runner.context);
  itest_loop_thread_start (&heard.runner, "service-cache-heard");
  register_id (&f, "a", ZKR_SERVICE_DYNAMIC);
  fixture_start (&f);
  assert_cache_becomes (&f, "a", 0);
  CU_ASSERT_TRUE (itest_wait_for (heard_some, &heard, ITEST_WAIT_MS));

  register_id (&f, "b", ZKR_SERVICE_STATIC);
  bad = g_strconcat (f.base, "/api/a-bad", NULL);
  CU_ASSERT_TRUE (zkr_node_create (f.direct, bad, "{\"id\":1}", 8, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                   NULL));
  /* The foreign node warned about once, however often the cache is read. */
  assert_cache_becomes (&f, "a,b", 1);

  g_atomic_int_set (&heard.changes, 0);
  zkr_service_instance_set_address (changed, "10.0.0.2");
  CU_ASSERT_TRUE (zkr_service_discovery_update (f.registrar, changed, ITEST_CALL_MS, NULL,
                                                NULL));
  CU_ASSERT_TRUE (itest_wait_for (heard_some, &heard, ITEST_WAIT_MS));
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.registrar, "api", "a", ITEST_CALL_MS,
                                                    NULL, NULL));
  CU_ASSERT_TRUE (zkr_node_delete (f.direct, bad, -1, ITEST_CALL_MS, NULL, NULL));
  assert_cache_becomes (&f, "b", 1);
  {
    g_autoptr (GPtrArray) instances = zkr_service_cache_dup_instances (f.cache);

    CU_ASSERT_STRING_EQUAL (zkr_service_instance_get_address (g_ptr_array_index (instances, 0)),
                            "10.0.0.2");
  }
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.registrar, "api", "b", ITEST_CALL_MS,
                                                    NULL, NULL));
  assert_cache_becomes (&f, "", 1);
  zkr_service_cache_close (f.cache);
  itest_loop_thread_stop (&heard.runner, NULL, NULL);
  fixture_finish (&f);
}

/* A foreign node of 100,000 '[' then as many ']' made every
 * zkr_service_cache_dup_instances() die with SIGSEGV (json-glib's parser
 * overflowed the stack): now skipped with one warning, the valid
 * instances listed. */
static void
test_service_cache__a_deeply_nested_foreign_node_is_skipped (void)
{
  Fixture f;
  g_autoptr (GString) deep = g_string_new (NULL);
  g_autofree char *bad = NULL;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  fixture_init (&f, "service-cache-deep");
  register_id (&f, "a", ZKR_SERVICE_STATIC);
  register_id (&f, "c", ZKR_SERVICE_DYNAMIC);
  bad = g_strconcat (f.base, "/api/b-deep", NULL);
  CU_ASSERT_TRUE (zkr_node_create (f.direct, bad, deep->str, deep->len, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                   NULL));
  fixture_start (&f);
  assert_cache_becomes (&f, "a,c", 1);
  CU_ASSERT_TRUE (zkr_node_delete (f.direct, bad, -1, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.registrar, "api", "a", ITEST_CALL_MS,
                                                    NULL, NULL));
  assert_cache_becomes (&f, "c", 1);
  zkr_service_cache_close (f.cache);
  fixture_finish (&f);
}

/* The address of the cached instance @id, NULL if not cached. (transfer full) */
static char *
cached_address (Fixture *f, const char *id)
{
  g_autoptr (GPtrArray) instances = zkr_service_cache_dup_instances (f->cache);

  for (guint i = 0; i < instances->len; i++)
    {
      ZkrServiceInstance *instance = g_ptr_array_index (instances, i);

      if (strcmp (zkr_service_instance_get_id (instance), id) == 0)
        return g_strdup (zkr_service_instance_get_address (instance));
    }
  return NULL;
}

typedef struct {
  Fixture *f;
  const char *address;
} AddressWait;

static gboolean
address_is (gpointer data)
{
  AddressWait *wait = data;
  g_autofree char *address = cached_address (wait->f, "a");

  return g_strcmp0 (address, wait->address) == 0;
}

static void
assert_address_becomes (Fixture *f, const char *address)
{
  AddressWait wait = { f, address };

  if (!itest_wait_for (address_is, &wait, ITEST_WAIT_MS))
    {
      g_autofree char *seen = cached_address (f, "a");

      g_printerr ("cache has address %s for a, not %s\n", seen != NULL ? seen : "(none)",
                  address);
      CU_FAIL ("the cache did not take the re-created instance");
    }
}

/* The instance node of "a", as the registrar writes it, holding @address
 * (written straight to ZooKeeper: a node of its own life). */
static void
write_instance (Fixture *f, ZkrSession *writer, const char *address, gboolean create)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("api", "a", NULL);
  g_autofree char *path = g_strconcat (f->base, "/api/a", NULL);
  g_autofree char *json = NULL;

  zkr_service_instance_set_address (instance, address);
  json = zkr_service_instance_to_json (instance, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (json);
  if (create)
    {
      CU_ASSERT_TRUE (zkr_node_create (writer, path, json, strlen (json), ZKR_CREATE_PERSISTENT,
                                       ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL,
                                       NULL, NULL));
    }
  else
    {
      CU_ASSERT_TRUE (zkr_node_set (writer, path, json, strlen (json), -1, ITEST_CALL_MS, NULL,
                                    NULL, NULL));
    }
}

/* The instance node set five times (version 5), then deleted and created
 * again with another address (version 0, a new czxid), while the cache's
 * session is connected or (@expire) right after it was expired: the cache
 * gives the new instance and its listener hears the change. */
static void
recreated_at_a_lower_version (const char *name, gboolean expire)
{
  Fixture f;
  Heard heard = { 0 };
  g_autofree char *path = NULL;
  ZkrSession *writer = itest_connect (itest_hosts (), SESSION_MS);

  fixture_init (&f, name);
  path = g_strconcat (f.base, "/api/a", NULL);
  itest_loop_thread_init (&heard.runner);
  g_main_context_push_thread_default (heard.runner.context);
  CU_ASSERT_TRUE (zkr_service_cache_add_listener (f.cache, cache_changed, &heard, NULL) > 0);
  g_main_context_pop_thread_default (heard.runner.context);
  itest_loop_thread_start (&heard.runner, "service-cache-heard");
  write_instance (&f, writer, "10.0.0.0", TRUE);
  fixture_start (&f);
  for (int i = 1; i <= 5; i++)
    {
      g_autofree char *address = g_strdup_printf ("10.0.0.%d", i);

      write_instance (&f, writer, address, FALSE);
    }
  assert_address_becomes (&f, "10.0.0.5");
  g_atomic_int_set (&heard.changes, 0);
  if (expire)
    CU_ASSERT_TRUE (zkr__session_test_expire_once (f.direct, itest_hosts ()));
  CU_ASSERT_TRUE (zkr_node_delete (writer, path, -1, ITEST_CALL_MS, NULL, NULL));
  write_instance (&f, writer, "10.9.9.9", TRUE);
  assert_address_becomes (&f, "10.9.9.9");
  CU_ASSERT_TRUE (itest_wait_for (heard_some, &heard, ITEST_WAIT_MS));
  /* Still watched: a later write is heard and read. */
  g_atomic_int_set (&heard.changes, 0);
  write_instance (&f, writer, "10.9.9.10", FALSE);
  assert_address_becomes (&f, "10.9.9.10");
  CU_ASSERT_TRUE (itest_wait_for (heard_some, &heard, ITEST_WAIT_MS));
  zkr_service_cache_close (f.cache);
  itest_loop_thread_stop (&heard.runner, NULL, NULL);
  zkr_session_unref (writer);
  fixture_finish (&f);
}

static void
test_service_cache__an_instance_recreated_at_a_lower_version_is_read_anew (void)
{
  recreated_at_a_lower_version ("service-cache-lower", FALSE);
}

static void
test_service_cache__an_instance_recreated_at_a_lower_version_across_an_expiry (void)
{
  recreated_at_a_lower_version ("service-cache-lower-exp", TRUE);
}

/* @n picks, their ids joined: "a,b,c". (transfer full) */
static char *
picks (ZkrServiceProvider *provider, guint n)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (ZkrServiceInstance) chosen = zkr_service_provider_get_instance (provider);

      g_string_append_printf (text, "%s%s", i > 0 ? "," : "",
                              chosen != NULL ? zkr_service_instance_get_id (chosen) : "-");
    }
  return g_string_free (text, FALSE);
}

typedef struct {
  ZkrServiceProvider *provider;
  const char *ids;
} UsableWait;

static gboolean
usable_is (gpointer data)
{
  UsableWait *wait = data;
  g_autoptr (GPtrArray) usable = zkr_service_provider_get_all_instances (wait->provider);
  g_autofree char *ids = ids_of (usable);

  return strcmp (ids, wait->ids) == 0;
}

static void
test_service_cache__providers_pick_round_robin_random_and_sticky (void)
{
  Fixture f;
  g_autoptr (ZkrServiceProvider) round_robin = NULL;
  g_autoptr (ZkrServiceProvider) random = NULL;
  g_autoptr (ZkrServiceProvider) sticky = NULL;
  g_autoptr (ZkrServiceInstance) disabled = zkr_service_instance_new ("api", "c", NULL);
  g_autofree char *rr = NULL, *st = NULL, *st2 = NULL, *all = NULL;
  g_autofree char *many = NULL;
  UsableWait usable_wait;

  fixture_init (&f, "service-cache-pick");
  register_id (&f, "a", ZKR_SERVICE_DYNAMIC);
  register_id (&f, "b", ZKR_SERVICE_DYNAMIC);
  register_id (&f, "c", ZKR_SERVICE_DYNAMIC);
  fixture_start (&f);
  assert_cache_becomes (&f, "a,b,c", 0);
  round_robin = zkr_service_provider_new (f.cache, ZKR_PROVIDER_ROUND_ROBIN,
                                          ZKR_PROVIDER_DEFAULT_DOWN_MS,
                                          ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD, NULL);
  random = zkr_service_provider_new (f.cache, ZKR_PROVIDER_RANDOM, ZKR_PROVIDER_DEFAULT_DOWN_MS,
                                     ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD, NULL);
  sticky = zkr_service_provider_new (f.cache, ZKR_PROVIDER_STICKY, ZKR_PROVIDER_DEFAULT_DOWN_MS,
                                     ZKR_PROVIDER_DEFAULT_ERROR_THRESHOLD, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (sticky);

  rr = picks (round_robin, 6);
  CU_ASSERT_STRING_EQUAL (rr, "a,b,c,a,b,c");
  /* 300 uniform picks miss one of three with probability 3 (2/3)^300. */
  many = picks (random, 300);
  CU_ASSERT_PTR_NOT_NULL (strchr (many, 'a'));
  CU_ASSERT_PTR_NOT_NULL (strchr (many, 'b'));
  CU_ASSERT_PTR_NOT_NULL (strchr (many, 'c'));
  CU_ASSERT_PTR_NULL (strchr (many, '-'));
  st = picks (sticky, 4);
  CU_ASSERT_STRING_EQUAL (st, "a,a,a,a");

  /* Its instance gone, the sticky one moves on and sticks again. */
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.registrar, "api", "a", ITEST_CALL_MS,
                                                    NULL, NULL));
  assert_cache_becomes (&f, "b,c", 0);
  st2 = picks (sticky, 3);
  CU_ASSERT_TRUE (strcmp (st2, "b,b,b") == 0 || strcmp (st2, "c,c,c") == 0);

  /* A disabled instance is cached but never picked. */
  zkr_service_instance_set_address (disabled, "10.0.0.1");
  zkr_service_instance_set_enabled (disabled, FALSE);
  CU_ASSERT_TRUE (zkr_service_discovery_update (f.registrar, disabled, ITEST_CALL_MS, NULL,
                                                NULL));
  usable_wait = (UsableWait) { round_robin, "b" };
  CU_ASSERT_TRUE (itest_wait_for (usable_is, &usable_wait, ITEST_WAIT_MS));
  all = picks (round_robin, 3);
  CU_ASSERT_STRING_EQUAL (all, "b,b,b");
  assert_cache_becomes (&f, "b,c", 0);
  fixture_finish (&f);
}

static void
test_service_cache__an_instance_noted_failing_is_left_out_until_down_ms (void)
{
  Fixture f;
  g_autoptr (ZkrServiceProvider) provider = NULL;
  g_autoptr (ZkrServiceInstance) a = zkr_service_instance_new ("api", "a", NULL);
  g_autofree char *chosen = NULL;
  UsableWait wait;

  fixture_init (&f, "service-cache-down");
  register_id (&f, "a", ZKR_SERVICE_DYNAMIC);
  register_id (&f, "b", ZKR_SERVICE_DYNAMIC);
  fixture_start (&f);
  assert_cache_becomes (&f, "a,b", 0);
  /* Long enough that the two errors below fall inside it. */
  provider = zkr_service_provider_new (f.cache, ZKR_PROVIDER_ROUND_ROBIN, 2000, 2, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (provider);

  /* Below the threshold: still picked. */
  zkr_service_provider_note_error (provider, a);
  wait = (UsableWait) { provider, "a,b" };
  CU_ASSERT_TRUE (usable_is (&wait));
  zkr_service_provider_note_error (provider, a);
  wait.ids = "b";
  CU_ASSERT_TRUE (usable_is (&wait));
  chosen = picks (provider, 4);
  CU_ASSERT_STRING_EQUAL (chosen, "b,b,b,b");
  /* Back once down_ms passed since its first error. */
  wait.ids = "a,b";
  CU_ASSERT_TRUE (itest_wait_for (usable_is, &wait, ITEST_WAIT_MS));
  fixture_finish (&f);
}

static void
test_service_cache__bad_input_is_named (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrServiceDiscovery) discovery = zkr_service_discovery_new (session, NULL, NULL);
  g_autoptr (ZkrServiceCache) cache = NULL;
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NULL (zkr_service_cache_new (discovery, "a/b", &error));
  itest_assert_invalid_naming (error, "a/b");
  g_clear_error (&error);
  cache = zkr_service_cache_new (discovery, "api", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (cache);
  CU_ASSERT_PTR_NULL (zkr_service_provider_new (cache, (ZkrProviderStrategy) 7, 1000, 2, &error));
  itest_assert_invalid_naming (error, "7");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_provider_new (cache, ZKR_PROVIDER_RANDOM, -5, 2, &error));
  itest_assert_invalid_naming (error, "-5");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_provider_new (cache, ZKR_PROVIDER_RANDOM, 1000, 0, &error));
  itest_assert_invalid_naming (error, "0");
  g_clear_error (&error);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_service_cache__instances_come_change_and_go_and_foreign_nodes_are_skipped),
  ZKR_TEST_CASE (test_service_cache__a_deeply_nested_foreign_node_is_skipped),
  ZKR_TEST_CASE (test_service_cache__providers_pick_round_robin_random_and_sticky),
  ZKR_TEST_CASE (test_service_cache__an_instance_noted_failing_is_left_out_until_down_ms),
  ZKR_TEST_CASE (test_service_cache__bad_input_is_named),
  ZKR_TEST_CASE (test_service_cache__an_instance_recreated_at_a_lower_version_is_read_anew),
  ZKR_TEST_CASE (test_service_cache__an_instance_recreated_at_a_lower_version_across_an_expiry),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "service-cache", NULL, NULL, tests);
}
