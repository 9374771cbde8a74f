/* zkr unit tests: the service instance's JSON (recipes/discovery-json.c)
 * against text Curator 5.4.0's JsonInstanceSerializer (Debian's
 * libcurator-discovery-java) wrote and reads; docs/design.md, "Service
 * discovery", lists what the jar does. */
#include <string.h>

#include "discovery-private.h"
#include "zkr-test.h"

#include <zkr/error.h>

/* What the jar wrote for name svc, id id1, address 10.0.0.1, ports 8080
 * and 8443, a Map payload {k: v, n: 3}, time 1234, DYNAMIC, URI spec
 * "{scheme}://foo.com:{port}", with its default serializer. */
static const char curator_map[] =
  "{\"name\":\"svc\",\"id\":\"id1\",\"address\":\"10.0.0.1\",\"port\":8080,\"sslPort\":8443,"
  "\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"k\":\"v\",\"n\":3},"
  "\"registrationTimeUTC\":1234,\"serviceType\":\"DYNAMIC\",\"uriSpec\":{\"parts\":["
  "{\"value\":\"scheme\",\"variable\":true},{\"value\":\"://foo.com:\",\"variable\":false},"
  "{\"value\":\"port\",\"variable\":true}]}}";
/* A List payload [1, "a"], nothing else set. */
static const char curator_list[] =
  "{\"name\":\"s\",\"id\":\"i\",\"address\":\"a\",\"port\":null,\"sslPort\":null,"
  "\"payload\":[\"java.util.ArrayList\",[1,\"a\"]],\"registrationTimeUTC\":1,"
  "\"serviceType\":\"DYNAMIC\",\"uriSpec\":null}";

static ZkrServiceInstance *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  ZkrServiceInstance *instance = zkr_service_instance_from_json (text, strlen (text), &error);

  if (instance == NULL)
    g_printerr ("not parsed: %s\n", error->message);
  return instance;
}

static void
assert_writes (const ZkrServiceInstance *instance, const char *expected)
{
  g_autofree char *json = zkr_service_instance_to_json (instance, NULL);

  if (strcmp (json, expected) != 0)
    g_printerr ("wrote    %s\nexpected %s\n", json, expected);
  CU_ASSERT_STRING_EQUAL (json, expected);
}

static void
test_discovery_json__curators_map_instance_is_read_and_written_back_the_same (void)
{
  g_autoptr (ZkrServiceInstance) instance = parse (curator_map);
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autofree char *payload = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  CU_ASSERT_STRING_EQUAL (zkr_service_instance_get_name (instance), "svc");
  CU_ASSERT_STRING_EQUAL (zkr_service_instance_get_id (instance), "id1");
  CU_ASSERT_STRING_EQUAL (zkr_service_instance_get_address (instance), "10.0.0.1");
  CU_ASSERT_EQUAL (zkr_service_instance_get_port (instance), 8080);
  CU_ASSERT_EQUAL (zkr_service_instance_get_ssl_port (instance), 8443);
  CU_ASSERT_EQUAL (zkr_service_instance_get_registration_time (instance), 1234);
  CU_ASSERT_EQUAL (zkr_service_instance_get_service_type (instance), ZKR_SERVICE_DYNAMIC);
  CU_ASSERT_TRUE (zkr_service_instance_is_enabled (instance));
  CU_ASSERT_STRING_EQUAL (zkr_service_instance_get_uri_spec (instance),
                          "{scheme}://foo.com:{port}");
  /* The caller's payload carries no type tag. */
  json_generator_set_root (generator, zkr_service_instance_get_payload (instance));
  payload = json_generator_to_data (generator, NULL);
  CU_ASSERT_STRING_EQUAL (payload, "{\"k\":\"v\",\"n\":3}");
  assert_writes (instance, curator_map);
}

static void
test_discovery_json__curators_list_payload_is_unwrapped_and_wrapped_again (void)
{
  g_autoptr (ZkrServiceInstance) instance = parse (curator_list);
  JsonNode *payload;

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  payload = zkr_service_instance_get_payload (instance);
  CU_ASSERT_TRUE_FATAL (payload != NULL && JSON_NODE_HOLDS_ARRAY (payload));
  CU_ASSERT_EQUAL (json_array_get_length (json_node_get_array (payload)), 2);
  CU_ASSERT_EQUAL (zkr_service_instance_get_port (instance), -1);
  CU_ASSERT_PTR_NULL (zkr_service_instance_get_uri_spec (instance));
  assert_writes (instance, curator_list);
}

/* Payload numbers that json-glib alone writes as no JSON at all ("1e+234.0",
 * "inf.0"): written as JSON numbers (an infinity as null) that read back to
 * the same text; ".0" stays where it belongs, and strings are untouched. */
static void
test_discovery_json__payload_numbers_are_written_as_json (void)
{
  static const char in[] =
    "{\"name\":\"s\",\"id\":\"i\",\"address\":\"a\",\"port\":null,\"sslPort\":null,"
    "\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"big\":1e234,\"huge\":1e999,"
    "\"small\":-2.5e-300,\"one\":1.0,\"text\":\"1e+234.0 inf.0\",\"n\":null},"
    "\"registrationTimeUTC\":1,\"serviceType\":\"DYNAMIC\",\"uriSpec\":null}";
  static const char out[] =
    "{\"name\":\"s\",\"id\":\"i\",\"address\":\"a\",\"port\":null,\"sslPort\":null,"
    "\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"big\":1e+234,\"huge\":null,"
    "\"small\":-2.5e-300,\"one\":1.0,\"text\":\"1e+234.0 inf.0\",\"n\":null},"
    "\"registrationTimeUTC\":1,\"serviceType\":\"DYNAMIC\",\"uriSpec\":null}";
  g_autoptr (ZkrServiceInstance) instance = parse (in);
  g_autoptr (ZkrServiceInstance) again = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  assert_writes (instance, out);
  again = parse (out);
  CU_ASSERT_PTR_NOT_NULL_FATAL (again);
  assert_writes (again, out);
}

static void
test_discovery_json__missing_fields_take_curators_defaults (void)
{
  g_autoptr (ZkrServiceInstance) instance = parse ("{\"name\":\"s\",\"id\":\"i\",\"x\":[]}");

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  CU_ASSERT_PTR_NULL (zkr_service_instance_get_address (instance));
  CU_ASSERT_PTR_NULL (zkr_service_instance_get_payload (instance));
  CU_ASSERT_EQUAL (zkr_service_instance_get_registration_time (instance), 0);
  CU_ASSERT_EQUAL (zkr_service_instance_get_service_type (instance), ZKR_SERVICE_DYNAMIC);
  CU_ASSERT_TRUE (zkr_service_instance_is_enabled (instance));
}

static void
test_discovery_json__disabled_is_written_and_read_back (void)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("s", "i", NULL);
  g_autoptr (ZkrServiceInstance) back = NULL;
  g_autofree char *json = NULL;

  zkr_service_instance_set_enabled (instance, FALSE);
  CU_ASSERT_TRUE (zkr_service_instance_set_service_type (instance, ZKR_SERVICE_PERMANENT, NULL));
  json = zkr_service_instance_to_json (instance, NULL);
  CU_ASSERT_TRUE (g_str_has_suffix (json, "\"serviceType\":\"PERMANENT\",\"uriSpec\":null,"
                                          "\"enabled\":false}"));
  back = parse (json);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  CU_ASSERT_FALSE (zkr_service_instance_is_enabled (back));
  CU_ASSERT_EQUAL (zkr_service_instance_get_service_type (back), ZKR_SERVICE_PERMANENT);
}

static void
test_discovery_json__what_is_not_an_instance_is_refused (void)
{
  static const char *const bad[] = {
    "", "garbage", "\xff\xfe", "[]", "{}", "{\"name\":\"s\"}", "{\"name\":1,\"id\":\"i\"}",
    "{\"name\":\"s\",\"id\":\"i\",\"port\":\"80\"}",
    "{\"name\":\"s\",\"id\":\"i\",\"port\":70000}",
    "{\"name\":\"s\",\"id\":\"i\",\"sslPort\":1.5}",
    "{\"name\":\"s\",\"id\":\"i\",\"serviceType\":\"ODD\"}",
    "{\"name\":\"s\",\"id\":\"i\",\"enabled\":\"yes\"}",
    "{\"name\":\"s\",\"id\":\"i\",\"payload\":[1,2]}",
    "{\"name\":\"s\",\"id\":\"i\",\"uriSpec\":\"x\"}",
    "{\"name\":\"s\",\"id\":\"i\",\"uriSpec\":{\"parts\":[{\"value\":\"{\",\"variable\":false}]}}",
    "{\"name\":\"s\",\"id\":\"i\",\"registrationTimeUTC\":\"now\"}",
    /* Escapes JSON does not have, which json-glib reads as bytes that are
     * not UTF-8 (octal 333 is 0xDB): in a member name, a string, the name. */
    "{\"name\":\"s\",\"id\":\"i\",\"payload\":{\"k\\333\":1}}",
    "{\"name\":\"s\",\"id\":\"i\",\"payload\":{\"k\":[\"v\\333\"]}}",
    "{\"name\":\"s\\333\",\"id\":\"i\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      ZkrServiceInstance *instance = zkr_service_instance_from_json (bad[i], strlen (bad[i]),
                                                                     &error);

      if (instance != NULL)
        g_printerr ("read as an instance: %s\n", bad[i]);
      CU_ASSERT_PTR_NULL (instance);
      zkr_service_instance_free (instance);
      CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
    }
}

static void
test_discovery_json__bad_values_are_named (void)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("s", NULL, NULL);
  g_autoptr (GError) error = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  CU_ASSERT_EQUAL (strlen (zkr_service_instance_get_id (instance)), 36); /* a UUID */
  CU_ASSERT_PTR_NULL (zkr_service_instance_new ("a/b", NULL, &error));
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "\"a/b\"") != NULL);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_instance_new ("s", "..", &error));
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "\"..\"") != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_service_instance_set_port (instance, 70000, &error));
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "70000") != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_service_instance_set_uri_spec (instance, "{a{b}}", &error));
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "{a{b}}") != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_service_instance_set_service_type (instance, (ZkrServiceType) 9, &error));
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, "9") != NULL);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_discovery_json__curators_map_instance_is_read_and_written_back_the_same),
  ZKR_TEST_CASE (test_discovery_json__curators_list_payload_is_unwrapped_and_wrapped_again),
  ZKR_TEST_CASE (test_discovery_json__payload_numbers_are_written_as_json),
  ZKR_TEST_CASE (test_discovery_json__missing_fields_take_curators_defaults),
  ZKR_TEST_CASE (test_discovery_json__disabled_is_written_and_read_back),
  ZKR_TEST_CASE (test_discovery_json__what_is_not_an_instance_is_refused),
  ZKR_TEST_CASE (test_discovery_json__bad_values_are_named),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "discovery-json", NULL, NULL, tests);
}
