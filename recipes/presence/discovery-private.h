/* zkr internal: what the discovery's files share (discovery.c,
 * discovery-instance.c, discovery-json.c, service-cache.c): the service
 * instance's fields, the check of a name, the discovery's session. */
#pragma once

#include <zkr/discovery.h>

struct _ZkrServiceInstance {
  char *name;
  char *id;
  char *address;              /* nullable */
  int port;                   /* -1: none */
  int ssl_port;               /* -1: none */
  JsonNode *payload;          /* nullable, without Curator's type tag */
  gint64 registration_time;   /* UTC ms */
  ZkrServiceType type;
  gboolean enabled;
  char *uri_spec;             /* nullable, Curator's template syntax */
};

/* Jackson's type tags for a payload declared as Object: an object becomes
 * a LinkedHashMap with its class as the member "@class", a list is
 * wrapped as [class, list]. */
#define ZKR_JACKSON_CLASS_MEMBER "@class"
#define ZKR_JACKSON_MAP_CLASS "java.util.LinkedHashMap"
#define ZKR_JACKSON_LIST_CLASS "java.util.ArrayList"

/* Checks a service name or instance id (@what: "service name" or
 * "instance id"): ZKR_ERROR_INVALID_ARGUMENT naming it if it is no node
 * name. */
gboolean zkr__discovery_instance_validate_name (const char *what, const char *value, GError **error);

/* The discovery's session, borrowed. */
ZkrSession *zkr__discovery_get_session (ZkrServiceDiscovery *discovery);
