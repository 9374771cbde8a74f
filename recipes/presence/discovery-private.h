/* zkr: internal helpers shared by recipes/discovery.c and
 * recipes/discovery-json.c. */
#pragma once

#include <zkr/discovery.h>

/* Checks a service name or instance id (@what: "service name" or
 * "instance id"): ZKR_ERROR_INVALID_ARGUMENT naming it if it is no node
 * name. */
gboolean zkr__discovery_validate_name (const char *what, const char *value, GError **error);

/* The discovery's session, borrowed. */
ZkrSession *zkr__discovery_get_session (ZkrServiceDiscovery *discovery);
