/* libFuzzer target: the service instance JSON reader
 * (recipes/presence/discovery-json.c). Whatever the bytes, the reader answers an
 * instance or an error, never crashes (deep nesting included: `run` gives
 * this target long inputs, and its seeds nest at, over and far over
 * ZKR_SERVICE_INSTANCE_MAX_DEPTH); an instance it accepts is written back
 * as text it reads again to the same instance (the writer's output is a
 * fixed point). The same bytes as a payload's text: refused, or an
 * instance that is written and read back the same. */

#include <string.h>

#include "discovery-private.h"

#include <zkr/error.h>

#define CHECK(cond) ((cond) ? (void) 0 : __builtin_trap ())

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* The bytes as zkr_service_instance_set_payload_from_json() takes them. */
static void
fuzz_payload (const guint8 *data, size_t size)
{
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_new ("s", "i", NULL);
  g_autoptr (ZkrServiceInstance) again = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL, *json_again = NULL;
  gsize len = 0;

  if (!zkr_service_instance_set_payload_from_json (instance, (const char *) data,
                                                   (gssize) size, &error))
    {
      CHECK (error != NULL && error->domain == ZKR_ERROR
             && error->code == ZKR_ERROR_INVALID_ARGUMENT);
      CHECK (zkr_service_instance_get_payload (instance) == NULL);
      return;
    }
  json = zkr_service_instance_to_json (instance, &len, NULL);
  CHECK (json != NULL && strlen (json) == len);
  again = zkr_service_instance_from_json (json, len, NULL);
  CHECK (again != NULL);
  json_again = zkr_service_instance_to_json (again, NULL, NULL);
  CHECK (json_again != NULL && strcmp (json, json_again) == 0);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrServiceInstance) instance = zkr_service_instance_from_json (data, size, &error);
  g_autoptr (ZkrServiceInstance) again = NULL;
  g_autoptr (ZkrServiceInstance) copy = NULL;
  g_autofree char *json = NULL, *json_again = NULL, *json_copy = NULL;
  gsize len = 0;
  int port;

  fuzz_payload (data, size);
  CHECK ((instance == NULL) == (error != NULL));
  if (instance == NULL)
    {
      CHECK (error->domain == ZKR_ERROR && error->code == ZKR_ERROR_INVALID_ARGUMENT);
      return 0;
    }
  CHECK (zkr_service_instance_get_name (instance) != NULL);
  CHECK (zkr_service_instance_get_id (instance) != NULL);
  port = zkr_service_instance_get_port (instance);
  CHECK (port >= -1 && port <= 65535);
  port = zkr_service_instance_get_ssl_port (instance);
  CHECK (port >= -1 && port <= 65535);
  CHECK ((guint) zkr_service_instance_get_service_type (instance) <= ZKR_SERVICE_DYNAMIC_SEQUENTIAL);

  json = zkr_service_instance_to_json (instance, &len, NULL);
  CHECK (json != NULL && strlen (json) == len);
  again = zkr_service_instance_from_json (json, len, NULL);
  CHECK (again != NULL);
  json_again = zkr_service_instance_to_json (again, NULL, NULL);
  CHECK (json_again != NULL && strcmp (json, json_again) == 0);
  copy = zkr_service_instance_copy (instance);
  json_copy = zkr_service_instance_to_json (copy, NULL, NULL);
  CHECK (json_copy != NULL && strcmp (json, json_copy) == 0);
  return 0;
}
