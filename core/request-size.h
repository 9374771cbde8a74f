/* zkr internal: the size of a request as ZooKeeper frames it, counted in
 * one place (core/request-size.c). core/op.c checks every request against
 * ZooKeeper's limit with it before sending; the public calls use it (through
 * op.c) to refuse at their start. Pure: no session, no I/O. */
#pragma once

#include <glib.h>
#include <zookeeper/zookeeper.h>

G_BEGIN_DECLS

/* What a request (or one operation of a multi) carries after its path. */
typedef enum {
  ZKR_REQUEST_CREATE,     /* data, ACL, flags */
  ZKR_REQUEST_CREATE_TTL, /* data, ACL, flags, TTL */
  ZKR_REQUEST_SET,        /* data, version */
  ZKR_REQUEST_DELETE,     /* version */
  ZKR_REQUEST_CHECK,      /* version (a multi's version check) */
  ZKR_REQUEST_READ,       /* a watch flag: exists, get, get_children(2) */
  ZKR_REQUEST_SYNC,       /* nothing */
} ZkrRequestKind;

typedef struct {
  ZkrRequestKind kind;
  gsize path_len;               /* the path as handed to libzookeeper (the
                                 * namespace applied, no chroot) */
  gssize data_len;              /* create, set: -1 for no data (NULL) */
  const struct ACL_vector *acl; /* create: the ACL sent (not NULL) */
} ZkrRequestPart;

/* The bytes the request made of @parts puts on the wire, its length
 * prefix included: one request (@multi FALSE, @n_parts 1) or a multi of
 * @n_parts operations. @chroot_len: the chroot's length (0: none), which
 * libzookeeper puts before every path ("/" alone becomes the chroot).
 * Saturates at G_MAXSIZE. */
gsize zkr__request_size (const ZkrRequestPart *parts, guint n_parts, gboolean multi,
                         gsize chroot_len);

G_END_DECLS
