/* zkr: service discovery (curator-x-discovery's ServiceDiscovery): the
 * instances of service NAME are the nodes BASE/NAME/ID; DYNAMIC ones are
 * kept present by a persistent node each, STATIC and PERMANENT ones are
 * written once; queries read the nodes and skip what does not parse
 * (docs/design.md, "Service discovery"). */
#include <string.h>

#include "discovery-private.h"
#include "node-private.h"
#include "path.h"
#include "ref.h"

#include <zkr/error.h>
#include <zkr/node.h>
#include <zkr/persistent-node.h>

struct _ZkrServiceDiscovery {
  gatomicrefcount ref;
  ZkrSession *session;        /* (owned) */
  char *base_path;
  GMutex lock;
  GHashTable *dynamic;        /* "NAME/ID" -> ZkrPersistentNode (owned): lock */
};

/* One deadline shared by the calls a blocking function makes. */
typedef struct {
  int timeout_ms;
  gint64 end;
} Deadline;

static Deadline
deadline_start (int timeout_ms)
{
  Deadline deadline = { timeout_ms, g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000 };

  return deadline;
}

/* What is left for the next call: at least 1 ms, so that a call made at
 * the deadline answers ZKR_ERROR_TIMEOUT itself. */
static int
deadline_left (const Deadline *deadline)
{
  if (deadline->timeout_ms <= 0)
    return deadline->timeout_ms;
  return (int) MAX ((deadline->end - g_get_monotonic_time ()) / 1000, 1);
}

/* ---- the object ------------------------------------------------------------------ */

static gboolean
validate_base_path (const char *path, GError **error)
{
  if (!zkr__path_validate (path, error))
    return FALSE;
  if (strcmp (path, "/") == 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid discovery base path \"/\": services need a node of their own");
      return FALSE;
    }
  return TRUE;
}

ZkrServiceDiscovery *
zkr_service_discovery_new (ZkrSession *session, const char *base_path, GError **error)
{
  ZkrServiceDiscovery *discovery;

  g_return_val_if_fail (session != NULL, NULL);
  if (base_path == NULL)
    base_path = ZKR_DISCOVERY_DEFAULT_BASE_PATH;
  if (!validate_base_path (base_path, error))
    return NULL;
  discovery = g_new0 (ZkrServiceDiscovery, 1);
  g_atomic_ref_count_init (&discovery->ref);
  discovery->session = zkr_session_ref (session);
  discovery->base_path = g_strdup (base_path);
  g_mutex_init (&discovery->lock);
  discovery->dynamic = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) zkr_persistent_node_unref);
  return discovery;
}

ZkrServiceDiscovery *
zkr_service_discovery_ref (ZkrServiceDiscovery *discovery)
{
  g_return_val_if_fail (discovery != NULL, NULL);
  g_atomic_ref_count_inc (&discovery->ref);
  return discovery;
}

void
zkr_service_discovery_unref (ZkrServiceDiscovery *discovery)
{
  if (discovery == NULL || !g_atomic_ref_count_dec (&discovery->ref))
    return;
  /* Each persistent node's own last unref stops it and deletes its node
   * in the background (include/zkr/persistent-node.h). */
  g_hash_table_unref (discovery->dynamic);
  g_mutex_clear (&discovery->lock);
  zkr_session_unref (discovery->session);
  g_free (discovery->base_path);
  g_free (discovery);
}

const char *
zkr_service_discovery_get_base_path (ZkrServiceDiscovery *discovery)
{
  g_return_val_if_fail (discovery != NULL, NULL);
  return discovery->base_path;
}

static char *
instance_path (ZkrServiceDiscovery *discovery, const char *name, const char *id)
{
  g_autofree char *service = zkr__path_join (discovery->base_path, name);

  return zkr__path_join (service, id);
}

static char *
dynamic_key (const char *name, const char *id)
{
  return g_strconcat (name, "/", id, NULL);
}

/* Takes this object's persistent node for NAME/ID out of the table:
 * (transfer full) (nullable). */
static ZkrPersistentNode *
dynamic_steal (ZkrServiceDiscovery *discovery, const char *name, const char *id)
{
  g_autofree char *key = dynamic_key (name, id);
  gpointer stolen_key = NULL;
  gpointer node = NULL;

  g_mutex_lock (&discovery->lock);
  if (!g_hash_table_steal_extended (discovery->dynamic, key, &stolen_key, &node))
    node = NULL;
  g_mutex_unlock (&discovery->lock);
  /* A steal leaves both the key and the value to us. */
  g_free (stolen_key);
  return node;
}

/* ---- register, update, unregister ---------------------------------------------------- */

static gboolean
register_dynamic (ZkrServiceDiscovery *discovery, const ZkrServiceInstance *instance,
                  const char *path, const char *json, gsize len, const Deadline *deadline,
                  GCancellable *cancellable, GError **error)
{
  ZkrCreateMode mode = zkr_service_instance_get_service_type (instance)
                               == ZKR_SERVICE_DYNAMIC_SEQUENTIAL
                           ? ZKR_CREATE_EPHEMERAL_SEQUENTIAL
                           : ZKR_CREATE_EPHEMERAL;
  g_autoptr (ZkrPersistentNode) node = NULL;
  gboolean made;

  node = zkr_persistent_node_new (discovery->session, path, mode, FALSE, json, len, error);
  if (node == NULL || !zkr_persistent_node_start (node, error))
    return FALSE;
  made = zkr_persistent_node_wait_for_initial_create (node, deadline_left (deadline),
                                                      cancellable, error);
  /* Kept even when the first creation is not confirmed in time: it goes on
   * in the background, and unregister or close stops it. */
  g_mutex_lock (&discovery->lock);
  g_hash_table_replace (discovery->dynamic,
                        dynamic_key (zkr_service_instance_get_name (instance),
                                     zkr_service_instance_get_id (instance)),
                        g_steal_pointer (&node));
  g_mutex_unlock (&discovery->lock);
  return made;
}

/* Curator's way for a PERSISTENT registration: an existing node is
 * deleted and made again, so that its watchers fire. */
static gboolean
register_persistent (ZkrServiceDiscovery *discovery, const char *path, const char *json,
                     gsize len, const Deadline *deadline, GCancellable *cancellable,
                     GError **error)
{
  for (int tries = 0;; tries++)
    {
      g_autoptr (GError) local = NULL;

      if (zkr_node_create (discovery->session, path, json, len, ZKR_CREATE_PERSISTENT,
                           ZKR_CREATE_PARENTS_CONTAINER, deadline_left (deadline), cancellable,
                           NULL, NULL, &local))
        return TRUE;
      if (tries > 0 || !g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NODE_EXISTS))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_error (&local);
      if (!zkr_node_delete (discovery->session, path, -1, deadline_left (deadline),
                            cancellable, &local)
          && !g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
    }
}

gboolean
zkr_service_discovery_register (ZkrServiceDiscovery *discovery,
                                const ZkrServiceInstance *instance, int timeout_ms,
                                GCancellable *cancellable, GError **error)
{
  Deadline deadline = deadline_start (timeout_ms);
  const char *name, *id;
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  gsize len = 0;
  ZkrServiceType type;

  g_return_val_if_fail (discovery != NULL, FALSE);
  g_return_val_if_fail (instance != NULL, FALSE);
  name = zkr_service_instance_get_name (instance);
  id = zkr_service_instance_get_id (instance);
  path = instance_path (discovery, name, id);
  if (!zkr__path_validate (path, error))
    return FALSE;
  /* Refused before anything is sent: what no reader would take. */
  json = zkr_service_instance_to_json (instance, &len, error);
  if (json == NULL)
    return FALSE;
  /* Refused at once, before the old registration goes: a DYNAMIC node's
   * create over ZooKeeper's size limit would never be made. */
  if (!zkr__node_check_request_size (discovery->session, "register service instance", path, len,
                                     &(ZkrCreateOptions) { .mode = ZKR_CREATE_EPHEMERAL },
                                     error))
    return FALSE;
  /* A registration of the same id replaces ours (Curator's too): the old
   * one stops being kept first, so that it cannot make its node again. */
  {
    ZkrPersistentNode *old = dynamic_steal (discovery, name, id);
    gboolean closed = old == NULL
                      || zkr_persistent_node_close (old, deadline_left (&deadline), cancellable,
                                                    error);

    zkr_persistent_node_unref (old);
    if (!closed)
      return FALSE;
  }
  type = zkr_service_instance_get_service_type (instance);
  if (type == ZKR_SERVICE_DYNAMIC || type == ZKR_SERVICE_DYNAMIC_SEQUENTIAL)
    return register_dynamic (discovery, instance, path, json, len, &deadline, cancellable,
                             error);
  return register_persistent (discovery, path, json, len, &deadline, cancellable, error);
}

gboolean
zkr_service_discovery_update (ZkrServiceDiscovery *discovery,
                              const ZkrServiceInstance *instance, int timeout_ms,
                              GCancellable *cancellable, GError **error)
{
  const char *name, *id;
  g_autofree char *key = NULL;
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  g_autofree char *actual = NULL;
  ZkrPersistentNode *node;
  gsize len = 0;

  g_return_val_if_fail (discovery != NULL, FALSE);
  g_return_val_if_fail (instance != NULL, FALSE);
  name = zkr_service_instance_get_name (instance);
  id = zkr_service_instance_get_id (instance);
  path = instance_path (discovery, name, id);
  json = zkr_service_instance_to_json (instance, &len, error);
  if (json == NULL)
    return FALSE;
  key = dynamic_key (name, id);
  g_mutex_lock (&discovery->lock);
  node = g_hash_table_lookup (discovery->dynamic, key);
  if (node != NULL)
    zkr_persistent_node_ref (node);
  g_mutex_unlock (&discovery->lock);
  if (node != NULL)
    {
      /* Our DYNAMIC node: its data for every re-creation, and the write
       * below confirms it by the deadline. */
      gboolean set = zkr_persistent_node_set_data (node, json, len, error);

      actual = zkr_persistent_node_dup_actual_path (node);
      zkr_persistent_node_unref (node);
      if (!set)
        return FALSE;
    }
  return zkr_node_set (discovery->session, actual != NULL ? actual : path, json, len, -1,
                       timeout_ms, cancellable, NULL, error);
}

gboolean
zkr_service_discovery_unregister (ZkrServiceDiscovery *discovery, const char *name,
                                  const char *id, int timeout_ms, GCancellable *cancellable,
                                  GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *path = NULL;
  ZkrPersistentNode *node;

  g_return_val_if_fail (discovery != NULL, FALSE);
  g_return_val_if_fail (name != NULL && id != NULL, FALSE);
  if (!zkr__discovery_instance_validate_name ("service name", name, error)
      || !zkr__discovery_instance_validate_name ("instance id", id, error))
    return FALSE;
  node = dynamic_steal (discovery, name, id);
  if (node != NULL)
    {
      /* Its close is the guaranteed delete of its node, whatever its name. */
      gboolean closed = zkr_persistent_node_close (node, timeout_ms, cancellable, error);

      zkr_persistent_node_unref (node);
      return closed;
    }
  path = instance_path (discovery, name, id);
  if (zkr_node_delete (discovery->session, path, -1, timeout_ms, cancellable, &local)
      || g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

gboolean
zkr_service_discovery_close (ZkrServiceDiscovery *discovery, int timeout_ms,
                             GCancellable *cancellable, GError **error)
{
  Deadline deadline = deadline_start (timeout_ms);
  GHashTable *dynamic;
  GHashTableIter iter;
  gpointer node;
  gboolean closed = TRUE;

  g_return_val_if_fail (discovery != NULL, FALSE);
  g_mutex_lock (&discovery->lock);
  dynamic = g_steal_pointer (&discovery->dynamic);
  discovery->dynamic = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) zkr_persistent_node_unref);
  g_mutex_unlock (&discovery->lock);
  g_hash_table_iter_init (&iter, dynamic);
  /* Every node is closed (each goes on in the background if it fails);
   * the first error is the answer. */
  while (g_hash_table_iter_next (&iter, NULL, &node))
    if (!zkr_persistent_node_close (node, deadline_left (&deadline), cancellable,
                                    closed ? error : NULL))
      closed = FALSE;
  g_hash_table_unref (dynamic);
  return closed;
}

/* ---- queries --------------------------------------------------------------------------- */

static char **
children_or_none (ZkrServiceDiscovery *discovery, const char *path, const Deadline *deadline,
                  GCancellable *cancellable, GError **error)
{
  g_autoptr (GError) local = NULL;
  char **children = zkr_node_get_children (discovery->session, path, deadline_left (deadline),
                                           cancellable, NULL, &local);

  if (children != NULL)
    return children;
  if (g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    return g_new0 (char *, 1);
  g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
}

char **
zkr_service_discovery_query_names (ZkrServiceDiscovery *discovery, int timeout_ms,
                                   GCancellable *cancellable, GError **error)
{
  Deadline deadline = deadline_start (timeout_ms);

  g_return_val_if_fail (discovery != NULL, NULL);
  return children_or_none (discovery, discovery->base_path, &deadline, cancellable, error);
}

/* Reads and parses one instance node: FALSE only for a failure of the
 * read; a node gone meanwhile or not an instance leaves *out NULL. */
static gboolean
read_instance (ZkrServiceDiscovery *discovery, const char *path, const Deadline *deadline,
               GCancellable *cancellable, ZkrServiceInstance **out, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GBytes) data = NULL;
  gsize len = 0;
  const void *bytes;

  *out = NULL;
  data = zkr_node_get (discovery->session, path, deadline_left (deadline), cancellable, NULL,
                       &local);
  if (data == NULL)
    {
      if (g_error_matches (local, ZKR_ERROR, ZKR_ERROR_NO_NODE))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  bytes = g_bytes_get_data (data, &len);
  *out = zkr_service_instance_from_json (bytes != NULL ? bytes : "", len, &local);
  if (*out == NULL)
    {
      /* Someone else's node: the path is ours to name, its data is not
       * shown (it may hold anything). */
      g_autofree char *quoted = zkr__path_quote_value (path, -1);

      g_warning ("discovery: skipped %s: %s", quoted, local->message);
    }
  return TRUE;
}

GPtrArray *
zkr_service_discovery_query_instances (ZkrServiceDiscovery *discovery, const char *name,
                                       int timeout_ms, GCancellable *cancellable,
                                       GError **error)
{
  Deadline deadline = deadline_start (timeout_ms);
  g_autoptr (GPtrArray) instances = NULL;
  g_autofree char *service = NULL;
  g_auto (GStrv) ids = NULL;

  g_return_val_if_fail (discovery != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  if (!zkr__discovery_instance_validate_name ("service name", name, error))
    return NULL;
  service = zkr__path_join (discovery->base_path, name);
  ids = children_or_none (discovery, service, &deadline, cancellable, error);
  if (ids == NULL)
    return NULL;
  instances = g_ptr_array_new_with_free_func ((GDestroyNotify) zkr_service_instance_free);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autofree char *path = zkr__path_join (service, ids[i]);
      ZkrServiceInstance *instance;

      if (!read_instance (discovery, path, &deadline, cancellable, &instance, error))
        return NULL;
      if (instance != NULL)
        g_ptr_array_add (instances, instance);
    }
  return g_steal_pointer (&instances);
}

ZkrSession *
zkr__discovery_get_session (ZkrServiceDiscovery *discovery)
{
  return discovery->session;
}
