/* zkr integration: service discovery against the real ensemble: register,
 * update, unregister and query round trip; instances written by someone
 * else that do not parse (or nest too deep to parse) are skipped beside
 * the valid ones; what JSON cannot hold is not registered; a DYNAMIC
 * registration is back after its session's expiry; calls answer by the
 * deadline through a black-holed link; bad input. */
#include <math.h>
#include <string.h>

#include "itest.h"
#include "zkr-test.h"

#define SESSION_MS 6000
#define SHORT_TIMEOUT_MS 1000

/* The instance as JSON, to compare every field at once. */
static char *
describe (const ZkrServiceInstance *instance)
{
  g_autoptr (GError) error = NULL;
  char *json = zkr_service_instance_to_json (instance, NULL, &error);

  CU_ASSERT_PTR_NOT_NULL (json);
  return json;
}

static ZkrServiceInstance *
make_instance (const char *name, const char *id, int port, ZkrServiceType type)
{
  g_autoptr (JsonNode) payload = json_from_string ("{\"zone\":\"eu\",\"weight\":[1,2]}", NULL);
  ZkrServiceInstance *instance = zkr_service_instance_new (name, id, NULL);

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  zkr_service_instance_set_address (instance, "10.1.2.3");
  CU_ASSERT_TRUE (zkr_service_instance_set_port (instance, port, NULL));
  CU_ASSERT_TRUE (zkr_service_instance_set_ssl_port (instance, port + 1, NULL));
  zkr_service_instance_set_payload (instance, payload);
  zkr_service_instance_set_registration_time (instance, 1700000000123);
  CU_ASSERT_TRUE (zkr_service_instance_set_service_type (instance, type, NULL));
  CU_ASSERT_TRUE (zkr_service_instance_set_uri_spec (instance, "{scheme}://{address}:{port}",
                                                     NULL));
  return instance;
}

/* The instances of @name as their JSON, in the order listed, joined by
 * newlines. (transfer full) */
static char *
describe_all (ZkrServiceDiscovery *discovery, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) instances = zkr_service_discovery_query_instances (
    discovery, name, ITEST_CALL_MS, NULL, &error);
  GString *text = g_string_new (NULL);

  CU_ASSERT_PTR_NOT_NULL (instances);
  for (guint i = 0; instances != NULL && i < instances->len; i++)
    {
      g_autofree char *json = describe (g_ptr_array_index (instances, i));

      g_string_append_printf (text, "%s%s", i > 0 ? "\n" : "", json);
    }
  return g_string_free (text, FALSE);
}

typedef struct {
  ZkrSession *session;
  ZkrSession *direct;
  char *root;
  char *base;
  ZkrServiceDiscovery *discovery;
} Fixture;

static void
fixture_init_hosts (Fixture *f, const char *name, const char *hosts)
{
  g_autoptr (GError) error = NULL;

  f->session = itest_connect (hosts, SESSION_MS);
  f->direct = itest_connect (itest_hosts (), SESSION_MS);
  f->root = itest_scratch_path (name);
  f->base = g_strconcat (f->root, "/services", NULL);
  f->discovery = zkr_service_discovery_new (f->session, f->base, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->discovery);
}

static void
fixture_init (Fixture *f, const char *name)
{
  fixture_init_hosts (f, name, itest_hosts ());
}

static void
fixture_finish (Fixture *f)
{
  CU_ASSERT_TRUE (zkr_service_discovery_close (f->discovery, ITEST_CALL_MS, NULL, NULL));
  zkr_service_discovery_unref (f->discovery);
  zkr_session_unref (f->session);
  itest_cleanup_root (f->direct, NULL, f->root);
  itest_assert_path_clean (f->direct, f->root);
  zkr_session_unref (f->direct);
  g_free (f->base);
  g_free (f->root);
}

/* ---- tests ----------------------------------------------------------------------- */

static void
test_discovery__register_update_unregister_and_query_round_trip (void)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) one = NULL;
  g_autoptr (ZkrServiceInstance) two = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *listed = NULL, *expected = NULL, *service = NULL, *one_path = NULL;
  g_autofree char *json_one = NULL, *json_two = NULL;
  ZkrStat stat = { 0 };

  fixture_init (&f, "discovery-round-trip");
  one = make_instance ("api", "one", 8080, ZKR_SERVICE_DYNAMIC);
  two = make_instance ("api", "two", 9090, ZKR_SERVICE_STATIC);
  zkr_service_instance_set_enabled (two, FALSE);
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, one, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, two, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (error == NULL);

  names = zkr_service_discovery_query_names (f.discovery, ITEST_CALL_MS, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (names);
  CU_ASSERT_EQUAL (g_strv_length (names), 1);
  CU_ASSERT_STRING_EQUAL (names[0], "api");
  json_one = describe (one);
  json_two = describe (two);
  expected = g_strconcat (json_one, "\n", json_two, NULL);
  listed = describe_all (f.discovery, "api");
  CU_ASSERT_STRING_EQUAL (listed, expected);

  /* The node layout and modes: BASE/NAME/ID, ephemeral for DYNAMIC only. */
  one_path = g_strconcat (f.base, "/api/one", NULL);
  CU_ASSERT_TRUE (zkr_node_exists (f.direct, one_path, ITEST_CALL_MS, NULL, &stat, NULL));
  CU_ASSERT_EQUAL (stat.ephemeral_owner, zkr_session_get_id (f.session));

  /* Update: the new data is what everyone reads. */
  CU_ASSERT_TRUE (zkr_service_instance_set_port (one, 8081, NULL));
  CU_ASSERT_TRUE (zkr_service_discovery_update (f.discovery, one, ITEST_CALL_MS, NULL, &error));
  g_clear_pointer (&json_one, g_free);
  g_clear_pointer (&expected, g_free);
  g_clear_pointer (&listed, g_free);
  json_one = describe (one);
  expected = g_strconcat (json_one, "\n", json_two, NULL);
  listed = describe_all (f.discovery, "api");
  CU_ASSERT_STRING_EQUAL (listed, expected);

  /* Unregister both: gone from the server; a second unregister is no error. */
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.discovery, "api", "one", ITEST_CALL_MS,
                                                    NULL, &error));
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.discovery, "api", "two", ITEST_CALL_MS,
                                                    NULL, &error));
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f.discovery, "api", "two", ITEST_CALL_MS,
                                                    NULL, &error));
  CU_ASSERT_TRUE (error == NULL);
  g_clear_pointer (&listed, g_free);
  listed = describe_all (f.discovery, "api");
  CU_ASSERT_STRING_EQUAL (listed, "");
  service = g_strconcat (f.base, "/api", NULL);
  CU_ASSERT_EQUAL (itest_count_children (f.direct, service), 0);
  /* An update of what is not there is NO_NODE. */
  CU_ASSERT_FALSE (zkr_service_discovery_update (f.discovery, two, ITEST_CALL_MS, NULL, &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_NO_NODE);
  fixture_finish (&f);
}

/* A query of "api" lists @valid (id "m-valid") alone, with one warning
 * for each of the @n_foreign nodes beside it; then @valid is unregistered. */
static void
assert_only_valid_listed (Fixture *f, ZkrServiceInstance *valid, guint n_foreign)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) instances = NULL;
  g_autofree char *json = NULL, *listed = NULL;
  g_autofree char *service = g_strconcat (f->base, "/api", NULL);
  guint warnings;

  /* The foreign nodes were written through the other session: the
   * discovery's server may not list them all yet (reads are ordered per
   * session), and each missing one is one warning fewer. Seen under load. */
  CU_ASSERT_TRUE (zkr_node_sync (f->session, service, ITEST_CALL_MS, NULL, NULL));
  zkr_test_expect_criticals_begin ();
  instances = zkr_service_discovery_query_instances (f->discovery, "api", ITEST_CALL_MS, NULL,
                                                     &error);
  warnings = zkr_test_expect_criticals_end ();
  CU_ASSERT_EQUAL (warnings, n_foreign);
  CU_ASSERT_PTR_NOT_NULL_FATAL (instances);
  CU_ASSERT_EQUAL_FATAL (instances->len, 1);
  json = describe (valid);
  listed = describe (g_ptr_array_index (instances, 0));
  CU_ASSERT_STRING_EQUAL (listed, json);
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (f->discovery, "api", "m-valid",
                                                    ITEST_CALL_MS, NULL, &error));
}

static void
test_discovery__malformed_instances_are_skipped_beside_valid_ones (void)
{
  static const char *const foreign[] = {
    "\xff\x00garbage", "{}", "{\"name\":\"api\",\"id\":5}",
    "{\"name\":\"api\",\"id\":\"x\",\"port\":\"80\"}", "[]", "",
  };
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) valid = make_instance ("api", "m-valid", 7000,
                                                        ZKR_SERVICE_DYNAMIC);

  fixture_init (&f, "discovery-malformed");
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, valid, ITEST_CALL_MS, NULL,
                                                  &error));
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      /* Names sorting before and after the valid one. */
      g_autofree char *path = g_strdup_printf ("%s/api/%c-bad-%u", f.base, i % 2 ? 'a' : 'z', i);
      gsize len = i == 0 ? 10 : strlen (foreign[i]);

      CU_ASSERT_TRUE (zkr_node_create (f.direct, path, foreign[i], len, ZKR_CREATE_PERSISTENT,
                                       ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                       NULL));
    }
  assert_only_valid_listed (&f, valid, G_N_ELEMENTS (foreign));
  fixture_finish (&f);
}

/* 100,000 '[' then as many ']' (200 KB), alone or as an instance's
 * payload, overflowed json-glib's recursive parser's stack: every query of
 * the service died with SIGSEGV. Now refused before it is parsed: skipped
 * with a warning, the valid instances listed. */
static void
test_discovery__deeply_nested_foreign_nodes_are_skipped_beside_valid_ones (void)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) valid = make_instance ("api", "m-valid", 7000,
                                                        ZKR_SERVICE_DYNAMIC);
  g_autoptr (GString) deep = g_string_new (NULL);
  g_autoptr (GString) deep_payload = g_string_new ("{\"name\":\"api\",\"id\":\"p\",\"payload\":");
  const GString *const foreign[] = { deep, deep_payload };

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep_payload, deep->str);
  g_string_append_c (deep_payload, '}');
  fixture_init (&f, "discovery-deep");
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, valid, ITEST_CALL_MS, NULL,
                                                  &error));
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/api/%c-deep-%u", f.base, i % 2 ? 'a' : 'z', i);

      CU_ASSERT_TRUE (zkr_node_create (f.direct, path, foreign[i]->str, foreign[i]->len,
                                       ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_NONE,
                                       ITEST_CALL_MS, NULL, NULL, NULL, NULL));
    }
  assert_only_valid_listed (&f, valid, G_N_ELEMENTS (foreign));
  fixture_finish (&f);
}

/* An instance whose address is not UTF-8 was registered and then skipped
 * by every lister; one with a NaN in its payload was written with null in
 * its place. Both are refused before anything is sent, naming the field. */
static void
test_discovery__an_instance_json_cannot_hold_is_not_registered (void)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) instance = make_instance ("api", "bad", 7000,
                                                           ZKR_SERVICE_STATIC);
  g_autoptr (JsonNode) payload = json_from_string ("{\"w\":1}", NULL);
  g_autofree char *service = NULL;

  fixture_init (&f, "discovery-unwritable");
  service = g_strconcat (f.base, "/api", NULL);
  zkr_service_instance_set_address (instance, "10.0.0.\xff");
  CU_ASSERT_FALSE (zkr_service_discovery_register (f.discovery, instance, ITEST_CALL_MS, NULL,
                                                   &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "address") != NULL);
  g_clear_error (&error);
  zkr_service_instance_set_address (instance, "10.0.0.1");
  json_object_set_double_member (json_node_get_object (payload), "w", NAN);
  zkr_service_instance_set_payload (instance, payload);
  CU_ASSERT_FALSE (zkr_service_discovery_register (f.discovery, instance, ITEST_CALL_MS, NULL,
                                                   &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "/w") != NULL);
  g_clear_error (&error);
  CU_ASSERT_TRUE (itest_node_absent (f.direct, service));
  fixture_finish (&f);
}

typedef struct {
  ZkrSession *direct;
  const char *path;
  ZkrSession *owner;
  const char *json;
} OwnedWait;

static gboolean
owned_with_our_data (gpointer data)
{
  OwnedWait *wait = data;
  ZkrStat stat = { 0 };
  g_autoptr (GBytes) bytes = zkr_node_get (wait->direct, wait->path, ITEST_CALL_MS, NULL,
                                           &stat, NULL);

  return bytes != NULL && stat.ephemeral_owner == zkr_session_get_id (wait->owner)
         && itest_bytes_equal (bytes, wait->json);
}

static void
test_discovery__a_dynamic_registration_is_back_after_its_session_expired (void)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) instance = make_instance ("api", "expiring", 7100,
                                                           ZKR_SERVICE_DYNAMIC);
  g_autofree char *path = NULL, *json = NULL;
  OwnedWait owned;
  gint64 old_id;

  fixture_init (&f, "discovery-expire");
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, instance, ITEST_CALL_MS, NULL,
                                                  &error));
  path = g_strconcat (f.base, "/api/expiring", NULL);
  json = describe (instance);
  owned = (OwnedWait) { f.direct, path, f.session, json };
  CU_ASSERT_TRUE (itest_wait_for (owned_with_our_data, &owned, ITEST_WAIT_MS));
  old_id = zkr_session_get_id (f.session);
  CU_ASSERT_TRUE_FATAL (itest_expire_session (f.session));
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.session, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_NOT_EQUAL (zkr_session_get_id (f.session), old_id);
  CU_ASSERT_TRUE (itest_wait_for (owned_with_our_data, &owned, ITEST_WAIT_MS));
  /* Close deletes it: nothing of ours is left. */
  CU_ASSERT_TRUE (zkr_service_discovery_close (f.discovery, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_node_absent (f.direct, path));
  fixture_finish (&f);
}

/* The member our session is on dies: the session moves to another one and
 * the registration stays, the same node of the same session, our data. */
static void
test_discovery__a_dynamic_registration_survives_a_killed_member (void)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) instance = make_instance ("api", "through-a-kill", 7150,
                                                           ZKR_SERVICE_DYNAMIC);
  g_autofree char *followers = itest_followers_hosts ();
  g_autofree char *path = NULL, *json = NULL, *host = NULL, *command = NULL;
  OwnedWait owned;
  gint64 id, moved_by;
  guint server;

  fixture_init_hosts (&f, "discovery-kill", followers);
  CU_ASSERT_TRUE (zkr_service_discovery_register (f.discovery, instance, ITEST_CALL_MS, NULL,
                                                  &error));
  path = g_strconcat (f.base, "/api/through-a-kill", NULL);
  json = describe (instance);
  owned = (OwnedWait) { f.direct, path, f.session, json };
  CU_ASSERT_TRUE (itest_wait_for (owned_with_our_data, &owned, ITEST_WAIT_MS));
  id = zkr_session_get_id (f.session);
  host = zkr_session_dup_connected_host (f.session);
  server = itest_server_index (host);
  CU_ASSERT_FATAL (server > 0);
  command = g_strdup_printf ("kill %u", server);
  CU_ASSERT_FATAL (itest_ensemble (command));
  moved_by = g_get_monotonic_time () + (gint64) ITEST_WAIT_MS * 1000;
  for (;;)
    {
      g_autofree char *now = zkr_session_dup_connected_host (f.session);

      if ((now != NULL && g_strcmp0 (now, host) != 0) || g_get_monotonic_time () > moved_by)
        break;
      g_usleep (20 * 1000);
    }
  CU_ASSERT_TRUE (zkr_session_wait_connected (f.session, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_EQUAL (zkr_session_get_id (f.session), id);
  CU_ASSERT_TRUE (itest_wait_for (owned_with_our_data, &owned, ITEST_WAIT_MS));
  g_free (command);
  command = g_strdup_printf ("restart %u", server);
  CU_ASSERT (itest_ensemble (command));
  CU_ASSERT_TRUE (zkr_service_discovery_close (f.discovery, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_TRUE (itest_node_absent (f.direct, path));
  fixture_finish (&f);
}

static void
test_discovery__calls_answer_by_the_deadline_in_every_state (void)
{
  ItestProxied f;
  g_autoptr (GError) error = NULL;
  g_autofree char *base = NULL;
  g_autoptr (ZkrServiceDiscovery) discovery = NULL;
  g_autoptr (ZkrServiceInstance) first = make_instance ("api", "first", 7200,
                                                        ZKR_SERVICE_DYNAMIC);
  g_autoptr (ZkrServiceInstance) second = make_instance ("api", "second", 7300,
                                                         ZKR_SERVICE_STATIC);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  GPtrArray *instances;
  char **names;

  itest_proxied_init (&f, NULL, "discovery-deadline", 10000);
  base = g_strconcat (f.root, "/services", NULL);
  discovery = zkr_service_discovery_new (f.proxied, base, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
  CU_ASSERT_TRUE (zkr_service_discovery_register (discovery, first, ITEST_CALL_MS, NULL,
                                                  &error));

  /* A silent link (then SUSPENDED): every call answers TIMEOUT. The write
   * first, while the client still waits for its answer (once the client
   * gives the link up, a write in flight is CONNECTION_LOSS: node.h). */
  itest_proxied_black_hole (&f);
  CU_ASSERT_FALSE (zkr_service_discovery_register (discovery, second, SHORT_TIMEOUT_MS, NULL,
                                                   &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  instances = zkr_service_discovery_query_instances (discovery, "api", SHORT_TIMEOUT_MS, NULL,
                                                     &error);
  CU_ASSERT_PTR_NULL (instances);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  names = zkr_service_discovery_query_names (discovery, SHORT_TIMEOUT_MS, NULL, &error);
  CU_ASSERT_PTR_NULL (names);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  CU_ASSERT_TRUE (itest_recorder_wait_state (f.recorder, ZKR_SESSION_STATE_SUSPENDED, 0,
                                             ITEST_WAIT_MS, NULL) >= 0);
  CU_ASSERT_FALSE (zkr_service_discovery_update (discovery, first, SHORT_TIMEOUT_MS, NULL,
                                                 &error));
  ITEST_ASSERT_CODE (error, ZKR_ERROR_TIMEOUT);
  g_clear_error (&error);
  g_cancellable_cancel (cancellable);
  instances = zkr_service_discovery_query_instances (discovery, "api", -1, cancellable, &error);
  CU_ASSERT_PTR_NULL (instances);
  ITEST_ASSERT_CANCELLED (error);
  g_clear_error (&error);

  /* CLOSED: at once. */
  zkr_session_close (f.proxied);
  names = zkr_service_discovery_query_names (discovery, SHORT_TIMEOUT_MS, NULL, &error);
  CU_ASSERT_PTR_NULL (names);
  ITEST_ASSERT_CODE (error, ZKR_ERROR_SESSION_CLOSED);
  g_clear_error (&error);
  g_clear_pointer (&discovery, zkr_service_discovery_unref);
  itest_recorder_free (f.recorder);
  g_clear_pointer (&f.proxied, zkr_session_unref);
  itest_proxied_finish (&f, TRUE);
}

static void
test_discovery__bad_input_is_named (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autoptr (ZkrServiceDiscovery) discovery = NULL;
  g_autoptr (GError) error = NULL;
  static const char *const bad_names[] = { "", ".", "..", "x/y", "tab\there" };

  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      CU_ASSERT_PTR_NULL (zkr_service_instance_new (bad_names[i], "id", &error));
      itest_assert_invalid_naming (error, bad_names[i]);
      g_clear_error (&error);
    }
  CU_ASSERT_PTR_NULL (zkr_service_discovery_new (session, "/", &error));
  itest_assert_invalid_naming (error, "/");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_discovery_new (session, "services", &error));
  itest_assert_invalid_naming (error, "services");
  g_clear_error (&error);
  discovery = zkr_service_discovery_new (session, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
  CU_ASSERT_STRING_EQUAL (zkr_service_discovery_get_base_path (discovery), "/services");
  CU_ASSERT_FALSE (zkr_service_discovery_unregister (discovery, "api", "a/b", ITEST_CALL_MS,
                                                     NULL, &error));
  itest_assert_invalid_naming (error, "a/b");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_discovery_query_instances (discovery, "..", ITEST_CALL_MS,
                                                             NULL, &error));
  itest_assert_invalid_naming (error, "..");
  g_clear_error (&error);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_discovery__register_update_unregister_and_query_round_trip),
  ZKR_TEST_CASE (test_discovery__malformed_instances_are_skipped_beside_valid_ones),
  ZKR_TEST_CASE (test_discovery__deeply_nested_foreign_nodes_are_skipped_beside_valid_ones),
  ZKR_TEST_CASE (test_discovery__an_instance_json_cannot_hold_is_not_registered),
  ZKR_TEST_CASE (test_discovery__a_dynamic_registration_is_back_after_its_session_expired),
  ZKR_TEST_CASE (test_discovery__a_dynamic_registration_survives_a_killed_member),
  ZKR_TEST_CASE (test_discovery__calls_answer_by_the_deadline_in_every_state),
  ZKR_TEST_CASE (test_discovery__bad_input_is_named),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "discovery", NULL, NULL, tests);
}
