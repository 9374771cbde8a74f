/* zkr: the public node operations (include/zkr/node.h): input checked in
 * the caller's call (nothing sent for bad input), the call's answer (core/call.h) made there, the
 * request handed to core/node-op.c, results taken apart in _finish; each
 * blocking call is its async twin run to completion in a private context. */

#include <string.h>

#include <zookeeper/zookeeper.h>

#include "context.h"
#include "error-private.h"
#include "node-private.h"
#include "nodename.h"
#include "path.h"
#include "session-private.h"

static const char *const kind_names[] = {
  [ZKR_NODE_CREATE] = "create", [ZKR_NODE_GET] = "get",
  [ZKR_NODE_SET] = "set",       [ZKR_NODE_DELETE] = "delete",
  [ZKR_NODE_EXISTS] = "exists", [ZKR_NODE_CHILDREN] = "get_children",
  [ZKR_NODE_MULTI] = "transaction", [ZKR_NODE_SYNC] = "sync",
};

const char *
zkr__node_kind_name (ZkrNodeKind kind)
{
  return kind_names[kind];
}

/* ---- input --------------------------------------------------------- */

gboolean
zkr__node_mode_is_sequential (ZkrCreateMode mode)
{
  return mode == ZKR_CREATE_PERSISTENT_SEQUENTIAL || mode == ZKR_CREATE_EPHEMERAL_SEQUENTIAL ||
         mode == ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL;
}

static gboolean
mode_has_ttl (ZkrCreateMode mode)
{
  return mode == ZKR_CREATE_PERSISTENT_WITH_TTL || mode == ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL;
}

int
zkr__node_mode_flags (ZkrCreateMode mode)
{
  switch (mode)
    {
    case ZKR_CREATE_EPHEMERAL:
      return ZOO_EPHEMERAL;
    case ZKR_CREATE_PERSISTENT_SEQUENTIAL:
      return ZOO_SEQUENCE;
    case ZKR_CREATE_EPHEMERAL_SEQUENTIAL:
      return ZOO_EPHEMERAL | ZOO_SEQUENCE;
    case ZKR_CREATE_CONTAINER:
      return ZOO_CONTAINER;
    case ZKR_CREATE_PERSISTENT_WITH_TTL:
      return ZOO_PERSISTENT_WITH_TTL;
    case ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL:
      return ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL;
    case ZKR_CREATE_PERSISTENT:
    default:
      return ZOO_PERSISTENT;
    }
}

static gboolean
invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

/* A sequential create's path is a prefix: ZooKeeper accepts one ending in
 * '/' ("/jobs/" -> "/jobs/0000000007"), as its own check does (it checks
 * the path with a digit appended). */
gboolean
zkr__node_check_path (const char *path, ZkrNodeKind kind, gboolean sequential, GError **error)
{
  gsize len = strlen (path);

  if (sequential && len > 1 && path[len - 1] == '/')
    {
      g_autofree char *prefix = g_strndup (path, len - 1);

      return zkr__path_validate (prefix, error);
    }
  if (!zkr__path_validate (path, error))
    return FALSE;
  if (strcmp (path, "/") == 0 && !sequential &&
      (kind == ZKR_NODE_CREATE || kind == ZKR_NODE_DELETE))
    return invalid (error, "invalid path \"/\": cannot %s the root", kind_names[kind]);
  return TRUE;
}

gboolean
zkr__node_check_data (const void *data, gsize len, GError **error)
{
  if (data == NULL && len > 0)
    return invalid (error, "invalid data: NULL with a length of %" G_GSIZE_FORMAT " bytes", len);
  if (len > ZKR_NODE_MAX_DATA_SIZE)
    return invalid (error,
                    "invalid data length %" G_GSIZE_FORMAT " bytes: more than ZooKeeper takes "
                    "(%d bytes, ZKR_NODE_MAX_DATA_SIZE)", len, ZKR_NODE_MAX_DATA_SIZE);
  return TRUE;
}

gboolean
zkr__node_check_version (int version, GError **error)
{
  if (version < -1)
    return invalid (error, "invalid version %d: a data version (>= 0), or -1 for any", version);
  return TRUE;
}

gboolean
zkr__node_check_mode (ZkrCreateMode mode, GError **error)
{
  if (mode_has_ttl (mode))
    return invalid (error,
                    "invalid create mode %d (a TTL mode) here: it needs a TTL, which only "
                    "zkr_node_create_full() takes (not a transaction)", (int) mode);
  if ((guint) mode > ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL)
    return invalid (error, "invalid create mode %d", (int) mode);
  return TRUE;
}

/* ZooKeeper's own rule (EphemeralType): a TTL mode takes 1 ms to 2^40 - 1
 * ms, and no other mode takes one. */
static gboolean
check_mode_ttl (ZkrCreateMode mode, gint64 ttl_ms, GError **error)
{
  if ((guint) mode > ZKR_CREATE_PERSISTENT_SEQUENTIAL_WITH_TTL)
    return invalid (error, "invalid create mode %d", (int) mode);
  if (mode_has_ttl (mode) && (ttl_ms <= 0 || ttl_ms > ZKR_NODE_TTL_MAX_MS))
    return invalid (error,
                    "invalid TTL %" G_GINT64_FORMAT " ms for create mode %d: 1 to %" G_GINT64_FORMAT
                    " ms", ttl_ms, (int) mode, ZKR_NODE_TTL_MAX_MS);
  if (!mode_has_ttl (mode) && ttl_ms != 0)
    return invalid (error,
                    "invalid TTL %" G_GINT64_FORMAT " ms: create mode %d takes none (only the "
                    "TTL modes do)", ttl_ms, (int) mode);
  return TRUE;
}

/* Ids are credentials (a digest's hash): never in a message. */
static gboolean
check_acl (const ZkrAclEntry *acl, guint n_acl, GError **error)
{
  if (acl == NULL && n_acl > 0)
    return invalid (error, "invalid ACL: NULL with %u entries", n_acl);
  if (acl != NULL && n_acl == 0)
    return invalid (error, "invalid ACL: no entry (n_acl 0; NULL for the session's ACL)");
  for (guint i = 0; i < n_acl; i++)
    {
      if (acl[i].scheme == NULL || acl[i].id == NULL)
        return invalid (error, "invalid ACL entry %u: a NULL %s", i,
                        acl[i].scheme == NULL ? "scheme" : "id");
      if ((acl[i].perms & ~(guint) ZKR_PERM_ALL) != 0)
        return invalid (error, "invalid ACL entry %u: permissions 0x%x (only 0x%x are known)", i,
                        acl[i].perms, (guint) ZKR_PERM_ALL);
    }
  return TRUE;
}

/* The op door's own count (zkr__op_request_size), asked at the call's
 * start so that the refusal comes before anything is queued; the door
 * refuses the same request again should anything get past this. */
gboolean
zkr__node_check_request_size (ZkrSession *session, const char *op, const char *path, gsize len,
                              const ZkrCreateOptions *options, GError **error)
{
  const char *name_space = zkr__session_get_options (session)->name_space;
  ZkrRequestPart part = { .kind = ZKR_REQUEST_SET, .data_len = (gssize) len };
  struct ACL_vector *acl = NULL;
  gsize size;

  part.path_len = zkr__path_prefix_namespace_len (name_space, path);
  if (options != NULL)
    {
      part.kind = mode_has_ttl (options->mode) ? ZKR_REQUEST_CREATE_TTL : ZKR_REQUEST_CREATE;
      if (options->protection)
        part.path_len += ZKR_NODE_PROTECTED_PREFIX_LEN;
      if (options->acl != NULL)
        part.acl = acl = zkr__node_acl_new (options->acl, options->n_acl);
    }
  size = zkr__op_request_size (session, &part, 1, FALSE);
  zkr__node_acl_free (acl);
  if (size <= ZKR_NODE_MAX_REQUEST_SIZE)
    return TRUE;
  zkr__error_set_request_too_large (error, op, path, size);
  return FALSE;
}

static gboolean
create_check (ZkrSession *session, const char *path, const void *data, gsize len,
              const ZkrCreateOptions *options, GError **error)
{
  if (!check_mode_ttl (options->mode, options->ttl_ms, error))
    return FALSE;
  if ((guint) options->parents > ZKR_CREATE_PARENTS_CONTAINER)
    return invalid (error, "invalid create-parents choice %d", (int) options->parents);
  return zkr__node_check_path (path, ZKR_NODE_CREATE, zkr__node_mode_is_sequential (options->mode),
                               error) &&
         zkr__node_check_data (data, len, error) &&
         check_acl (options->acl, options->n_acl, error) &&
         zkr__node_check_request_size (session, "create", path, len, options, error);
}

struct ACL_vector *
zkr__node_acl_new (const ZkrAclEntry *entries, guint n_entries)
{
  struct ACL_vector *acl = g_new0 (struct ACL_vector, 1);

  acl->count = (gint32) n_entries;
  acl->data = g_new0 (struct ACL, n_entries);
  for (guint i = 0; i < n_entries; i++)
    {
      acl->data[i].perms = (gint32) entries[i].perms;
      acl->data[i].id.scheme = g_strdup (entries[i].scheme);
      acl->data[i].id.id = g_strdup (entries[i].id);
    }
  return acl;
}

void
zkr__node_acl_free (struct ACL_vector *acl)
{
  if (acl == NULL)
    return;
  for (gint32 i = 0; i < acl->count; i++)
    {
      g_free (acl->data[i].id.scheme);
      g_free (acl->data[i].id.id);
    }
  g_free (acl->data);
  g_free (acl);
}

/* ---- calls ----------------------------------------------------------- */

/* Made in the user's call, so the call captures the user's context. With
 * @checked FALSE the input was refused (@error): answered from the call's
 * context, later, nothing sent. */
static void
node_start (ZkrSession *session, const ZkrNodeRequest *request, int timeout_ms,
            GCancellable *cancellable, ZkrCall *call, gboolean checked, GError *error)
{
  if (!checked)
    {
      zkr__call_return (call, NULL, NULL, error);
      return;
    }
  zkr__node_op_start (session, request, timeout_ms, cancellable, call);
}

static ZkrNodeResult *
node_finish (GAsyncResult *result, ZkrStat *stat, GError **error)
{
  ZkrNodeResult *answer = zkr__call_propagate (result, error);

  if (answer != NULL && stat != NULL && answer->has_stat)
    *stat = answer->stat;
  return answer;
}

#define FINISH_CHECKS(session, result, tag, value)                      \
  G_STMT_START {                                                        \
    g_return_val_if_fail ((session) != NULL, value);                    \
    g_return_val_if_fail (zkr__call_is_tagged ((result), (tag)), value); \
  } G_STMT_END

/* ---- the blocking twin ------------------------------------------------ */

/* The arguments of a call, for its blocking twin. */
typedef struct {
  ZkrSession *session;
  const char *path;
  const void *data;
  gsize len;
  ZkrCreateMode mode;
  ZkrCreateParents parents;
  int version;
  int timeout_ms;
  const ZkrCreateOptions *options;
  ZkrDeleteFlags delete_flags;
} NodeArgs;

/* ---- create ------------------------------------------------------------ */

static void
create_begin (ZkrSession *session, const char *path, const void *data, gsize len,
              const ZkrCreateOptions *options, int timeout_ms, GCancellable *cancellable,
              GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag)
{
  static const ZkrCreateOptions defaults = { 0 };
  GError *error = NULL;
  gboolean checked;
  ZkrNodeRequest request = { .kind = ZKR_NODE_CREATE, .path = path, .data = data, .len = len,
                             .version = -1 };

  if (options == NULL)
    options = &defaults;
  checked = create_check (session, path, data, len, options, &error);
  if (checked)
    {
      request.zk_flags = zkr__node_mode_flags (options->mode);
      request.parents = options->parents;
      request.acl = options->acl;
      request.n_acl = options->n_acl;
      request.ttl_ms = options->ttl_ms;
      request.protection = options->protection;
    }
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (source_tag, callback, user_data),
              checked, error);
}

void
zkr_node_create_async (ZkrSession *session, const char *path, const void *data, gsize len,
                       ZkrCreateMode mode, ZkrCreateParents parents, int timeout_ms,
                       GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  ZkrCreateOptions options = { .mode = mode, .parents = parents };
  GError *error = NULL;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_create_async() called");
  if (!zkr__node_check_mode (mode, &error))
    {
      node_start (session, NULL, timeout_ms, cancellable,
                  zkr__call_new (zkr_node_create_async, callback, user_data),
                  FALSE, error);
      return;
    }
  create_begin (session, path, data, len, &options, timeout_ms, cancellable, callback, user_data,
                zkr_node_create_async);
}

void
zkr_node_create_full_async (ZkrSession *session, const char *path, const void *data, gsize len,
                            const ZkrCreateOptions *options, int timeout_ms,
                            GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_create_full_async() called");
  create_begin (session, path, data, len, options, timeout_ms, cancellable, callback, user_data,
                zkr_node_create_full_async);
}

static gboolean
create_take (GAsyncResult *result, char **created_path, ZkrStat *stat, GError **error)
{
  ZkrNodeResult *answer = node_finish (result, stat, error);

  if (answer == NULL)
    return FALSE;
  if (created_path != NULL)
    *created_path = g_steal_pointer (&answer->created_path);
  zkr__node_result_free (answer);
  return TRUE;
}

gboolean
zkr_node_create_finish (ZkrSession *session, GAsyncResult *result, char **created_path,
                        ZkrStat *stat, GError **error)
{
  FINISH_CHECKS (session, result, zkr_node_create_async, FALSE);
  return create_take (result, created_path, stat, error);
}

gboolean
zkr_node_create_full_finish (ZkrSession *session, GAsyncResult *result, char **created_path,
                             ZkrStat *stat, GError **error)
{
  FINISH_CHECKS (session, result, zkr_node_create_full_async, FALSE);
  return create_take (result, created_path, stat, error);
}

static void
create_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_create_async (args->session, args->path, args->data, args->len, args->mode,
                         args->parents, args->timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_node_create (ZkrSession *session, const char *path, const void *data, gsize len,
                 ZkrCreateMode mode, ZkrCreateParents parents, int timeout_ms,
                 GCancellable *cancellable, char **created_path, ZkrStat *stat,
                 GError **error)
{
  NodeArgs args = { session, path, data, len, mode, parents, -1, timeout_ms, NULL, 0 };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = zkr__context_run_sync_reusing (create_start, &args, cancellable);
  ok = zkr_node_create_finish (session, result, created_path, stat, error);
  zkr__call_release (result);
  return ok;
}

static void
create_full_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_create_full_async (args->session, args->path, args->data, args->len, args->options,
                              args->timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_node_create_full (ZkrSession *session, const char *path, const void *data, gsize len,
                      const ZkrCreateOptions *options, int timeout_ms,
                      GCancellable *cancellable, char **created_path, ZkrStat *stat,
                      GError **error)
{
  NodeArgs args = { .session = session, .path = path, .data = data, .len = len,
                    .options = options, .timeout_ms = timeout_ms };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = zkr__context_run_sync_reusing (create_full_start, &args, cancellable);
  ok = zkr_node_create_full_finish (session, result, created_path, stat, error);
  zkr__call_release (result);
  return ok;
}

/* ---- get --------------------------------------------------------------- */

void
zkr_node_get_async (ZkrSession *session, const char *path, int timeout_ms,
                    GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_GET, .path = path, .version = -1 };
  gboolean checked;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_get_async() called");
  checked = zkr__node_check_path (path, ZKR_NODE_GET, FALSE, &error);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (zkr_node_get_async, callback, user_data),
              checked, error);
}

GBytes *
zkr_node_get_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat, GError **error)
{
  ZkrNodeResult *answer;
  GBytes *data;

  FINISH_CHECKS (session, result, zkr_node_get_async, NULL);
  answer = node_finish (result, stat, error);
  if (answer == NULL)
    return NULL;
  data = g_steal_pointer (&answer->data);
  zkr__node_result_free (answer);
  return data;
}

static void
get_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
           gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_get_async (args->session, args->path, args->timeout_ms, cancellable, callback,
                      user_data);
}

GBytes *
zkr_node_get (ZkrSession *session, const char *path, int timeout_ms, GCancellable *cancellable,
              ZkrStat *stat, GError **error)
{
  NodeArgs args = { .session = session, .path = path, .timeout_ms = timeout_ms };
  GAsyncResult *result;
  GBytes *data;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  result = zkr__context_run_sync_reusing (get_start, &args, cancellable);
  data = zkr_node_get_finish (session, result, stat, error);
  zkr__call_release (result);
  return data;
}

/* ---- set --------------------------------------------------------------- */

void
zkr_node_set_async (ZkrSession *session, const char *path, const void *data, gsize len,
                    int version, int timeout_ms, GCancellable *cancellable,
                    GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_SET, .path = path, .data = data, .len = len,
                             .version = version };
  gboolean checked;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_set_async() called");
  checked = zkr__node_check_path (path, ZKR_NODE_SET, FALSE, &error) &&
            zkr__node_check_data (data, len, &error) &&
            zkr__node_check_version (version, &error) &&
            zkr__node_check_request_size (session, "set", path, len, NULL, &error);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (zkr_node_set_async, callback, user_data),
              checked, error);
}

gboolean
zkr_node_set_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat, GError **error)
{
  ZkrNodeResult *answer;

  FINISH_CHECKS (session, result, zkr_node_set_async, FALSE);
  answer = node_finish (result, stat, error);
  zkr__node_result_free (answer);
  return answer != NULL;
}

static void
set_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
           gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_set_async (args->session, args->path, args->data, args->len, args->version,
                      args->timeout_ms, cancellable, callback, user_data);
}

gboolean
zkr_node_set (ZkrSession *session, const char *path, const void *data, gsize len, int version,
              int timeout_ms, GCancellable *cancellable, ZkrStat *stat, GError **error)
{
  NodeArgs args = { session, path, data, len, 0, 0, version, timeout_ms, NULL, 0 };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = zkr__context_run_sync_reusing (set_start, &args, cancellable);
  ok = zkr_node_set_finish (session, result, stat, error);
  zkr__call_release (result);
  return ok;
}

/* ---- delete ------------------------------------------------------------ */

static void
delete_begin (ZkrSession *session, const char *path, int version, ZkrDeleteFlags flags,
              int timeout_ms, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data, gpointer source_tag)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_DELETE, .path = path, .version = version,
                             .delete_flags = flags };
  gboolean checked;

  checked = zkr__node_check_path (path, ZKR_NODE_DELETE, FALSE, &error) &&
            zkr__node_check_version (version, &error);
  if (checked && (flags & ~(ZKR_DELETE_CHILDREN | ZKR_DELETE_GUARANTEED)) != 0)
    checked = invalid (&error, "invalid delete flags 0x%x", (guint) flags);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (source_tag, callback, user_data),
              checked, error);
}

void
zkr_node_delete_async (ZkrSession *session, const char *path, int version, int timeout_ms,
                       GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_delete_async() called");
  delete_begin (session, path, version, ZKR_DELETE_NONE, timeout_ms, cancellable, callback,
                user_data, zkr_node_delete_async);
}

void
zkr_node_delete_full_async (ZkrSession *session, const char *path, int version,
                            ZkrDeleteFlags flags, int timeout_ms, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_delete_full_async() called");
  delete_begin (session, path, version, flags, timeout_ms, cancellable, callback, user_data,
                zkr_node_delete_full_async);
}

/* An answer without a value: delete, sync. */
static gboolean
done_take (GAsyncResult *result, GError **error)
{
  ZkrNodeResult *answer = node_finish (result, NULL, error);

  zkr__node_result_free (answer);
  return answer != NULL;
}

gboolean
zkr_node_delete_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  FINISH_CHECKS (session, result, zkr_node_delete_async, FALSE);
  return done_take (result, error);
}

gboolean
zkr_node_delete_full_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  FINISH_CHECKS (session, result, zkr_node_delete_full_async, FALSE);
  return done_take (result, error);
}

static void
delete_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_delete_full_async (args->session, args->path, args->version, args->delete_flags,
                              args->timeout_ms, cancellable, callback, user_data);
}

static gboolean
delete_run (NodeArgs *args, GCancellable *cancellable, GError **error)
{
  GAsyncResult *result = zkr__context_run_sync_reusing (delete_start, args, cancellable);
  gboolean ok = zkr_node_delete_full_finish (args->session, result, error);

  zkr__call_release (result);
  return ok;
}

gboolean
zkr_node_delete (ZkrSession *session, const char *path, int version, int timeout_ms,
                 GCancellable *cancellable, GError **error)
{
  NodeArgs args = { .session = session, .path = path, .version = version,
                    .timeout_ms = timeout_ms };

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  return delete_run (&args, cancellable, error);
}

gboolean
zkr_node_delete_full (ZkrSession *session, const char *path, int version, ZkrDeleteFlags flags,
                      int timeout_ms, GCancellable *cancellable, GError **error)
{
  NodeArgs args = { .session = session, .path = path, .version = version,
                    .timeout_ms = timeout_ms, .delete_flags = flags };

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  return delete_run (&args, cancellable, error);
}

gboolean
zkr_node_delete_tree (ZkrSession *session, const char *path, int timeout_ms,
                      GCancellable *cancellable, GError **error)
{
  return zkr_node_delete_full (session, path, -1, ZKR_DELETE_CHILDREN, timeout_ms, cancellable,
                               error);
}

/* ---- sync -------------------------------------------------------------- */

void
zkr_node_sync_async (ZkrSession *session, const char *path, int timeout_ms,
                     GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_SYNC, .path = path, .version = -1 };
  gboolean checked;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_sync_async() called");
  checked = zkr__node_check_path (path, ZKR_NODE_SYNC, FALSE, &error);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (zkr_node_sync_async, callback, user_data),
              checked, error);
}

gboolean
zkr_node_sync_finish (ZkrSession *session, GAsyncResult *result, GError **error)
{
  FINISH_CHECKS (session, result, zkr_node_sync_async, FALSE);
  return done_take (result, error);
}

static void
sync_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_sync_async (args->session, args->path, args->timeout_ms, cancellable, callback,
                       user_data);
}

gboolean
zkr_node_sync (ZkrSession *session, const char *path, int timeout_ms, GCancellable *cancellable,
               GError **error)
{
  NodeArgs args = { .session = session, .path = path, .timeout_ms = timeout_ms };
  GAsyncResult *result;
  gboolean ok;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = zkr__context_run_sync_reusing (sync_start, &args, cancellable);
  ok = zkr_node_sync_finish (session, result, error);
  zkr__call_release (result);
  return ok;
}

/* ---- exists ------------------------------------------------------------ */

void
zkr_node_exists_async (ZkrSession *session, const char *path, int timeout_ms,
                       GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_EXISTS, .path = path, .version = -1 };
  gboolean checked;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_exists_async() called");
  checked = zkr__node_check_path (path, ZKR_NODE_EXISTS, FALSE, &error);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (zkr_node_exists_async, callback, user_data),
              checked, error);
}

gboolean
zkr_node_exists_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat,
                        GError **error)
{
  ZkrNodeResult *answer;
  gboolean exists;

  FINISH_CHECKS (session, result, zkr_node_exists_async, FALSE);
  answer = node_finish (result, stat, error);
  exists = answer != NULL && answer->exists;
  zkr__node_result_free (answer);
  return exists;
}

static void
exists_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_exists_async (args->session, args->path, args->timeout_ms, cancellable, callback,
                         user_data);
}

gboolean
zkr_node_exists (ZkrSession *session, const char *path, int timeout_ms,
                 GCancellable *cancellable, ZkrStat *stat, GError **error)
{
  NodeArgs args = { .session = session, .path = path, .timeout_ms = timeout_ms };
  GAsyncResult *result;
  gboolean exists;

  g_return_val_if_fail (session != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  result = zkr__context_run_sync_reusing (exists_start, &args, cancellable);
  exists = zkr_node_exists_finish (session, result, stat, error);
  zkr__call_release (result);
  return exists;
}

/* ---- get_children ------------------------------------------------------ */

void
zkr_node_get_children_async (ZkrSession *session, const char *path, int timeout_ms,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
  GError *error = NULL;
  ZkrNodeRequest request = { .kind = ZKR_NODE_CHILDREN, .path = path, .version = -1 };
  gboolean checked;

  g_return_if_fail (session != NULL);
  g_return_if_fail (path != NULL);
  zkr__context_assert_user ("zkr_node_get_children_async() called");
  checked = zkr__node_check_path (path, ZKR_NODE_CHILDREN, FALSE, &error);
  node_start (session, &request, timeout_ms, cancellable,
              zkr__call_new (zkr_node_get_children_async, callback, user_data),
              checked, error);
}

char **
zkr_node_get_children_finish (ZkrSession *session, GAsyncResult *result, ZkrStat *stat,
                              GError **error)
{
  ZkrNodeResult *answer;
  char **children;

  FINISH_CHECKS (session, result, zkr_node_get_children_async, NULL);
  answer = node_finish (result, stat, error);
  if (answer == NULL)
    return NULL;
  children = g_steal_pointer (&answer->children);
  zkr__node_result_free (answer);
  return children;
}

static void
children_start (gpointer data, GCancellable *cancellable, GAsyncReadyCallback callback,
                gpointer user_data)
{
  NodeArgs *args = data;

  zkr_node_get_children_async (args->session, args->path, args->timeout_ms, cancellable,
                               callback, user_data);
}

char **
zkr_node_get_children (ZkrSession *session, const char *path, int timeout_ms,
                       GCancellable *cancellable, ZkrStat *stat, GError **error)
{
  NodeArgs args = { .session = session, .path = path, .timeout_ms = timeout_ms };
  GAsyncResult *result;
  char **children;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  result = zkr__context_run_sync_reusing (children_start, &args, cancellable);
  children = zkr_node_get_children_finish (session, result, stat, error);
  zkr__call_release (result);
  return children;
}
