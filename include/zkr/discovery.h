/**
 * SECTION:discovery
 * @title: Service discovery
 * @short_description: service instances registered and queried,
 *   compatible with curator-x-discovery
 * @include: zkr/zkr.h
 *
 * Service discovery compatible with Curator's curator-x-discovery: a
 * service instance is the node BASE/NAME/ID holding the instance as JSON
 * in the layout Curator's JsonInstanceSerializer writes and reads, so a
 * Java ServiceDiscovery and a zkr one on the same base path list each
 * other's instances (docs/design.md, "Service discovery").
 *
 * A DYNAMIC (or DYNAMIC_SEQUENTIAL) registration is an EPHEMERAL node kept
 * present by a ZkrPersistentNode (zkr/persistent-node.h: made
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
 * background).
 *
 * The blocking calls of #ZkrServiceDiscovery take @timeout_ms (positive:
 * a deadline fixed when called; 0: only what needs no wait; negative:
 * none) and a nullable @cancellable; they answer by the deadline in every
 * session state, with %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when
 * @cancellable is cancelled, or the errors of the node calls
 * (zkr/node.h).
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <zkr/macros.h>
#include <zkr/node.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZKR_DISCOVERY_DEFAULT_BASE_PATH:
 *
 * The base path when none is given (Curator's examples use it too).
 *
 * Since: 0.1
 */
#define ZKR_DISCOVERY_DEFAULT_BASE_PATH "/services"
/**
 * ZKR_DISCOVERY_NAME_MAX_BYTES:
 *
 * The longest service name or instance id, in bytes (each is a node
 * name).
 *
 * Since: 0.1
 */
#define ZKR_DISCOVERY_NAME_MAX_BYTES 1024
/**
 * ZKR_SERVICE_INSTANCE_MAX_DEPTH:
 *
 * The deepest nesting of arrays and objects in an instance's JSON, the
 * instance's own object counting as one level (an object payload's
 * members are at level 2; a list payload sits inside Curator's
 * `[class, list]` wrapper, its elements at level 3). Text nested deeper is
 * refused before it is parsed (json-glib's parser recurses once per level
 * and would overflow the stack on a hostile node); a payload that would
 * be written deeper is refused too. Jackson's own default allows 1000:
 * a Curator instance with a payload nested over this limit is skipped.
 *
 * Since: 0.1
 */
#define ZKR_SERVICE_INSTANCE_MAX_DEPTH 100
/**
 * ZKR_SERVICE_INSTANCE_MAX_SIZE:
 *
 * The longest instance JSON read or written, in bytes: what zkr can
 * write in one node (%ZKR_NODE_MAX_DATA_SIZE). Longer text is refused
 * before it is parsed.
 *
 * Since: 0.1
 */
#define ZKR_SERVICE_INSTANCE_MAX_SIZE ZKR_NODE_MAX_DATA_SIZE

/**
 * ZkrServiceType:
 * @ZKR_SERVICE_DYNAMIC: an EPHEMERAL node, kept while the object lives
 * @ZKR_SERVICE_STATIC: a PERSISTENT node
 * @ZKR_SERVICE_PERMANENT: a PERSISTENT node
 * @ZKR_SERVICE_DYNAMIC_SEQUENTIAL: an EPHEMERAL_SEQUENTIAL node (the
 *   server appends a counter to the id in the node's name)
 *
 * Curator's ServiceType, written in the JSON by its name ("DYNAMIC", ...).
 *
 * Since: 0.1
 */
typedef enum {
  ZKR_SERVICE_DYNAMIC,
  ZKR_SERVICE_STATIC,
  ZKR_SERVICE_PERMANENT,
  ZKR_SERVICE_DYNAMIC_SEQUENTIAL,
} ZkrServiceType;

/**
 * ZkrServiceInstance:
 *
 * A service instance: a plain value (new, copy, free), owned by whoever
 * holds it; not thread-safe (one thread at a time per instance).
 *
 * Since: 0.1
 */
typedef struct _ZkrServiceInstance ZkrServiceInstance;
/**
 * ZkrServiceDiscovery:
 *
 * Registers and queries the instances under one base path: opaque and
 * reference-counted (see "Ownership" above).
 *
 * Since: 0.1
 */
typedef struct _ZkrServiceDiscovery ZkrServiceDiscovery;


/**
 * zkr_service_instance_new:
 * @name: the service's name (a node name: not empty, no '/', not "." or
 *   "..", UTF-8 without control characters, at most
 *   %ZKR_DISCOVERY_NAME_MAX_BYTES)
 * @id: (nullable): the instance's id (the same rules); %NULL: a random
 *   UUID, as Curator's builder makes
 * @error: return location for a #GError, or %NULL
 *
 * A new instance: no address, no port, no ssl port, no payload, no URI
 * spec, registered now (UTC ms), DYNAMIC, enabled. (Curator's builder also
 * fills the address with a local IP; zkr leaves that to the caller.)
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @name or @id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the instance;
 *   zkr_service_instance_free() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceInstance *zkr_service_instance_new (const char *name, const char *id,
                                                      GError **error);
/**
 * zkr_service_instance_copy:
 * @instance: the instance to copy
 *
 * A deep copy of @instance, payload included.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer full): the copy; zkr_service_instance_free() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceInstance *zkr_service_instance_copy (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_free:
 * @instance: (nullable) (transfer full): a #ZkrServiceInstance
 *
 * Frees @instance. %NULL is ignored.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_instance_free (ZkrServiceInstance *instance);

/**
 * zkr_service_instance_get_name:
 * @instance: a #ZkrServiceInstance
 *
 * The service's name.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer none): the name; borrowed, valid until the instance
 *   is changed or freed.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_service_instance_get_name (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_id:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's id.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer none): the id; borrowed, valid until the instance is
 *   changed or freed.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_service_instance_get_id (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_address:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's address.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer none) (nullable): the address, %NULL when there is
 *   none (JSON null); borrowed, valid until the instance is changed or freed.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_service_instance_get_address (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_port:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's port.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: the port, -1 when there is none (JSON null).
 *
 * Since: 0.1
 */
ZKR_API int zkr_service_instance_get_port (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_ssl_port:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's ssl port.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: the ssl port, -1 when there is none (JSON null).
 *
 * Since: 0.1
 */
ZKR_API int zkr_service_instance_get_ssl_port (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_payload:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's payload.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer none) (nullable): the payload as JSON, without
 *   Curator's type tag; %NULL when there is none. Borrowed, valid until the
 *   instance is changed or freed.
 *
 * Since: 0.1
 */
ZKR_API JsonNode *zkr_service_instance_get_payload (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_registration_time:
 * @instance: a #ZkrServiceInstance
 *
 * When the instance was registered (Curator's registrationTimeUTC).
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: milliseconds since the epoch, UTC.
 *
 * Since: 0.1
 */
ZKR_API gint64 zkr_service_instance_get_registration_time (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_service_type:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's service type.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: a #ZkrServiceType.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceType zkr_service_instance_get_service_type (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_is_enabled:
 * @instance: a #ZkrServiceInstance
 *
 * Whether the instance is enabled (providers leave out disabled ones).
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when enabled.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_is_enabled (const ZkrServiceInstance *instance);
/**
 * zkr_service_instance_get_uri_spec:
 * @instance: a #ZkrServiceInstance
 *
 * The instance's URI spec, in Curator's template syntax
 * ("{scheme}://{address}:{port}/x").
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer none) (nullable): the spec, %NULL when there is
 *   none; borrowed, valid until the instance is changed or freed.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_service_instance_get_uri_spec (const ZkrServiceInstance *instance);

/**
 * zkr_service_instance_set_address:
 * @instance: a #ZkrServiceInstance
 * @address: (nullable): the address, copied; %NULL for none
 *
 * Sets the instance's address.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_instance_set_address (ZkrServiceInstance *instance,
                                               const char *address);
/**
 * zkr_service_instance_set_port:
 * @instance: a #ZkrServiceInstance
 * @port: 0..65535, or -1 for none
 * @error: return location for a #GError, or %NULL
 *
 * Sets the instance's port.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming another value.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when set.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_set_port (ZkrServiceInstance *instance, int port,
                                               GError **error);
/**
 * zkr_service_instance_set_ssl_port:
 * @instance: a #ZkrServiceInstance
 * @port: 0..65535, or -1 for none
 * @error: return location for a #GError, or %NULL
 *
 * Sets the instance's ssl port.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming another value.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when set.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_set_ssl_port (ZkrServiceInstance *instance, int port,
                                                   GError **error);
/**
 * zkr_service_instance_set_payload:
 * @instance: a #ZkrServiceInstance
 * @payload: (nullable) (transfer none): copied; %NULL (or a JSON null) for
 *   none
 *
 * Sets the instance's payload: any JSON value; an object's member
 * `"@class"` is Curator's type tag and is dropped (it is written back as
 * java.util.LinkedHashMap). What JSON text cannot hold (a string or
 * member name that is not UTF-8, a NaN or an infinity, nesting over
 * %ZKR_SERVICE_INSTANCE_MAX_DEPTH) is taken here but refused by
 * zkr_service_instance_to_json() and so by a registration.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_instance_set_payload (ZkrServiceInstance *instance, JsonNode *payload);
/**
 * zkr_service_instance_set_payload_from_json:
 * @instance: a #ZkrServiceInstance
 * @json: (array length=len): the payload as JSON text (a config file's,
 *   a command line's)
 * @len: the length of @json, or -1 if it is NUL-terminated
 * @error: return location for a #GError, or %NULL
 *
 * Sets the instance's payload from text, as
 * zkr_service_instance_set_payload() does from a value. The text is held
 * to the limits of an instance's JSON before it is parsed.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for text that is empty, over
 * %ZKR_SERVICE_INSTANCE_MAX_SIZE bytes, nested deeper than
 * %ZKR_SERVICE_INSTANCE_MAX_DEPTH (with the instance's own levels, see
 * there), not UTF-8, not plain JSON (no comments), or holding a number
 * out of range, saying which; the payload is then left as it was.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when set.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_set_payload_from_json (ZkrServiceInstance *instance,
                                                            const char *json, gssize len,
                                                            GError **error);
/**
 * zkr_service_instance_set_registration_time:
 * @instance: a #ZkrServiceInstance
 * @utc_ms: milliseconds since the epoch, UTC
 *
 * Sets when the instance was registered.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_instance_set_registration_time (ZkrServiceInstance *instance,
                                                         gint64 utc_ms);
/**
 * zkr_service_instance_set_service_type:
 * @instance: a #ZkrServiceInstance
 * @type: a #ZkrServiceType
 * @error: return location for a #GError, or %NULL
 *
 * Sets the instance's service type.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a value outside the enum.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when set.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_set_service_type (ZkrServiceInstance *instance,
                                                       ZkrServiceType type, GError **error);
/**
 * zkr_service_instance_set_enabled:
 * @instance: a #ZkrServiceInstance
 * @enabled: whether the instance is enabled
 *
 * Enables or disables the instance.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_instance_set_enabled (ZkrServiceInstance *instance, gboolean enabled);
/**
 * zkr_service_instance_set_uri_spec:
 * @instance: a #ZkrServiceInstance
 * @uri_spec: (nullable): Curator's template syntax, %NULL for none; copied
 * @error: return location for a #GError, or %NULL
 *
 * Sets the instance's URI spec.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a spec Curator's parser
 * refuses (a '{' inside a variable, a '}' without '{', an open variable).
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: %TRUE when set.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_instance_set_uri_spec (ZkrServiceInstance *instance,
                                                   const char *uri_spec, GError **error);

/**
 * zkr_service_instance_to_json:
 * @instance: a #ZkrServiceInstance
 * @length: (out) (optional): the length of the text
 * @error: return location for a #GError, or %NULL
 *
 * The instance as Curator's JsonInstanceSerializer writes it (field order,
 * nulls, the payload's type tag); "enabled" is written only when %FALSE
 * (Curator's default serializer leaves it out; a reader takes a missing
 * one as %TRUE). What it writes, zkr_service_instance_from_json() reads
 * back to the same instance.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT for what JSON text cannot hold or
 * no reader would take, naming it: an address that is not UTF-8; in the
 * payload (named by its JSON pointer, "/weight/1") a string or member name
 * that is not UTF-8, a NaN or an infinity, nesting over
 * %ZKR_SERVICE_INSTANCE_MAX_DEPTH; text over
 * %ZKR_SERVICE_INSTANCE_MAX_SIZE bytes.
 *
 * Thread: any thread (one thread at a time per instance).
 *
 * Returns: (transfer full) (nullable): UTF-8 JSON text; g_free() it.
 *
 * Since: 0.1
 */
ZKR_API char *zkr_service_instance_to_json (const ZkrServiceInstance *instance, gsize *length,
                                            GError **error);

/**
 * zkr_service_instance_from_json:
 * @data: (array length=len): the bytes (need not be NUL-terminated)
 * @len: the length of @data
 * @error: return location for a #GError, or %NULL
 *
 * Parses an instance written by Curator or zkr. "name" and "id" must be
 * strings; the other fields may be missing or null; a field of the wrong
 * type, an unknown service type or a bad URI spec is refused. Unknown
 * fields are ignored, as Curator's reader does. The text is bounded
 * before it is parsed: empty data (@data %NULL and @len 0, as an empty
 * node reads), more than %ZKR_SERVICE_INSTANCE_MAX_SIZE bytes, nesting
 * deeper than %ZKR_SERVICE_INSTANCE_MAX_DEPTH, text that is not UTF-8 or
 * not plain JSON (comments, single-quoted strings) are refused unparsed;
 * a number out of range (1e999: JSON has no infinity) is refused too, as
 * it could not be written back.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT saying what is wrong (for a limit:
 * the size or depth and the limit).
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the instance;
 *   zkr_service_instance_free() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceInstance *zkr_service_instance_from_json (const void *data, gsize len,
                                                            GError **error);


/**
 * zkr_service_discovery_new:
 * @session: the session (a reference is taken)
 * @base_path: (nullable): the base path; %NULL for
 *   %ZKR_DISCOVERY_DEFAULT_BASE_PATH; not "/"
 * @error: return location for a #GError, or %NULL
 *
 * Makes a discovery object. Nothing is sent before the first call.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @base_path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the discovery object;
 *   zkr_service_discovery_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceDiscovery *zkr_service_discovery_new (ZkrSession *session,
                                                        const char *base_path, GError **error);
/**
 * zkr_service_discovery_ref:
 * @discovery: a #ZkrServiceDiscovery
 *
 * Takes a reference on @discovery.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @discovery.
 *
 * Since: 0.1
 */
ZKR_API ZkrServiceDiscovery *zkr_service_discovery_ref (ZkrServiceDiscovery *discovery);
/**
 * zkr_service_discovery_unref:
 * @discovery: (nullable) (transfer full): a #ZkrServiceDiscovery
 *
 * Drops a reference; see "Ownership" above. %NULL is ignored.
 *
 * Thread: any thread.
 *
 * Since: 0.1
 */
ZKR_API void zkr_service_discovery_unref (ZkrServiceDiscovery *discovery);
/**
 * zkr_service_discovery_get_base_path:
 * @discovery: a #ZkrServiceDiscovery
 *
 * The base path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the base path, valid while @discovery lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_service_discovery_get_base_path (ZkrServiceDiscovery *discovery);


/**
 * zkr_service_discovery_register:
 * @discovery: a #ZkrServiceDiscovery
 * @instance: (transfer none): the instance, copied
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Registers @instance at BASE/NAME/ID. DYNAMIC and DYNAMIC_SEQUENTIAL:
 * kept present by this object until unregistered, closed or unreffed;
 * returns once the node was first made (while another session's node
 * holds BASE/NAME/ID, it waits for that node to go: %ZKR_ERROR_TIMEOUT,
 * and the registration goes on in the background; Curator would delete
 * it). STATIC and PERMANENT: written once (an existing node is deleted and
 * made again, as Curator does, so that watchers fire). Registering an id
 * this object registered before replaces it.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT at once, nothing sent and a former
 * registration of the id kept, when the node's create request (its path
 * and the instance's JSON) is over %ZKR_NODE_MAX_REQUEST_SIZE (named by its
 * size); %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and those of the node calls (zkr/node.h).
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once registered.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_discovery_register (ZkrServiceDiscovery *discovery,
                                                 const ZkrServiceInstance *instance,
                                                 int timeout_ms, GCancellable *cancellable,
                                                 GError **error);
/**
 * zkr_service_discovery_update:
 * @discovery: a #ZkrServiceDiscovery
 * @instance: (transfer none): the instance, copied
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Writes @instance over the node BASE/NAME/ID (and, for a DYNAMIC
 * registration of this object, uses it for every later re-creation).
 *
 * Errors: %ZKR_ERROR_NO_NODE if there is no such node; %ZKR_ERROR_TIMEOUT,
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and those of the
 * node calls.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once written.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_discovery_update (ZkrServiceDiscovery *discovery,
                                               const ZkrServiceInstance *instance,
                                               int timeout_ms, GCancellable *cancellable,
                                               GError **error);
/**
 * zkr_service_discovery_unregister:
 * @discovery: a #ZkrServiceDiscovery
 * @name: the service's name
 * @id: the instance's id
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Stops keeping the instance (if this object registered it) and deletes
 * BASE/NAME/ID; a missing node is no error (Curator's rule).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @name or @id;
 * %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and those of the node calls.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once the node is gone.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_discovery_unregister (ZkrServiceDiscovery *discovery,
                                                   const char *name, const char *id,
                                                   int timeout_ms, GCancellable *cancellable,
                                                   GError **error);
/**
 * zkr_service_discovery_query_names:
 * @discovery: a #ZkrServiceDiscovery
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The service names: the children of the base path, sorted; empty if the
 * base path does not exist.
 *
 * Errors: %ZKR_ERROR_TIMEOUT, %G_IO_ERROR_CANCELLED when @cancellable is
 * cancelled, and those of the node calls.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): the names,
 *   %NULL-terminated; g_strfreev() it.
 *
 * Since: 0.1
 */
ZKR_API char **zkr_service_discovery_query_names (ZkrServiceDiscovery *discovery,
                                                  int timeout_ms, GCancellable *cancellable,
                                                  GError **error);
/**
 * zkr_service_discovery_query_instances:
 * @discovery: a #ZkrServiceDiscovery
 * @name: the service's name
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * The instances of service @name: each child of BASE/NAME read and parsed,
 * in the children's order. A child whose data is not an instance (written
 * by someone else: missing fields, wrong types, garbage) is skipped with a
 * g_warning() naming its path; a child deleted meanwhile is skipped.
 * Empty if the service does not exist.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @name; %ZKR_ERROR_TIMEOUT,
 * %G_IO_ERROR_CANCELLED when @cancellable is cancelled, and those of the
 * node calls.
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: (transfer full) (element-type ZkrServiceInstance) (nullable): an
 *   array of #ZkrServiceInstance that frees them; g_ptr_array_unref() it.
 *
 * Since: 0.1
 */
ZKR_API GPtrArray *zkr_service_discovery_query_instances (ZkrServiceDiscovery *discovery,
                                                          const char *name, int timeout_ms,
                                                          GCancellable *cancellable,
                                                          GError **error);
/**
 * zkr_service_discovery_close:
 * @discovery: a #ZkrServiceDiscovery
 * @timeout_ms: the deadline (see above)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Stops keeping the DYNAMIC registrations of this object and deletes their
 * nodes (the persistent node's guaranteed delete: if a delete is not
 * confirmed by the deadline this fails and it goes on in the background).
 * STATIC and PERMANENT nodes stay. Idempotent.
 *
 * Errors: those of zkr_persistent_node_close().
 *
 * Thread: any thread; blocks it until answered.
 *
 * Returns: %TRUE once the nodes are deleted.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_service_discovery_close (ZkrServiceDiscovery *discovery, int timeout_ms,
                                              GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceInstance, zkr_service_instance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrServiceDiscovery, zkr_service_discovery_unref)

G_END_DECLS
