/* zkr: the ZKR_ERROR domain, the one place where ZooKeeper's integer
 * return codes become ZkrError codes and messages, and the one maker of a
 * cancelled call's error (G_IO_ERROR_CANCELLED). */

#include <zkr/node.h>
#include <zookeeper/zookeeper.h>

#include "error-private.h"

/* Not G_DEFINE_QUARK: its first call races with another thread's first
 * call (a plain static written by whichever comes first; harmless, but a
 * data race to ThreadSanitizer, and the first use can well be a deadline
 * on the worker while the caller's thread names the domain). */
GQuark
zkr_error_quark (void)
{
  static gsize quark = 0;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("zkr-error-quark"));
  return (GQuark) quark;
}

/* ZKR_ERROR_CANCELLED is never produced any more (error.h) but still
 * named: the codes are stable. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
static const char *const error_code_names[] = {
  [ZKR_ERROR_INVALID_ARGUMENT] = "ZKR_ERROR_INVALID_ARGUMENT",
  [ZKR_ERROR_TIMEOUT] = "ZKR_ERROR_TIMEOUT",
  [ZKR_ERROR_CANCELLED] = "ZKR_ERROR_CANCELLED",
  [ZKR_ERROR_CONNECTION_LOSS] = "ZKR_ERROR_CONNECTION_LOSS",
  [ZKR_ERROR_SESSION_EXPIRED] = "ZKR_ERROR_SESSION_EXPIRED",
  [ZKR_ERROR_SESSION_CLOSED] = "ZKR_ERROR_SESSION_CLOSED",
  [ZKR_ERROR_NOT_HELD] = "ZKR_ERROR_NOT_HELD",
  [ZKR_ERROR_ALREADY_HELD] = "ZKR_ERROR_ALREADY_HELD",
  [ZKR_ERROR_LOCK_LOST] = "ZKR_ERROR_LOCK_LOST",
  [ZKR_ERROR_AUTH] = "ZKR_ERROR_AUTH",
  [ZKR_ERROR_NO_NODE] = "ZKR_ERROR_NO_NODE",
  [ZKR_ERROR_NODE_EXISTS] = "ZKR_ERROR_NODE_EXISTS",
  [ZKR_ERROR_ZOOKEEPER] = "ZKR_ERROR_ZOOKEEPER",
  [ZKR_ERROR_SESSION_MOVED] = "ZKR_ERROR_SESSION_MOVED",
  [ZKR_ERROR_NOT_EMPTY] = "ZKR_ERROR_NOT_EMPTY",
  [ZKR_ERROR_BAD_VERSION] = "ZKR_ERROR_BAD_VERSION",
  [ZKR_ERROR_INTERNAL] = "ZKR_ERROR_INTERNAL",
  [ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS] = "ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS",
  [ZKR_ERROR_INVALID_ACL] = "ZKR_ERROR_INVALID_ACL",
  [ZKR_ERROR_UNIMPLEMENTED] = "ZKR_ERROR_UNIMPLEMENTED",
  [ZKR_ERROR_NO_WATCHER] = "ZKR_ERROR_NO_WATCHER",
};
G_GNUC_END_IGNORE_DEPRECATIONS

const char *
zkr_error_code_name (ZkrError code)
{
  if ((int) code <= 0 || (gsize) code >= G_N_ELEMENTS (error_code_names))
    return "ZKR_ERROR_UNKNOWN";
  return error_code_names[code];
}

const char *
zkr_error_name (const GError *error)
{
  if (error == NULL)
    return "NONE";
  if (error->domain == ZKR_ERROR)
    return zkr_error_code_name ((ZkrError) error->code);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "G_IO_ERROR_CANCELLED";
  return "ZKR_ERROR_UNKNOWN";
}

GError *
zkr__error_new_cancelled (const char *format, ...)
{
  g_autofree char *call = NULL;
  va_list args;

  va_start (args, format);
  call = g_strdup_vprintf (format, args);
  va_end (args);
  return g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: cancelled", call);
}

gboolean
zkr_error_is_retryable (const GError *error)
{
  if (error == NULL || error->domain != ZKR_ERROR)
    return FALSE;
  return error->code == ZKR_ERROR_CONNECTION_LOSS ||
         error->code == ZKR_ERROR_SESSION_MOVED;
}

typedef struct {
  int rc;
  const char *name;
  ZkrError code;
} ZkCodeEntry;

/* One row per code the 3.8 C client can return. */
static const ZkCodeEntry zk_codes[] = {
  { ZSYSTEMERROR, "ZSYSTEMERROR", ZKR_ERROR_ZOOKEEPER },
  { ZRUNTIMEINCONSISTENCY, "ZRUNTIMEINCONSISTENCY", ZKR_ERROR_ZOOKEEPER },
  { ZDATAINCONSISTENCY, "ZDATAINCONSISTENCY", ZKR_ERROR_ZOOKEEPER },
  { ZCONNECTIONLOSS, "ZCONNECTIONLOSS", ZKR_ERROR_CONNECTION_LOSS },
  { ZMARSHALLINGERROR, "ZMARSHALLINGERROR", ZKR_ERROR_ZOOKEEPER },
  { ZUNIMPLEMENTED, "ZUNIMPLEMENTED", ZKR_ERROR_UNIMPLEMENTED },
  { ZOPERATIONTIMEOUT, "ZOPERATIONTIMEOUT", ZKR_ERROR_CONNECTION_LOSS },
  { ZBADARGUMENTS, "ZBADARGUMENTS", ZKR_ERROR_INVALID_ARGUMENT },
  { ZINVALIDSTATE, "ZINVALIDSTATE", ZKR_ERROR_SESSION_EXPIRED },
  { ZNEWCONFIGNOQUORUM, "ZNEWCONFIGNOQUORUM", ZKR_ERROR_ZOOKEEPER },
  { ZRECONFIGINPROGRESS, "ZRECONFIGINPROGRESS", ZKR_ERROR_ZOOKEEPER },
  { ZSSLCONNECTIONERROR, "ZSSLCONNECTIONERROR", ZKR_ERROR_CONNECTION_LOSS },
  { ZAPIERROR, "ZAPIERROR", ZKR_ERROR_ZOOKEEPER },
  { ZNONODE, "ZNONODE", ZKR_ERROR_NO_NODE },
  { ZNOAUTH, "ZNOAUTH", ZKR_ERROR_AUTH },
  { ZBADVERSION, "ZBADVERSION", ZKR_ERROR_BAD_VERSION },
  { ZNOCHILDRENFOREPHEMERALS, "ZNOCHILDRENFOREPHEMERALS", ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS },
  { ZNODEEXISTS, "ZNODEEXISTS", ZKR_ERROR_NODE_EXISTS },
  { ZNOTEMPTY, "ZNOTEMPTY", ZKR_ERROR_NOT_EMPTY },
  { ZSESSIONEXPIRED, "ZSESSIONEXPIRED", ZKR_ERROR_SESSION_EXPIRED },
  { ZINVALIDCALLBACK, "ZINVALIDCALLBACK", ZKR_ERROR_ZOOKEEPER },
  { ZINVALIDACL, "ZINVALIDACL", ZKR_ERROR_INVALID_ACL },
  { ZAUTHFAILED, "ZAUTHFAILED", ZKR_ERROR_AUTH },
  { ZCLOSING, "ZCLOSING", ZKR_ERROR_SESSION_CLOSED },
  { ZNOTHING, "ZNOTHING", ZKR_ERROR_ZOOKEEPER },
  { ZSESSIONMOVED, "ZSESSIONMOVED", ZKR_ERROR_SESSION_MOVED },
  { ZNOTREADONLY, "ZNOTREADONLY", ZKR_ERROR_ZOOKEEPER },
  { ZEPHEMERALONLOCALSESSION, "ZEPHEMERALONLOCALSESSION", ZKR_ERROR_ZOOKEEPER },
  { ZNOWATCHER, "ZNOWATCHER", ZKR_ERROR_NO_WATCHER },
  { ZRECONFIGDISABLED, "ZRECONFIGDISABLED", ZKR_ERROR_ZOOKEEPER },
  { ZSESSIONCLOSEDREQUIRESASLAUTH, "ZSESSIONCLOSEDREQUIRESASLAUTH", ZKR_ERROR_AUTH },
  { ZTHROTTLEDOP, "ZTHROTTLEDOP", ZKR_ERROR_CONNECTION_LOSS },
  /* zkr's own: refused before sending (core/op.c). */
  { ZKR_ZK_REQUEST_TOO_LARGE, "ZKR_REQUEST_TOO_LARGE", ZKR_ERROR_INVALID_ARGUMENT },
};

static const ZkCodeEntry *
zk_code_lookup (int rc)
{
  for (gsize i = 0; i < G_N_ELEMENTS (zk_codes); i++)
    if (zk_codes[i].rc == rc)
      return &zk_codes[i];
  return NULL;
}

ZkrError
zkr__error_code_from_zk (int rc)
{
  const ZkCodeEntry *entry;

  if (rc == ZOK)
    return 0;
  entry = zk_code_lookup (rc);
  return entry != NULL ? entry->code : ZKR_ERROR_ZOOKEEPER;
}

const char *
zkr__error_zk_name (int rc)
{
  static GPrivate unknown_buffer = G_PRIVATE_INIT (g_free);
  const ZkCodeEntry *entry;
  char *text;

  if (rc == ZOK)
    return "ZOK";
  entry = zk_code_lookup (rc);
  if (entry != NULL)
    return entry->name;
  text = g_strdup_printf ("ZUNKNOWN(%d)", rc);
  g_private_replace (&unknown_buffer, text);
  return text;
}

gboolean
zkr__error_rc_is_retryable (int rc)
{
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONMOVED ||
         rc == ZTHROTTLEDOP || rc == ZSSLCONNECTIONERROR;
}

/* Only codes that a server sends back: a reply of one of these proves the
 * request reached the server while our session lived. Anything the client
 * makes up by itself (connection loss, closing, API misuse) does not. */
gboolean
zkr__error_rc_is_server_answer (int rc)
{
  switch (rc)
    {
    case ZOK:
    case ZNONODE:
    case ZNOAUTH:
    case ZBADVERSION:
    case ZNOCHILDRENFOREPHEMERALS:
    case ZNODEEXISTS:
    case ZNOTEMPTY:
    case ZINVALIDACL:
    case ZNOTREADONLY:
    case ZEPHEMERALONLOCALSESSION:
    case ZNOWATCHER:
    case ZRECONFIGDISABLED:
    case ZTHROTTLEDOP:
      return TRUE;
    default:
      return FALSE;
    }
}

void
zkr__error_set_request_too_large (GError **error,
                                  const char *op,
                                  const char *path,
                                  gsize size)
{
  g_autofree char *size_text = size > 0 ? g_strdup_printf (" of %" G_GSIZE_FORMAT " bytes", size)
                                        : NULL;

  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "%s%s%s: invalid request%s: more than ZooKeeper takes (%d bytes, "
               "ZKR_NODE_MAX_REQUEST_SIZE); nothing was sent",
               op, path != NULL ? " " : "", path != NULL ? path : "",
               size_text != NULL ? size_text : "", ZKR_NODE_MAX_REQUEST_SIZE);
}

void
zkr__error_set_from_zk (GError **error,
                        int rc,
                        const char *op,
                        const char *path,
                        gint64 session_id)
{
  zkr__error_set_from_reply_rc (error, rc, 0, op, path, session_id);
}

void
zkr__error_set_from_reply_rc (GError **error,
                              int rc,
                              gsize request_size,
                              const char *op,
                              const char *path,
                              gint64 session_id)
{
  g_autofree char *session_text = NULL;

  g_return_if_fail (rc != ZOK);
  if (rc == ZKR_ZK_REQUEST_TOO_LARGE)
    {
      zkr__error_set_request_too_large (error, op, path, request_size);
      return;
    }
  if (session_id != 0)
    session_text = g_strdup_printf (" [session 0x%" G_GINT64_MODIFIER "x]", session_id);
  g_set_error (error, ZKR_ERROR, zkr__error_code_from_zk (rc),
               "%s%s%s: %s (%s)%s",
               op, path != NULL ? " " : "", path != NULL ? path : "",
               zkr__error_zk_name (rc), zerror (rc),
               session_text != NULL ? session_text : "");
}
