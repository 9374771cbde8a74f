/* zkr: the service instance of curator-x-discovery as a value: made,
 * copied, read and set, each field checked as it is set (docs/design.md,
 * "Service discovery"). Its JSON is in discovery-json.c. */
#include <string.h>

#include "discovery-private.h"
#include "path.h"

#include <zkr/error.h>

/* ---- input ------------------------------------------------------------------- */

gboolean
zkr__discovery_instance_validate_name (const char *what, const char *value, GError **error)
{
  const char *bad = NULL;

  if (*value == '\0')
    bad = "it is empty";
  else if (strlen (value) > ZKR_DISCOVERY_NAME_MAX_BYTES)
    bad = "it is longer than ZKR_DISCOVERY_NAME_MAX_BYTES";
  else if (strcmp (value, ".") == 0 || strcmp (value, "..") == 0)
    bad = "it is not a node name";
  else if (strchr (value, '/') != NULL)
    bad = "it contains '/'";
  else if (!g_utf8_validate (value, -1, NULL))
    bad = "it is not UTF-8";
  else
    for (const char *p = value; *p != '\0' && bad == NULL; p++)
      if ((guchar) *p < 0x20 || *p == 0x7f)
        bad = "it contains a control character";
  if (bad == NULL)
    return TRUE;
  {
    g_autofree char *quoted = zkr__path_quote_value (value, -1);

    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "invalid %s %s: %s", what,
                 quoted, bad);
  }
  return FALSE;
}

static gboolean
validate_port (const char *what, gint64 port, GError **error)
{
  if (port >= -1 && port <= 65535)
    return TRUE;
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "invalid %s %" G_GINT64_FORMAT ": not 0..65535 (or -1 for none)", what, port);
  return FALSE;
}

/* Curator's UriSpec parser: '{' opens a variable, '}' closes it, nothing
 * nests, and every variable is closed. */
static gboolean
validate_uri_spec (const char *spec, GError **error)
{
  gboolean inside = FALSE;
  const char *bad = NULL;

  for (const char *p = spec; *p != '\0' && bad == NULL; p++)
    if (*p == '{')
      bad = inside ? "'{' inside a variable" : NULL, inside = TRUE;
    else if (*p == '}')
      bad = inside ? NULL : "'}' without '{'", inside = FALSE;
  if (bad == NULL && inside)
    bad = "a variable is not closed";
  if (bad == NULL && g_utf8_validate (spec, -1, NULL))
    return TRUE;
  {
    g_autofree char *quoted = zkr__path_quote_value (spec, -1);

    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "invalid URI spec %s: %s",
                 quoted, bad != NULL ? bad : "it is not UTF-8");
  }
  return FALSE;
}

/* ---- the value ----------------------------------------------------------------- */

ZkrServiceInstance *
zkr_service_instance_new (const char *name, const char *id, GError **error)
{
  ZkrServiceInstance *instance;

  g_return_val_if_fail (name != NULL, NULL);
  if (!zkr__discovery_instance_validate_name ("service name", name, error)
      || (id != NULL && !zkr__discovery_instance_validate_name ("instance id", id, error)))
    return NULL;
  instance = g_new0 (ZkrServiceInstance, 1);
  instance->name = g_strdup (name);
  instance->id = id != NULL ? g_strdup (id) : g_uuid_string_random ();
  instance->port = -1;
  instance->ssl_port = -1;
  instance->registration_time = g_get_real_time () / 1000;
  instance->type = ZKR_SERVICE_DYNAMIC;
  instance->enabled = TRUE;
  return instance;
}

ZkrServiceInstance *
zkr_service_instance_copy (const ZkrServiceInstance *instance)
{
  ZkrServiceInstance *copy;

  g_return_val_if_fail (instance != NULL, NULL);
  copy = g_memdup2 (instance, sizeof *instance);
  copy->name = g_strdup (instance->name);
  copy->id = g_strdup (instance->id);
  copy->address = g_strdup (instance->address);
  copy->payload = instance->payload != NULL ? json_node_copy (instance->payload) : NULL;
  copy->uri_spec = g_strdup (instance->uri_spec);
  return copy;
}

void
zkr_service_instance_free (ZkrServiceInstance *instance)
{
  if (instance == NULL)
    return;
  g_free (instance->name);
  g_free (instance->id);
  g_free (instance->address);
  if (instance->payload != NULL)
    json_node_unref (instance->payload);
  g_free (instance->uri_spec);
  g_free (instance);
}

#define GETTER(type, function, field, fallback)                                \
  type zkr_service_instance_##function (const ZkrServiceInstance *instance)  \
  {                                                                             \
    g_return_val_if_fail (instance != NULL, fallback);                          \
    return instance->field;                                                     \
  }

GETTER (const char *, get_name, name, NULL)
GETTER (const char *, get_id, id, NULL)
GETTER (const char *, get_address, address, NULL)
GETTER (int, get_port, port, -1)
GETTER (int, get_ssl_port, ssl_port, -1)
GETTER (JsonNode *, get_payload, payload, NULL)
GETTER (gint64, get_registration_time, registration_time, 0)
GETTER (ZkrServiceType, get_service_type, type, ZKR_SERVICE_DYNAMIC)
GETTER (gboolean, is_enabled, enabled, FALSE)
GETTER (const char *, get_uri_spec, uri_spec, NULL)

void
zkr_service_instance_set_address (ZkrServiceInstance *instance, const char *address)
{
  g_return_if_fail (instance != NULL);
  g_free (instance->address);
  instance->address = g_strdup (address);
}

gboolean
zkr_service_instance_set_port (ZkrServiceInstance *instance, int port, GError **error)
{
  g_return_val_if_fail (instance != NULL, FALSE);
  if (!validate_port ("port", port, error))
    return FALSE;
  instance->port = port;
  return TRUE;
}

gboolean
zkr_service_instance_set_ssl_port (ZkrServiceInstance *instance, int port, GError **error)
{
  g_return_val_if_fail (instance != NULL, FALSE);
  if (!validate_port ("ssl port", port, error))
    return FALSE;
  instance->ssl_port = port;
  return TRUE;
}

/* The payload without Curator's type tag: an object's "@class" dropped.
 * Members keep their order (json_object_get_members; an iterator would
 * walk the hash table). */
static JsonNode *
payload_untagged (JsonNode *payload)
{
  JsonObject *object;
  JsonNode *copy;
  GList *members;

  if (payload == NULL || JSON_NODE_HOLDS_NULL (payload))
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (payload))
    return json_node_copy (payload);
  object = json_object_new ();
  members = json_object_get_members (json_node_get_object (payload));
  for (GList *m = members; m != NULL; m = m->next)
    if (strcmp (m->data, ZKR_JACKSON_CLASS_MEMBER) != 0)
      json_object_set_member (object, m->data,
                              json_node_copy (json_object_get_member (
                                json_node_get_object (payload), m->data)));
  g_list_free (members);
  /* The node takes its own reference on the object. */
  copy = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return copy;
}

void
zkr_service_instance_set_payload (ZkrServiceInstance *instance, JsonNode *payload)
{
  g_return_if_fail (instance != NULL);
  if (instance->payload != NULL)
    json_node_unref (instance->payload);
  instance->payload = payload_untagged (payload);
}

void
zkr_service_instance_set_registration_time (ZkrServiceInstance *instance, gint64 utc_ms)
{
  g_return_if_fail (instance != NULL);
  instance->registration_time = utc_ms;
}

gboolean
zkr_service_instance_set_service_type (ZkrServiceInstance *instance, ZkrServiceType type,
                                       GError **error)
{
  g_return_val_if_fail (instance != NULL, FALSE);
  if ((guint) type > ZKR_SERVICE_DYNAMIC_SEQUENTIAL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid service type %d: not a ZkrServiceType", (int) type);
      return FALSE;
    }
  instance->type = type;
  return TRUE;
}

void
zkr_service_instance_set_enabled (ZkrServiceInstance *instance, gboolean enabled)
{
  g_return_if_fail (instance != NULL);
  instance->enabled = !!enabled;
}

gboolean
zkr_service_instance_set_uri_spec (ZkrServiceInstance *instance, const char *uri_spec,
                                   GError **error)
{
  g_return_val_if_fail (instance != NULL, FALSE);
  if (uri_spec != NULL && !validate_uri_spec (uri_spec, error))
    return FALSE;
  g_free (instance->uri_spec);
  instance->uri_spec = g_strdup (uri_spec);
  return TRUE;
}
