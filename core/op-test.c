/* zkr test hooks: blocking requests for the tests, built on zkr__op_sync()
 * (core/op.c): create, exists, get, get_children and set, each sent and
 * waited for from a thread that is not the session's worker. Linked into
 * the test hooks library only, never into libzkr: the library itself needs
 * only the delete and the sync, which stay in op.c. */

#include "ops.h"

static void
send_create (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_create (session, args->path, args->data, args->len, args->flags, func, user_data);
}

static void
send_exists (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_exists (session, args->path, FALSE, func, user_data);
}

static void
send_set (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_set (session, args->path, args->data, args->len, args->version, func, user_data);
}

static void
send_get (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_get (session, args->path, FALSE, func, user_data);
}

static void
send_get_children (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_get_children (session, args->path, FALSE, func, user_data);
}

int
zkr__op_test_create (ZkrSession *session, const char *path, const char *data, int len,
                     int flags, char **created_path, struct Stat *stat)
{
  ZkrSyncArgs args = { path, data, len, flags, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_create, &args, &reply);

  if (created_path != NULL)
    *created_path = g_steal_pointer (&reply.path);
  if (stat != NULL && reply.has_stat)
    *stat = reply.stat;
  zkr__op_reply_clear (&reply);
  return rc;
}

int
zkr__op_test_exists (ZkrSession *session, const char *path, struct Stat *stat)
{
  ZkrSyncArgs args = { path, NULL, 0, 0, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_exists, &args, &reply);

  if (stat != NULL && reply.has_stat)
    *stat = reply.stat;
  zkr__op_reply_clear (&reply);
  return rc;
}

int
zkr__op_test_get_children (ZkrSession *session, const char *path, GPtrArray **children)
{
  ZkrSyncArgs args = { path, NULL, 0, 0, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_get_children, &args, &reply);

  if (children != NULL)
    *children = g_steal_pointer (&reply.children);
  zkr__op_reply_clear (&reply);
  return rc;
}

int
zkr__op_test_get (ZkrSession *session, const char *path, GBytes **data, struct Stat *stat)
{
  ZkrSyncArgs args = { path, NULL, 0, 0, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_get, &args, &reply);

  if (data != NULL)
    *data = g_steal_pointer (&reply.data);
  if (stat != NULL && reply.has_stat)
    *stat = reply.stat;
  zkr__op_reply_clear (&reply);
  return rc;
}

int
zkr__op_test_set (ZkrSession *session, const char *path, const char *data, int len)
{
  ZkrSyncArgs args = { path, data, len, 0, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_set, &args, &reply);

  zkr__op_reply_clear (&reply);
  return rc;
}

