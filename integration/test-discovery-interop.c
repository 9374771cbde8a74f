/* zkr integration: service discovery against Curator's own
 * (integration/interop/DiscoveryPeer, Debian's curator-x-discovery): a
 * Java ServiceDiscovery lists the instances zkr registered with every field
 * equal, payload included, and zkr lists the ones Java registered the
 * same. */
#include "itest-child.h"
#include "itest.h"
#include "zkr-test.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zkr/zkr.h>

#define SESSION_MS 10000
#define WAIT_MS ITEST_WAIT_MS

static ItestChild *
peer_start (const char *base)
{
  const char *classpath = g_getenv ("ZKR_INTEROP_CLASSPATH");

  CU_ASSERT_PTR_NOT_NULL_FATAL (classpath);
  return itest_child_spawn ("DiscoveryPeer", (const char *const[]) { "java", "-cp", classpath,
                                                                     "DiscoveryPeer",
                                                                     itest_hosts (), base,
                                                                     NULL });
}

static void
peer_quit (ItestChild *peer)
{
  itest_child_send (peer, "quit");
  itest_child_expect (peer, "OK");
  CU_ASSERT_EQUAL (itest_child_finish (peer), 0);
}

/* An answer "OK ..." (a register's). */
static void
peer_expect_ok (ItestChild *peer)
{
  g_autofree char *line = itest_child_answer (peer, g_get_monotonic_time () + (gint64) WAIT_MS * 1000);

  if (line == NULL || !g_str_has_prefix (line, "OK "))
    g_printerr ("DiscoveryPeer answered '%s'\n", line != NULL ? line : "(nothing)");
  CU_ASSERT_TRUE (line != NULL && g_str_has_prefix (line, "OK "));
}

/* The peer's answer to @command ("list NAME", "cached NAME COUNT MS"):
 * its INSTANCE lines joined by newlines, or NULL if it did not answer "OK
 * COUNT". (transfer full) */
static char *
peer_instances (ItestChild *peer, const char *command)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) WAIT_MS * 1000;
  GString *lines = g_string_new (NULL);
  char *line;

  itest_child_send (peer, command);
  while ((line = itest_child_answer (peer, deadline)) != NULL && g_str_has_prefix (line, "INSTANCE "))
    {
      g_string_append_printf (lines, "%s%s", lines->len > 0 ? "\n" : "", line);
      g_free (line);
    }
  if (line == NULL || !g_str_has_prefix (line, "OK "))
    {
      g_printerr ("DiscoveryPeer: %s answered '%s'\n", command, line != NULL ? line : "(nothing)");
      g_free (line);
      g_string_free (lines, TRUE);
      return NULL;
    }
  g_free (line);
  return g_string_free (lines, FALSE);
}

static char *
peer_list (ItestChild *peer, const char *name)
{
  g_autofree char *command = g_strdup_printf ("list %s", name);

  return peer_instances (peer, command);
}

/* Java's class for a payload read by Jackson as Object. */
static const char *
payload_class (JsonNode *payload)
{
  if (JSON_NODE_HOLDS_OBJECT (payload))
    return "java.util.LinkedHashMap";
  if (JSON_NODE_HOLDS_ARRAY (payload))
    return "java.util.ArrayList";
  return json_node_get_value_type (payload) == G_TYPE_STRING ? "java.lang.String" : "other";
}

static char *
dash_or_int (int value)
{
  return value < 0 ? g_strdup ("-") : g_strdup_printf ("%d", value);
}

/* The instance as DiscoveryPeer's describe() prints it. (transfer full) */
static char *
describe (const ZkrServiceInstance *instance)
{
  static const char *const types[] = { "DYNAMIC", "STATIC", "PERMANENT", "DYNAMIC_SEQUENTIAL" };
  JsonNode *payload = zkr_service_instance_get_payload (instance);
  g_autofree char *port = dash_or_int (zkr_service_instance_get_port (instance));
  g_autofree char *ssl_port = dash_or_int (zkr_service_instance_get_ssl_port (instance));
  g_autofree char *payload_json = payload != NULL ? json_to_string (payload, FALSE)
                                                  : g_strdup ("null");
  const char *address = zkr_service_instance_get_address (instance);
  const char *uri_spec = zkr_service_instance_get_uri_spec (instance);

  return g_strdup_printf ("INSTANCE %s %s %s %s %s %" G_GINT64_FORMAT " %s %s %s %s %s",
                          zkr_service_instance_get_name (instance),
                          zkr_service_instance_get_id (instance),
                          address != NULL ? address : "-", port, ssl_port,
                          zkr_service_instance_get_registration_time (instance),
                          types[zkr_service_instance_get_service_type (instance)],
                          zkr_service_instance_is_enabled (instance) ? "true" : "false",
                          uri_spec != NULL ? uri_spec : "-",
                          payload != NULL ? payload_class (payload) : "-", payload_json);
}

static char *
describe_all (GPtrArray *instances)
{
  GString *lines = g_string_new (NULL);

  for (guint i = 0; i < instances->len; i++)
    {
      g_autofree char *line = describe (g_ptr_array_index (instances, i));

      g_string_append_printf (lines, "%s%s", i > 0 ? "\n" : "", line);
    }
  return g_string_free (lines, FALSE);
}

static ZkrServiceInstance *
make_instance (const char *id, const char *payload_json, ZkrServiceType type, gboolean enabled)
{
  g_autoptr (JsonNode) payload = json_from_string (payload_json, NULL);
  ZkrServiceInstance *instance = zkr_service_instance_new ("api", id, NULL);

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  zkr_service_instance_set_address (instance, "10.1.2.3");
  CU_ASSERT_TRUE (zkr_service_instance_set_port (instance, 8080, NULL));
  CU_ASSERT_TRUE (zkr_service_instance_set_ssl_port (instance, 8443, NULL));
  zkr_service_instance_set_payload (instance, payload);
  zkr_service_instance_set_registration_time (instance, 1700000000123);
  CU_ASSERT_TRUE (zkr_service_instance_set_service_type (instance, type, NULL));
  zkr_service_instance_set_enabled (instance, enabled);
  CU_ASSERT_TRUE (zkr_service_instance_set_uri_spec (instance, "{scheme}://{address}:{port}/x",
                                                     NULL));
  return instance;
}

/* ---- tests -------------------------------------------------------------------------- */

static void
test_discovery_interop__curator_lists_zkrs_instances_with_every_field (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("discovery-to-java");
  g_autofree char *base = g_strconcat (root, "/services", NULL);
  g_autoptr (ZkrServiceDiscovery) discovery = zkr_service_discovery_new (session, base, NULL);
  g_autoptr (ZkrServiceInstance) one = make_instance ("c-one", "{\"zone\":\"eu\",\"w\":[1,2]}",
                                                      ZKR_SERVICE_DYNAMIC, TRUE);
  g_autoptr (ZkrServiceInstance) two = make_instance ("c-two", "\"hello\"",
                                                      ZKR_SERVICE_STATIC, FALSE);
  g_autofree char *line_one = describe (one), *line_two = describe (two);
  g_autofree char *expected = g_strconcat (line_one, "\n", line_two, NULL);
  g_autofree char *listed = NULL;
  ItestChild *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
  CU_ASSERT_TRUE (zkr_service_discovery_register (discovery, one, ITEST_CALL_MS, NULL, NULL));
  CU_ASSERT_TRUE (zkr_service_discovery_register (discovery, two, ITEST_CALL_MS, NULL, NULL));
  peer = peer_start (base);
  listed = peer_list (peer, "api");
  CU_ASSERT_PTR_NOT_NULL (listed);
  if (listed != NULL && strcmp (listed, expected) != 0)
    g_printerr ("Java listed:\n%s\nzkr registered:\n%s\n", listed, expected);
  CU_ASSERT_STRING_EQUAL (listed != NULL ? listed : "", expected);

  /* Unregistered here, gone there. */
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (discovery, "api", "c-one", ITEST_CALL_MS,
                                                    NULL, NULL));
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (discovery, "api", "c-two", ITEST_CALL_MS,
                                                    NULL, NULL));
  g_clear_pointer (&listed, g_free);
  listed = peer_list (peer, "api");
  CU_ASSERT_STRING_EQUAL (listed != NULL ? listed : "(none)", "");
  peer_quit (peer);
  itest_cleanup_root (session, NULL, root);
  itest_assert_path_clean (session, root);
}

static void
test_discovery_interop__zkr_lists_curators_instances_with_every_field (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("discovery-from-java");
  g_autofree char *base = g_strconcat (root, "/services", NULL);
  g_autoptr (ZkrServiceDiscovery) discovery = zkr_service_discovery_new (session, base, NULL);
  g_autoptr (GPtrArray) instances = NULL;
  g_autofree char *java_view = NULL, *zkr_view = NULL;
  ItestChild *peer = peer_start (base);

  CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
  itest_child_send (peer, "register api j-one 10.9.8.7 8000 8001 1700000000999 DYNAMIC true "
                    "{scheme}://{address}:{port} {\"zone\":\"us\",\"n\":[3,{\"d\":true}]}");
  peer_expect_ok (peer);
  itest_child_send (peer, "register api j-two - - - 42 PERMANENT false - \"text payload\"");
  peer_expect_ok (peer);
  java_view = peer_list (peer, "api");
  CU_ASSERT_PTR_NOT_NULL_FATAL (java_view);
  /* The jar's default serializer does not write "enabled": its own reader
   * then says true for the instance registered disabled (and so must we). */
  CU_ASSERT_PTR_NOT_NULL (strstr (java_view, " 42 PERMANENT true - java.lang.String"));

  instances = zkr_service_discovery_query_instances (discovery, "api", ITEST_CALL_MS, NULL,
                                                     NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (instances);
  zkr_view = describe_all (instances);
  if (strcmp (zkr_view, java_view) != 0)
    g_printerr ("zkr listed:\n%s\nJava listed:\n%s\n", zkr_view, java_view);
  CU_ASSERT_STRING_EQUAL (zkr_view, java_view);

  itest_child_send (peer, "unregister j-one");
  itest_child_expect (peer, "OK");
  itest_child_send (peer, "unregister j-two");
  itest_child_expect (peer, "OK");
  g_clear_pointer (&instances, g_ptr_array_unref);
  instances = zkr_service_discovery_query_instances (discovery, "api", ITEST_CALL_MS, NULL,
                                                     NULL);
  CU_ASSERT_TRUE (instances != NULL && instances->len == 0);
  peer_quit (peer);
  itest_cleanup_root (session, NULL, root);
  itest_assert_path_clean (session, root);
}

/* Curator's ServiceCache (kept by Java's own watches) sees a zkr
 * instance come, with every field, and go. */
static void
test_discovery_interop__curators_service_cache_sees_a_zkr_instance_come_and_go (void)
{
  g_autoptr (ZkrSession) session = itest_connect (itest_hosts (), SESSION_MS);
  g_autofree char *root = itest_scratch_path ("discovery-java-cache");
  g_autofree char *base = g_strconcat (root, "/services", NULL);
  g_autoptr (ZkrServiceDiscovery) discovery = zkr_service_discovery_new (session, base, NULL);
  g_autoptr (ZkrServiceInstance) one = make_instance ("c-cached", "{\"zone\":\"ap\"}",
                                                      ZKR_SERVICE_DYNAMIC, TRUE);
  g_autofree char *expected = describe (one);
  g_autofree char *cached = NULL;
  g_autofree char *wait_one = g_strdup_printf ("cached api 1 %d", WAIT_MS);
  g_autofree char *wait_none = g_strdup_printf ("cached api 0 %d", WAIT_MS);
  ItestChild *peer;

  CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
  peer = peer_start (base);
  itest_child_send (peer, "cache api");
  itest_child_expect (peer, "OK");
  CU_ASSERT_TRUE (zkr_service_discovery_register (discovery, one, ITEST_CALL_MS, NULL, NULL));
  cached = peer_instances (peer, wait_one);
  CU_ASSERT_STRING_EQUAL (cached != NULL ? cached : "(none)", expected);
  g_clear_pointer (&cached, g_free);
  CU_ASSERT_TRUE (zkr_service_discovery_unregister (discovery, "api", "c-cached", ITEST_CALL_MS,
                                                    NULL, NULL));
  cached = peer_instances (peer, wait_none);
  CU_ASSERT_STRING_EQUAL (cached != NULL ? cached : "(none)", "");
  peer_quit (peer);
  itest_cleanup_root (session, NULL, root);
  itest_assert_path_clean (session, root);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_discovery_interop__curator_lists_zkrs_instances_with_every_field),
  ZKR_TEST_CASE (test_discovery_interop__zkr_lists_curators_instances_with_every_field),
  ZKR_TEST_CASE (test_discovery_interop__curators_service_cache_sees_a_zkr_instance_come_and_go),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "discovery-interop", NULL, NULL, tests);
}
