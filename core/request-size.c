/* zkr: the one count of a request's size on the wire (core/request-size.h),
 * from ZooKeeper's jute framing as libzookeeper writes it. A server closes
 * the connection of a client that sends a request over its jute.maxbuffer,
 * so core/op.c checks every request with this count before it leaves. */

#include <string.h>

#include "request-size.h"

/* Jute's binary encoding: an int is 4 bytes, a long 8, a boolean 1; a
 * string or buffer is an int length then its bytes (a NULL buffer: the
 * length -1 alone); a vector an int count then its entries. */
#define JUTE_INT 4
#define JUTE_LONG 8
#define JUTE_BOOL 1

/* Every request: an int length prefix (the frame's, which the server
 * compares with jute.maxbuffer without itself: counting it keeps 4 bytes
 * of margin), then RequestHeader {int xid; int type}. */
#define FRAME_BYTES (JUTE_INT + JUTE_INT + JUTE_INT)
/* A multi: MultiHeader {int type; boolean done; int err} before each
 * operation, and one more (type -1, done) after the last. */
#define MULTI_HEADER_BYTES (JUTE_INT + JUTE_BOOL + JUTE_INT)

static gsize
size_add (gsize a, gsize b)
{
  return a > G_MAXSIZE - b ? G_MAXSIZE : a + b;
}

/* An ACL vector: its count, then per entry ACL {int perms; Id {string
 * scheme; string id}}. */
static gsize
acl_size (const struct ACL_vector *acl)
{
  gsize size = JUTE_INT;

  for (gint32 i = 0; acl != NULL && i < acl->count; i++)
    size = size_add (size, JUTE_INT + JUTE_INT + strlen (acl->data[i].id.scheme) + JUTE_INT +
                             strlen (acl->data[i].id.id));
  return size;
}

/* One request's body (the record after the header): CreateRequest {path,
 * data, acl, flags}, CreateTTLRequest {... , long ttl}, SetDataRequest
 * {path, data, version}, DeleteRequest and CheckVersionRequest {path,
 * version}, ExistsRequest, GetDataRequest, GetChildren(2)Request {path,
 * boolean watch}, SyncRequest {path}. */
static gsize
body_size (const ZkrRequestPart *part, gsize chroot_len)
{
  /* libzookeeper's chroot: "/" alone becomes the chroot, any other path
   * gets it in front. */
  gsize path = chroot_len > 0 && part->path_len == 1 ? chroot_len
                                                      : size_add (part->path_len, chroot_len);
  gsize data = part->data_len > 0 ? (gsize) part->data_len : 0;
  gsize size = size_add (JUTE_INT, path);

  switch (part->kind)
    {
    case ZKR_REQUEST_CREATE:
    case ZKR_REQUEST_CREATE_TTL:
      size = size_add (size, size_add (JUTE_INT, data));
      size = size_add (size, acl_size (part->acl));
      size = size_add (size, JUTE_INT);
      return part->kind == ZKR_REQUEST_CREATE_TTL ? size_add (size, JUTE_LONG) : size;
    case ZKR_REQUEST_SET:
      return size_add (size, size_add (size_add (JUTE_INT, data), JUTE_INT));
    case ZKR_REQUEST_DELETE:
    case ZKR_REQUEST_CHECK:
      return size_add (size, JUTE_INT);
    case ZKR_REQUEST_READ:
      return size_add (size, JUTE_BOOL);
    case ZKR_REQUEST_SYNC:
    default:
      return size;
    }
}

gsize
zkr__request_size (const ZkrRequestPart *parts, guint n_parts, gboolean multi, gsize chroot_len)
{
  gsize size = FRAME_BYTES;

  for (guint i = 0; i < n_parts; i++)
    size = size_add (size, size_add (multi ? MULTI_HEADER_BYTES : 0,
                                     body_size (&parts[i], chroot_len)));
  return multi ? size_add (size, MULTI_HEADER_BYTES) : size;
}
