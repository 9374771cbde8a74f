/* zkr: service discovery compatible with Curator's curator-x-discovery: a
 * service instance is the node BASE/NAME/ID holding the instance as JSON
 * in the layout Curator's JsonInstanceSerializer writes and reads, so a
 * Java ServiceDiscovery and a zkr one on the same base path list each
 * other's instances (docs/design.md, "Service discovery").
 *
 * A DYNAMIC (or DYNAMIC_SEQUENTIAL) registration is an EPHEMERAL node kept
 * present by a ZkrPersistentNode (include/zkr/persistent-node.h: made
 * again after an expiry or a delete from outside); STATIC and PERMANENT
 * ones are PERSISTENT nodes written once. Missing parents are created as
 * CONTAINER nodes, as Curator does.
 *
 * Threads: every function may be called from any thread.
 *
 * Ownership: a ZkrServiceInstance is a plain value (new/copy/free), owned
 * by whoever holds it; a ZkrServiceDiscovery is reference-counted and keeps
 * a reference on its session. Its last unref stops keeping its DYNAMIC
 * registrations without waiting (their nodes are deleted in the
 * background). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <zkr/macros.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/* The base path when none is given (Curator's examples use it too). */
#define ZKR_DISCOVERY_DEFAULT_BASE_PATH "/services"
/* The longest service name or instance id, in bytes (each is a node name). */
#define ZKR_DISCOVERY_NAME_MAX_BYTES 1024

/**
 * ZkrServiceType:
 * Curator's ServiceType, written in the JSON by its name ("DYNAMIC", ...).
 * @ZKR_SERVICE_DYNAMIC: an EPHEMERAL node, kept while the object lives
 * @ZKR_SERVICE_STATIC: a PERSISTENT node
 * @ZKR_SERVICE_PERMANENT: a PERSISTENT node
 * @ZKR_SERVICE_DYNAMIC_SEQUENTIAL: an EPHEMERAL_SEQUENTIAL node (the
 *   server appends a counter to the id in the node's name)
 */
typedef enum {
  ZKR_SERVICE_DYNAMIC,
  ZKR_SERVICE_STATIC,
  ZKR_SERVICE_PERMANENT,
  ZKR_SERVICE_DYNAMIC_SEQUENTIAL,
} ZkrServiceType;

typedef struct _ZkrServiceInstance ZkrServiceInstance;
typedef struct _ZkrServiceDiscovery ZkrServiceDiscovery;

/* ---- the instance ---------------------------------------------------------- */

/**
 * zkr_service_instance_new:
 * @name: the service's name (a node name: not empty, no '/', not "." or
 *   "..", UTF-8 without control characters, at most
 *   ZKR_DISCOVERY_NAME_MAX_BYTES)
 * @id: (nullable): the instance's id (the same rules); NULL: a random UUID,
 *   as Curator's builder makes
 * A new instance: no address, no port, no ssl port, no payload, no URI
 * spec, registered now (UTC ms), DYNAMIC, enabled. (Curator's builder also
 * fills the address with a local IP; zkr leaves that to the caller.)
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @name or @id.
 * Returns: (transfer full) (nullable): zkr_service_instance_free() it.
 */
ZKR_API ZkrServiceInstance *zkr_service_instance_new (const char *name, const char *id,
                                                      GError **error);
/* (transfer full): a deep copy, payload included. */
ZKR_API ZkrServiceInstance *zkr_service_instance_copy (const ZkrServiceInstance *instance);
/* NULL is ignored. */
ZKR_API void zkr_service_instance_free (ZkrServiceInstance *instance);

/* Borrowed strings, valid until the instance is changed or freed. */
ZKR_API const char *zkr_service_instance_get_name (const ZkrServiceInstance *instance);
ZKR_API const char *zkr_service_instance_get_id (const ZkrServiceInstance *instance);
/* (nullable): NULL when there is none (JSON null). */
ZKR_API const char *zkr_service_instance_get_address (const ZkrServiceInstance *instance);
/* The port and ssl port: -1 when there is none (JSON null). */
ZKR_API int zkr_service_instance_get_port (const ZkrServiceInstance *instance);
ZKR_API int zkr_service_instance_get_ssl_port (const ZkrServiceInstance *instance);
/* (transfer none) (nullable): the payload as JSON, without Curator's
 * type tag; NULL when there is none. */
ZKR_API JsonNode *zkr_service_instance_get_payload (const ZkrServiceInstance *instance);
/* Milliseconds since the epoch, UTC (Curator's registrationTimeUTC). */
ZKR_API gint64 zkr_service_instance_get_registration_time (const ZkrServiceInstance *instance);
ZKR_API ZkrServiceType zkr_service_instance_get_service_type (const ZkrServiceInstance *instance);
ZKR_API gboolean zkr_service_instance_is_enabled (const ZkrServiceInstance *instance);
/* (nullable): the URI spec in Curator's template syntax
 * ("{scheme}://{address}:{port}/x"), NULL when there is none. */
ZKR_API const char *zkr_service_instance_get_uri_spec (const ZkrServiceInstance *instance);

/* @address: (nullable): copied; NULL for none. */
ZKR_API void zkr_service_instance_set_address (ZkrServiceInstance *instance,
                                               const char *address);
/* @port: 0..65535, or -1 for none. Errors: ZKR_ERROR_INVALID_ARGUMENT
 * naming another value. */
ZKR_API gboolean zkr_service_instance_set_port (ZkrServiceInstance *instance, int port,
                                               GError **error);
ZKR_API gboolean zkr_service_instance_set_ssl_port (ZkrServiceInstance *instance, int port,
                                                   GError **error);
/* @payload: (nullable) (transfer none): copied; NULL (or a JSON null) for
 * none. Any JSON value; an object's member "@class" is Curator's type tag
 * and is dropped (it is written back as java.util.LinkedHashMap). */
ZKR_API void zkr_service_instance_set_payload (ZkrServiceInstance *instance, JsonNode *payload);
ZKR_API void zkr_service_instance_set_registration_time (ZkrServiceInstance *instance,
                                                         gint64 utc_ms);
/* Errors: ZKR_ERROR_INVALID_ARGUMENT naming a value outside the enum. */
ZKR_API gboolean zkr_service_instance_set_service_type (ZkrServiceInstance *instance,
                                                       ZkrServiceType type, GError **error);
ZKR_API void zkr_service_instance_set_enabled (ZkrServiceInstance *instance, gboolean enabled);
/* @uri_spec: (nullable): Curator's template syntax, NULL for none.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a spec Curator's parser
 * refuses (a '{' inside a variable, a '}' without '{', an open variable). */
ZKR_API gboolean zkr_service_instance_set_uri_spec (ZkrServiceInstance *instance,
                                                   const char *uri_spec, GError **error);

/**
 * zkr_service_instance_to_json:
 * @length: (out) (optional): the length of the text
 * The instance as Curator's JsonInstanceSerializer writes it (field order,
 * nulls, the payload's type tag); "enabled" is written only when FALSE
 * (Curator's default serializer leaves it out; a reader takes a missing
 * one as TRUE).
 * Returns: (transfer full): UTF-8 JSON text; g_free() it.
 */
ZKR_API char *zkr_service_instance_to_json (const ZkrServiceInstance *instance, gsize *length);

/**
 * zkr_service_instance_from_json:
 * @data: the bytes (need not be NUL-terminated)
 * Parses an instance written by Curator or zkr. "name" and "id" must be
 * strings; the other fields may be missing or null; a field of the wrong
 * type, an unknown service type or a bad URI spec is refused. Unknown
 * fields are ignored, as Curator's reader does.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT saying what is wrong.
 * Returns: (transfer full) (nullable): zkr_service_instance_free() it.
 */
ZKR_API ZkrServiceInstance *zkr_service_instance_from_json (const void *data, gsize len,
                                                            GError **error);

/* ---- discovery --------------------------------------------------------------- */

/**
 * zkr_service_discovery_new:
 * @session: the session (a reference is taken)
 * @base_path: (nullable): the base path; NULL for
 *   ZKR_DISCOVERY_DEFAULT_BASE_PATH; not "/"
 * Nothing is sent before the first call.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @base_path.
 * Returns: (transfer full) (nullable): zkr_service_discovery_unref() it.
 */
ZKR_API ZkrServiceDiscovery *zkr_service_discovery_new (ZkrSession *session,
                                                        const char *base_path, GError **error);
ZKR_API ZkrServiceDiscovery *zkr_service_discovery_ref (ZkrServiceDiscovery *discovery);
/* NULL is ignored. See "Ownership" above. */
ZKR_API void zkr_service_discovery_unref (ZkrServiceDiscovery *discovery);
ZKR_API const char *zkr_service_discovery_get_base_path (ZkrServiceDiscovery *discovery);

/*
 * The blocking calls below take @timeout_ms (> 0: a deadline fixed when
 * called; 0: only what needs no wait; < 0: none) and a nullable
 * @cancellable; they answer by the deadline in every session state, with
 * ZKR_ERROR_TIMEOUT, G_IO_ERROR_CANCELLED or the errors of the node calls
 * (include/zkr/node.h).
 */

/**
 * zkr_service_discovery_register:
 * @instance: (transfer none): copied
 * Registers @instance at BASE/NAME/ID. DYNAMIC and DYNAMIC_SEQUENTIAL:
 * kept present by this object until unregistered, closed or unreffed;
 * returns once the node was first made (while another session's node
 * holds BASE/NAME/ID, it waits for that node to go: ZKR_ERROR_TIMEOUT,
 * and the registration goes on in the background; Curator would delete
 * it). STATIC and PERMANENT: written once
 * (an existing node is deleted and made again, as Curator does, so that
 * watchers fire). Registering an id this object registered before
 * replaces it.
 */
ZKR_API gboolean zkr_service_discovery_register (ZkrServiceDiscovery *discovery,
                                                 const ZkrServiceInstance *instance,
                                                 int timeout_ms, GCancellable *cancellable,
                                                 GError **error);
/**
 * zkr_service_discovery_update:
 * Writes @instance over the node BASE/NAME/ID (and, for a DYNAMIC
 * registration of this object, uses it for every later re-creation).
 * Errors: ZKR_ERROR_NO_NODE if there is no such node.
 */
ZKR_API gboolean zkr_service_discovery_update (ZkrServiceDiscovery *discovery,
                                               const ZkrServiceInstance *instance,
                                               int timeout_ms, GCancellable *cancellable,
                                               GError **error);
/**
 * zkr_service_discovery_unregister:
 * Stops keeping the instance (if this object registered it) and deletes
 * BASE/NAME/ID; a missing node is no error (Curator's rule).
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @name or @id.
 */
ZKR_API gboolean zkr_service_discovery_unregister (ZkrServiceDiscovery *discovery,
                                                   const char *name, const char *id,
                                                   int timeout_ms, GCancellable *cancellable,
                                                   GError **error);
/**
 * zkr_service_discovery_query_names:
 * The service names: the children of the base path, sorted; empty if the
 * base path does not exist.
 * Returns: (transfer full) (nullable): NULL-terminated; g_strfreev() it.
 */
ZKR_API char **zkr_service_discovery_query_names (ZkrServiceDiscovery *discovery,
                                                  int timeout_ms, GCancellable *cancellable,
                                                  GError **error);
/**
 * zkr_service_discovery_query_instances:
 * The instances of service @name: each child of BASE/NAME read and parsed,
 * in the children's order. A child whose data is not an instance (written
 * by someone else: missing fields, wrong types, garbage) is skipped with a
 * g_warning() naming its path; a child deleted meanwhile is skipped.
 * Empty if the service does not exist.
 * Returns: (transfer full) (nullable): a GPtrArray of ZkrServiceInstance
 * that frees them; g_ptr_array_unref() it.
 */
ZKR_API GPtrArray *zkr_service_discovery_query_instances (ZkrServiceDiscovery *discovery,
                                                          const char *name, int timeout_ms,
                                                          GCancellable *cancellable,
                                                          GError **error);
/**
 * zkr_service_discovery_close:
 * Stops keeping the DYNAMIC registrations of this object and deletes their
 * nodes (the persistent node's guaranteed delete: if a delete is not
 * confirmed by the deadline this fails and it goes on in the background).
 * STATIC and PERMANENT nodes stay. Idempotent.
 */
ZKR_API gboolean zkr_service_discovery_close (ZkrServiceDiscovery *discovery, int timeout_ms,
                                              GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceInstance, zkr_service_instance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceDiscovery, zkr_service_discovery_unref)

G_END_DECLS
