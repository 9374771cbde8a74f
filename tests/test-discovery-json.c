/* zkr unit tests: the service instance's JSON (recipes/presence/discovery-json.c)
 * against text Curator 5.4.0's JsonInstanceSerializer (Debian's
 * libcurator-discovery-java) wrote and reads; docs/design.md, "Service
 * discovery", lists what the jar does. */
#include <math.h>
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
  g_autofree char *json = zkr_service_instance_to_json (instance, NULL, NULL);

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

/* Payload numbers that json-glib alone writes as no JSON at all
 * ("1e+234.0"): written as JSON numbers that read back to the same text;
 * ".0" stays where it belongs, and strings are untouched. */
static void
test_discovery_json__payload_numbers_are_written_as_json (void)
{
  static const char in[] =
    "{\"name\":\"s\",\"id\":\"i\",\"address\":\"a\",\"port\":null,\"sslPort\":null,"
    "\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"big\":1e234,"
    "\"small\":-2.5e-300,\"one\":1.0,\"text\":\"1e+234.0 inf.0\",\"n\":null},"
    "\"registrationTimeUTC\":1,\"serviceType\":\"DYNAMIC\",\"uriSpec\":null}";
  static const char out[] =
    "{\"name\":\"s\",\"id\":\"i\",\"address\":\"a\",\"port\":null,\"sslPort\":null,"
    "\"payload\":{\"@class\":\"java.util.LinkedHashMap\",\"big\":1e+234,"
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
  json = zkr_service_instance_to_json (instance, NULL, NULL);
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

/* Text nesting @depth arrays, then as many closings (transfer full). */
static char *
nested_arrays (guint depth)
{
  GString *text = g_string_sized_new (2 * depth);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

/* An instance whose payload nests objects so that the whole text nests
 * @depth levels, the instance's own object counting as one. */
static char *
instance_nesting (guint depth)
{
  GString *text = g_string_new ("{\"name\":\"s\",\"id\":\"i\",\"payload\":");

  for (guint i = 1; i < depth; i++)
    g_string_append (text, "{\"a\":");
  g_string_append (text, "1");
  for (guint i = 1; i < depth; i++)
    g_string_append_c (text, '}');
  g_string_append_c (text, '}');
  return g_string_free (text, FALSE);
}

static void
assert_refused_naming (const char *text, gsize len, const char *named)
{
  g_autoptr (GError) error = NULL;
  ZkrServiceInstance *instance = zkr_service_instance_from_json (text, len, &error);

  CU_ASSERT_PTR_NULL (instance);
  zkr_service_instance_free (instance);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  if (error != NULL && strstr (error->message, named) == NULL)
    g_printerr ("\"%s\" not in: %s\n", named, error->message);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, named) != NULL);
}

/* A foreign node of 100,000 '[' then as many ']' overflowed json-glib's
 * recursive parser's stack: refused before it is parsed, naming its depth
 * and the limit; an instance at the limit is read and written back. */
static void
test_discovery_json__nesting_over_the_limit_is_refused_before_parsing (void)
{
  g_autofree char *deep = nested_arrays (100000);
  g_autofree char *at_limit = instance_nesting (ZKR_SERVICE_INSTANCE_MAX_DEPTH);
  g_autofree char *over = instance_nesting (ZKR_SERVICE_INSTANCE_MAX_DEPTH + 1);
  g_autofree char *over_depth = g_strdup_printf ("%d", ZKR_SERVICE_INSTANCE_MAX_DEPTH + 1);
  g_autofree char *limit = g_strdup_printf ("%d", ZKR_SERVICE_INSTANCE_MAX_DEPTH);
  g_autoptr (ZkrServiceInstance) instance = NULL;
  g_autoptr (ZkrServiceInstance) again = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  assert_refused_naming (deep, strlen (deep), "100000");
  assert_refused_naming (deep, strlen (deep), limit);
  assert_refused_naming (over, strlen (over), over_depth);
  /* Brackets inside strings, escaped quotes included, are no nesting. */
  {
    g_autofree char *quoted = g_strdup_printf ("{\"name\":\"s\\\"[[\",\"id\":\"i\",\"x\":\"%s\"}",
                                               deep);

    instance = zkr_service_instance_from_json (quoted, strlen (quoted), &error);
    CU_ASSERT_PTR_NOT_NULL (instance);
    CU_ASSERT_PTR_NULL (error);
    g_clear_pointer (&instance, zkr_service_instance_free);
    g_clear_error (&error);
  }
  instance = zkr_service_instance_from_json (at_limit, strlen (at_limit), &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (instance);
  json = zkr_service_instance_to_json (instance, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (json);
  again = zkr_service_instance_from_json (json, strlen (json), &error);
  CU_ASSERT_PTR_NOT_NULL (again);
}

/* Text over ZKR_SERVICE_INSTANCE_MAX_SIZE is refused unread, naming its
 * size and the limit; at the limit it is read. */
static void
test_discovery_json__text_over_the_size_limit_is_refused (void)
{
  static const char head[] = "{\"name\":\"s\",\"id\":\"i\"}";
  gsize size = ZKR_SERVICE_INSTANCE_MAX_SIZE;
  g_autofree char *text = g_malloc (size + 1);
  g_autofree char *over_size = g_strdup_printf ("%" G_GSIZE_FORMAT, size + 1);
  g_autofree char *limit = g_strdup_printf ("%" G_GSIZE_FORMAT, size);
  g_autoptr (ZkrServiceInstance) instance = NULL;

  memset (text, ' ', size + 1);
  memcpy (text, head, strlen (head));
  instance = zkr_service_instance_from_json (text, size, NULL);
  CU_ASSERT_PTR_NOT_NULL (instance);
  assert_refused_naming (text, size + 1, over_size);
  assert_refused_naming (text, size + 1, limit);
}

/* What g_bytes_get_data() gives for an empty node (NULL, 0) dereferenced
 * a NULL parse error: foreign data, refused as empty. */
static void
test_discovery_json__empty_data_is_refused_not_a_crash (void)
{
  assert_refused_naming (NULL, 0, "empty");
  assert_refused_naming ("", 0, "empty");
}

/* A number JSON cannot hold (an infinity read from "1e999") is refused on
 * reading, naming where it is: it could not be written back. */
static void
test_discovery_json__a_number_out_of_range_is_refused_naming_its_member (void)
{
  static const char huge[] =
    "{\"name\":\"s\",\"id\":\"i\",\"payload\":{\"@class\":\"java.util.LinkedHashMap\","
    "\"ok\":1,\"huge\":1e999}}";
  static const char in_list[] =
    "{\"name\":\"s\",\"id\":\"i\",\"payload\":[\"java.util.ArrayList\",[1,-1e999]]}";

  assert_refused_naming (huge, strlen (huge), "/huge");
  assert_refused_naming (in_list, strlen (in_list), "/1");
}

/* The writer promises UTF-8 JSON: a string that is not UTF-8, a NaN or an
 * infinity (which JSON has not) and a payload nested over the limit are
 * refused, naming the field; nothing is written silently wrong. */
static void
assert_not_written (const ZkrServiceInstance *instance, const char *named)
{
  g_autoptr (GError) error = NULL;
  gsize len = 7;
  g_autofree char *json = zkr_service_instance_to_json (instance, &len, &error);

  if (json != NULL)
    g_printerr ("written: %s\n", json);
  CU_ASSERT_PTR_NULL (json);
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  if (error != NULL && strstr (error->message, named) == NULL)
    g_printerr ("\"%s\" not in: %s\n", named, error->message);
  CU_ASSERT_TRUE (error != NULL && strstr (error->message, named) != NULL);
}

static JsonNode *
payload_with (const char *member, JsonNode *value)
{
  g_autoptr (JsonObject) object = json_object_new ();
  JsonNode *payload = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (object, "fine", 1);
  json_object_set_member (object, member, value);
  json_node_set_object (payload, object);
  return payload;
}

static void
test_discovery_json__what_json_cannot_hold_is_not_written (void)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("s", "i", NULL);
  const double bad_numbers[] = { NAN, INFINITY, -INFINITY };

  zkr_service_instance_set_address (instance, "10.0.0.\xff");
  assert_not_written (instance, "address");
  zkr_service_instance_set_address (instance, "10.0.0.1");
  for (guint i = 0; i < G_N_ELEMENTS (bad_numbers); i++)
    {
      g_autoptr (JsonNode) payload = payload_with ("w", json_node_init_double (
                                                          json_node_alloc (), bad_numbers[i]));

      zkr_service_instance_set_payload (instance, payload);
      assert_not_written (instance, "/w");
    }
  {
    g_autoptr (JsonNode) payload = payload_with ("k", json_node_init_string (json_node_alloc (),
                                                                            "v\xc3"));

    zkr_service_instance_set_payload (instance, payload);
    assert_not_written (instance, "/k");
  }
  {
    g_autoptr (JsonNode) payload = payload_with ("k\xff", json_node_init_int (json_node_alloc (),
                                                                             1));

    zkr_service_instance_set_payload (instance, payload);
    assert_not_written (instance, "payload");
  }
  /* A list payload nested so deep that the text would be over the limit
   * (written inside the instance's object and Curator's [class, list]). */
  {
    g_autoptr (JsonNode) payload = json_node_init_int (json_node_alloc (), 1);
    g_autoptr (GError) error = NULL;
    g_autofree char *json = NULL;
    g_autofree char *limit = g_strdup_printf ("%d", ZKR_SERVICE_INSTANCE_MAX_DEPTH);

    for (guint i = 0; i < ZKR_SERVICE_INSTANCE_MAX_DEPTH - 2; i++)
      {
        JsonArray *array = json_array_new ();

        json_array_add_element (array, g_steal_pointer (&payload));
        payload = json_node_init_array (json_node_alloc (), array);
        json_array_unref (array);
      }
    zkr_service_instance_set_payload (instance, payload);
    json = zkr_service_instance_to_json (instance, NULL, &error);
    CU_ASSERT_PTR_NOT_NULL (json);
    {
      JsonArray *array = json_array_new ();

      json_array_add_element (array, g_steal_pointer (&payload));
      payload = json_node_init_array (json_node_alloc (), array);
      json_array_unref (array);
    }
    zkr_service_instance_set_payload (instance, payload);
    assert_not_written (instance, limit);
  }
}

/* A payload from text (what `zkr register --payload` takes) is bounded
 * like an instance before it is parsed. */
static void
test_discovery_json__payload_text_is_bounded_before_parsing (void)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("s", "i", NULL);
  g_autofree char *deep = nested_arrays (100000);
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  CU_ASSERT_FALSE (zkr_service_instance_set_payload_from_json (instance, deep, -1, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT)
                  && strstr (error->message, "100000") != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_service_instance_set_payload_from_json (instance, "{\"x\":1e999}", -1,
                                                               &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT)
                  && strstr (error->message, "/x") != NULL);
  g_clear_error (&error);
  CU_ASSERT_FALSE (zkr_service_instance_set_payload_from_json (instance, "{", -1, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (zkr_service_instance_get_payload (instance));
  CU_ASSERT_TRUE (zkr_service_instance_set_payload_from_json (instance, "{\"k\":[1,2]}", 11,
                                                              &error));
  json = zkr_service_instance_to_json (instance, NULL, &error);
  CU_ASSERT_TRUE (json != NULL
                  && strstr (json, "\"payload\":{\"@class\":\"java.util.LinkedHashMap\","
                                   "\"k\":[1,2]}") != NULL);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_discovery_json__curators_map_instance_is_read_and_written_back_the_same),
  ZKR_TEST_CASE (test_discovery_json__curators_list_payload_is_unwrapped_and_wrapped_again),
  ZKR_TEST_CASE (test_discovery_json__payload_numbers_are_written_as_json),
  ZKR_TEST_CASE (test_discovery_json__missing_fields_take_curators_defaults),
  ZKR_TEST_CASE (test_discovery_json__disabled_is_written_and_read_back),
  ZKR_TEST_CASE (test_discovery_json__what_is_not_an_instance_is_refused),
  ZKR_TEST_CASE (test_discovery_json__bad_values_are_named),
  ZKR_TEST_CASE (test_discovery_json__nesting_over_the_limit_is_refused_before_parsing),
  ZKR_TEST_CASE (test_discovery_json__text_over_the_size_limit_is_refused),
  ZKR_TEST_CASE (test_discovery_json__empty_data_is_refused_not_a_crash),
  ZKR_TEST_CASE (test_discovery_json__a_number_out_of_range_is_refused_naming_its_member),
  ZKR_TEST_CASE (test_discovery_json__what_json_cannot_hold_is_not_written),
  ZKR_TEST_CASE (test_discovery_json__payload_text_is_bounded_before_parsing),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "discovery-json", NULL, NULL, tests);
}
