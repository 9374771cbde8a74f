/* zkr: ZooKeeper requests whose replies are handed to the session's worker
 * thread. The completion thread copies the reply and posts it; the
 * liveness clock advances by the send time of every request answered.
 * A blocking caller's reply (zkr__op_sync) is handed over right where it
 * arrives instead: see "calls in flight" below. */

#include <string.h>

#include <zkr/node.h>

#include "error-private.h"
#include "log.h"
#include "ops.h"
#include "wait.h"

typedef struct {
  ZkrSession *session; /* (not owned): the session outlives its requests,
                        * because closing fails them all first */
  ZkrReplyFunc func;
  gpointer user_data;
  ZkrRequestKind kind;   /* what follows the path: for the size */
  gboolean is_create;
  gboolean is_set;
  gboolean may_rewrite;  /* tests: the answer may be rewritten (hook) */
  ZkrReply reply;
  /* Request arguments, borrowed from the zkr_op_* call: libzookeeper
   * writes them into its request as it is sent, and nothing reads them
   * after (no copy made on every request). */
  const char *path;
  const char *data;
  int len;
  int flags;
  int version;
  gboolean watch;
  const struct ACL_vector *acl; /* create: NULL for the session's */
  gint64 ttl;                   /* create: -1, or a TTL mode's TTL in ms */
  const ZkrMultiOp *multi_ops;  /* multi: borrowed as the rest */
  guint multi_count;
  /* multi: (owned) what libzookeeper fills in when the reply comes (each
   * result points into the path buffers and stats), kept to the end. */
  zoo_op_t *zops;
  zoo_op_result_t *zresults;
  char **zpaths;
  struct Stat *zstats;
  /* A blocking caller waits for this reply: it is handed over on the
   * thread that completes the request, without a trip through the worker. */
  gboolean direct;
  ZkrWake wake;
  zhandle_t *zh;       /* the handle it was sent on, compared only */
  GList flight_link;   /* in flight_calls while listed; flight_lock */
  gboolean in_flight;  /* flight_lock */
} OpCall;

/* ---- calls in flight -------------------------------------------------
 * libzookeeper does not complete every request when a handle is closed
 * (zookeeper_close stops its completion thread, and what it had not run
 * yet is dropped). A dropped request would never answer its caller, nor
 * free what its reply owns (a recipe's reference, and through it the
 * session: seen as a session never freed after a close with a read in
 * flight). So every call in flight is listed here, and once
 * zookeeper_close() returned, the ones of that handle still listed are
 * completed (zkr__op_handle_closed): a blocking caller's with ZCLOSING, a
 * worker request's with ZCLOSING when the session is closed, else with
 * ZCONNECTIONLOSS (the handle went after LOST: its fate is unknown, as for
 * any connection loss). Whoever takes a call off the list completes it:
 * exactly once. Lock order: the session's handle lock, then flight_lock. */
static GMutex flight_lock;
/* OpCall*, through their flight_link (listing and taking one cost no
 * allocation and no hashing: a request is listed and taken on every
 * send); protected by flight_lock. */
static GQueue flight_calls = G_QUEUE_INIT;

static void
flight_track (OpCall *call, zhandle_t *zh)
{
  g_mutex_lock (&flight_lock);
  call->zh = zh;
  call->flight_link = (GList) { .data = call };
  g_queue_push_tail_link (&flight_calls, &call->flight_link);
  call->in_flight = TRUE;
  g_mutex_unlock (&flight_lock);
}

/* Under flight_lock: @call off the list. */
static void
flight_unlink_locked (OpCall *call)
{
  g_queue_unlink (&flight_calls, &call->flight_link);
  call->in_flight = FALSE;
}

/* TRUE when the caller took @call off the list and so must complete it. */
static gboolean
flight_take (OpCall *call)
{
  gboolean taken;

  g_mutex_lock (&flight_lock);
  taken = call->in_flight;
  if (taken)
    flight_unlink_locked (call);
  g_mutex_unlock (&flight_lock);
  return taken;
}

void
zkr__op_reply_clear (ZkrReply *reply)
{
  g_clear_pointer (&reply->path, g_free);
  g_clear_pointer (&reply->children, g_ptr_array_unref);
  g_clear_pointer (&reply->data, g_bytes_unref);
  g_clear_pointer (&reply->results, g_array_unref);
}

/* ---- spare calls -----------------------------------------------------
 * An OpCall per request (a contended lock sends five per acquisition,
 * each freed on another thread than the one that made it): the freed ones
 * are kept for the next requests, at most SPARE_CALLS_MAX, whichever
 * session sends them. Process-wide, as GLib keeps its slice magazines:
 * op.c sees no session's end to free a per-session list at, and a call
 * may be freed after its session (a blocking caller's, once the waiter
 * has returned). The list is bounded and stays reachable, so no leak. */
#define SPARE_CALLS_MAX 64

static GMutex spare_calls_lock;
static OpCall *spare_calls[SPARE_CALLS_MAX]; /* spare_calls_lock */
static guint spare_calls_count;               /* spare_calls_lock */

static OpCall *
op_call_alloc (void)
{
  OpCall *call;

  g_mutex_lock (&spare_calls_lock);
  call = spare_calls_count > 0 ? spare_calls[--spare_calls_count] : NULL;
  g_mutex_unlock (&spare_calls_lock);
  if (call == NULL)
    return g_new0 (OpCall, 1);
  memset (call, 0, sizeof *call);
  return call;
}

static void
op_call_free (gpointer data)
{
  OpCall *call = data;
  gboolean kept = FALSE;

  zkr__op_reply_clear (&call->reply);
  if (call->zpaths != NULL)
    for (guint i = 0; i < call->multi_count; i++)
      g_free (call->zpaths[i]);
  g_free (call->zpaths);
  g_free (call->zops);
  g_free (call->zresults);
  g_free (call->zstats);
  g_mutex_lock (&spare_calls_lock);
  if (spare_calls_count < SPARE_CALLS_MAX)
    {
      spare_calls[spare_calls_count++] = call;
      kept = TRUE;
    }
  g_mutex_unlock (&spare_calls_lock);
  if (!kept)
    g_free (call);
}

/* Worker thread, or in its place (ZKR_WAKE_IN_PLACE). */
static gboolean
op_dispatch (gpointer data)
{
  OpCall *call = data;

  call->func (call->session, &call->reply, call->user_data);
  return G_SOURCE_REMOVE;
}

/* ZooKeeper's completion thread (or the sending thread for a request that
 * never left): must not block; only records and posts. */
static void
op_complete (OpCall *call, int rc, const struct Stat *stat)
{
  if (zkr__error_rc_is_server_answer (rc) && call->reply.send_time != 0 && call->may_rewrite &&
      zkr__session_test_take_rewrite (call->session, &rc))
    stat = NULL;
  call->reply.rc = rc;
  if (stat != NULL && rc == ZOK)
    {
      call->reply.has_stat = TRUE;
      call->reply.stat = *stat;
    }
  if (zkr__error_rc_is_server_answer (rc) && call->reply.send_time != 0)
    zkr__session_note_answer (call->session, call->reply.send_time);
  else if (rc == ZSESSIONEXPIRED && call->reply.generation != 0)
    /* Before the reply: the worker learns first that the session is gone. */
    zkr__session_handle_note_expired (call->session, call->reply.session_id, call->reply.generation);
  if (call->is_create && rc == ZOK && zkr__session_test_take_drop_create_reply (call->session))
    {
      /* Test hook: the server created the node, we act as if the reply was
       * lost on the way. */
      rc = call->reply.rc = ZCONNECTIONLOSS;
      call->reply.has_stat = FALSE;
      g_clear_pointer (&call->reply.path, g_free);
    }
  if (call->is_set && rc == ZOK && zkr__session_test_take_drop_set_reply (call->session))
    {
      /* Test hook: the data was set, the reply "lost" as for a create. */
      rc = call->reply.rc = ZCONNECTIONLOSS;
      call->reply.has_stat = FALSE;
    }
  if (!call->direct)
    {
      gboolean wake = !((call->wake & ZKR_WAKE_ON_ERROR) && rc == ZOK);

      /* In place: only answers, and only from libzookeeper (send_time is
       * 0 for a request refused before it left, completed by its sender). */
      if ((call->wake & ZKR_WAKE_IN_PLACE) && rc == ZOK && call->reply.send_time != 0)
        zkr__session_post_in_place (call->session, op_dispatch, call, op_call_free, wake);
      else if (wake)
        zkr__session_post (call->session, op_dispatch, call, op_call_free);
      else
        zkr__session_post_quiet (call->session, op_dispatch, call, op_call_free);
      return;
    }
  op_dispatch (call);
  op_call_free (call);
}

/* libzookeeper's completions take a call off the list before completing
 * it. They never meet a call the sweep completed (and freed):
 * the sweep runs only once zookeeper_close() returned, when libzookeeper
 * calls nothing more for that handle. */
static gboolean
op_completion_is_ours (OpCall *call)
{
  return flight_take (call);
}

guint
zkr__op_test_count_blocking (ZkrSession *session)
{
  guint count = 0;

  g_mutex_lock (&flight_lock);
  for (GList *l = flight_calls.head; l != NULL; l = l->next)
    count += ((OpCall *) l->data)->session == session && ((OpCall *) l->data)->direct;
  g_mutex_unlock (&flight_lock);
  return count;
}

void
zkr__op_handle_closed (ZkrSession *session, zhandle_t *zh, guint generation)
{
  GPtrArray *leftovers = g_ptr_array_new ();
  gboolean closed;

  g_mutex_lock (&flight_lock);
  for (GList *l = flight_calls.head, *next; l != NULL; l = next)
    {
      OpCall *call = l->data;

      next = l->next;
      /* The address of a freed handle can come back, in another
       * session's next handle or in this one's (an old handle is closed
       * off the turn, while the next ones go on): the session and the
       * handle's generation tell them apart. */
      if (call->session == session && call->zh == zh && call->reply.generation == generation)
        {
          g_ptr_array_add (leftovers, call);
          flight_unlink_locked (call);
        }
    }
  g_mutex_unlock (&flight_lock);
  closed = zkr_session_get_state (session) == ZKR_SESSION_STATE_CLOSED;
  for (guint i = 0; i < leftovers->len; i++)
    {
      OpCall *call = g_ptr_array_index (leftovers, i);

      op_complete (call, call->direct || closed ? ZCLOSING : ZCONNECTIONLOSS, NULL);
    }
  g_ptr_array_unref (leftovers);
}

static void
string_stat_done (int rc, const char *value, const struct Stat *stat, const void *data)
{
  OpCall *call = (OpCall *) data;

  if (!op_completion_is_ours (call))
    return;
  if (rc == ZOK && value != NULL)
    call->reply.path = g_strdup (value);
  op_complete (call, rc, stat);
}

static void
string_done (int rc, const char *value, const void *data)
{
  (void) value;
  if (op_completion_is_ours ((OpCall *) data))
    op_complete ((OpCall *) data, rc, NULL);
}

static void
void_done (int rc, const void *data)
{
  if (op_completion_is_ours ((OpCall *) data))
    op_complete ((OpCall *) data, rc, NULL);
}

static void
stat_done (int rc, const struct Stat *stat, const void *data)
{
  if (op_completion_is_ours ((OpCall *) data))
    op_complete ((OpCall *) data, rc, stat);
}

static void
data_done (int rc, const char *value, int value_len, const struct Stat *stat, const void *data)
{
  OpCall *call = (OpCall *) data;

  if (!op_completion_is_ours (call))
    return;
  if (rc == ZOK && !(call->wake & ZKR_REPLY_STAT_ONLY))
    call->reply.data = g_bytes_new (value, value != NULL && value_len > 0 ? (gsize) value_len : 0);
  op_complete (call, rc, stat);
}

/* A listing's names kept in its array's own storage, behind the pointers
 * to them: no allocation of their own (a contended lock copies a listing
 * on every hand-off, and frees it on another thread). The array is sized
 * for the pointers and the names, then given the pointers' length, so the
 * names live exactly as long as the array and go with it; whoever holds
 * the array may sort, remove or reorder its entries but never grow it
 * (ops.h). */
static GPtrArray *
names_copy (const struct String_vector *strings)
{
  int count = strings != NULL ? strings->count : 0;
  gsize small_lens[64];
  gsize *lens;
  gsize bytes = 0;
  GPtrArray *names;
  char *next;

  if (count == 0)
    return g_ptr_array_new ();
  /* Each name measured once. */
  lens = count <= (int) G_N_ELEMENTS (small_lens) ? small_lens : g_new (gsize, count);
  for (int i = 0; i < count; i++)
    {
      lens[i] = strlen (strings->data[i]) + 1;
      bytes += lens[i];
    }
  names = g_ptr_array_sized_new ((guint) count + (guint) ((bytes + sizeof (gpointer) - 1) /
                                                          sizeof (gpointer)));
  g_ptr_array_set_size (names, (guint) count);
  next = (char *) (names->pdata + count);
  for (int i = 0; i < count; i++)
    {
      memcpy (next, strings->data[i], lens[i]);
      names->pdata[i] = next;
      next += lens[i];
    }
  if (lens != small_lens)
    g_free (lens);
  return names;
}

static void
strings_stat_done (int rc, const struct String_vector *strings, const struct Stat *stat,
                   const void *data)
{
  OpCall *call = (OpCall *) data;

  if (!op_completion_is_ours (call))
    return;
  if (rc == ZOK)
    call->reply.children = names_copy (strings);
  op_complete (call, rc, stat);
}

static void
strings_done (int rc, const struct String_vector *strings, const void *data)
{
  strings_stat_done (rc, strings, NULL, data);
}

typedef int (*IssueFunc) (zhandle_t *zh, OpCall *call);

gsize
zkr__op_request_size (ZkrSession *session, const ZkrRequestPart *parts, guint n_parts,
                      gboolean multi)
{
  const struct ACL_vector *session_acl = zkr__session_get_acl_vector (session);
  ZkrRequestPart small[4];
  ZkrRequestPart *sent = n_parts <= G_N_ELEMENTS (small) ? small : g_new (ZkrRequestPart, n_parts);
  gsize size;

  for (guint i = 0; i < n_parts; i++)
    {
      sent[i] = parts[i];
      if (sent[i].acl == NULL)
        sent[i].acl = session_acl;
    }
  size = zkr__request_size (sent, n_parts, multi, zkr__session_get_chroot_len (session));
  if (sent != small)
    g_free (sent);
  return size;
}

gsize
zkr__op_multi_size (ZkrSession *session, const ZkrMultiOp *ops, guint count)
{
  static const ZkrRequestKind kinds[] = {
    [ZKR_MULTI_CREATE] = ZKR_REQUEST_CREATE, [ZKR_MULTI_SET] = ZKR_REQUEST_SET,
    [ZKR_MULTI_DELETE] = ZKR_REQUEST_DELETE, [ZKR_MULTI_CHECK] = ZKR_REQUEST_CHECK,
  };
  ZkrRequestPart *parts = g_new0 (ZkrRequestPart, MAX (count, 1));
  gsize size;

  for (guint i = 0; i < count; i++)
    parts[i] = (ZkrRequestPart) { .kind = kinds[ops[i].kind], .path_len = strlen (ops[i].path),
                                  .data_len = ops[i].data != NULL ? ops[i].len : -1 };
  size = zkr__op_request_size (session, parts, count, TRUE);
  g_free (parts);
  return size;
}

static gsize
op_call_size (ZkrSession *session, const OpCall *call)
{
  ZkrRequestPart part = { .kind = call->kind };

  if (call->multi_ops != NULL)
    return zkr__op_multi_size (session, call->multi_ops, call->multi_count);
  part.path_len = strlen (call->path);
  part.data_len = call->data != NULL ? call->len : -1;
  part.acl = call->acl;
  return zkr__op_request_size (session, &part, 1, FALSE);
}

/* The one door (ops.h): every request is counted before it may leave. */
static void
op_send (ZkrSession *session, OpCall *call, IssueFunc issue)
{
  zhandle_t *zh;
  int rc;
  gsize size;

  call->session = session;
  size = op_call_size (session, call);
  if (size > ZKR_NODE_MAX_REQUEST_SIZE)
    {
      /* The server would close the connection: refused, nothing sent
       * (send_time 0), answered as any request refused before it left. */
      zkr__debug ("request %s of %" G_GSIZE_FORMAT " bytes refused: over %d bytes",
                  call->path != NULL ? call->path : "(multi)", size, ZKR_NODE_MAX_REQUEST_SIZE);
      call->reply.request_size = size;
      op_complete (call, ZKR_ZK_REQUEST_TOO_LARGE, NULL);
      return;
    }
  /* Before the handle's lock, which is the session's. */
  call->may_rewrite = zkr__session_test_rewrite_applies (session, call->path);
  zh = zkr__session_handle_lock (session, &call->reply.session_id, &call->reply.generation);
  if (zh == NULL)
    {
      rc = zkr_session_get_state (session) == ZKR_SESSION_STATE_CLOSED ? ZCLOSING : ZINVALIDSTATE;
    }
  else
    {
      /* Listed before it leaves: its reply may come before issue returns. */
      flight_track (call, zh);
      call->reply.send_time = g_get_monotonic_time ();
      rc = issue (zh, call);
      if (rc != ZOK)
        flight_take (call);
      zkr__session_handle_unlock (session);
    }
  if (rc != ZOK)
    {
      /* Refused before it left: no completion will come, make our own. */
      call->reply.send_time = 0;
      op_complete (call, rc, NULL);
    }
}

char *
zkr__op_buffer_dup (const char *data, int len)
{
  gsize size = (gsize) MAX (len, 0);
  char *copy;

  if (data == NULL)
    return NULL;
  copy = g_malloc (size + 1);
  memcpy (copy, data, size);
  copy[size] = '\0';
  return copy;
}

static void sync_done (ZkrSession *session, ZkrReply *reply, gpointer user_data);

static OpCall *
op_call_new (ZkrRequestKind kind, const char *path, ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_alloc ();

  call->kind = kind;
  call->path = path;
  call->func = func;
  call->user_data = user_data;
  /* The blocking twins' reply goes straight to the waiting thread. */
  call->direct = func == sync_done;
  return call;
}

static int
issue_create (zhandle_t *zh, OpCall *call)
{
  const struct ACL_vector *acl = call->acl != NULL ? call->acl
                                                   : zkr__session_get_acl_vector (call->session);

  if (call->ttl > 0)
    return zoo_acreate2_ttl (zh, call->path, call->data, call->data != NULL ? call->len : -1,
                             acl, call->flags, call->ttl, string_stat_done, call);
  return zoo_acreate2 (zh, call->path, call->data, call->data != NULL ? call->len : -1, acl,
                       call->flags, string_stat_done, call);
}

void
zkr__op_create (ZkrSession *session, const char *path, const char *data, int len,
                int flags, ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_create_full (session, path, data, len, flags, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_create_full (ZkrSession *session, const char *path, const char *data, int len,
                     int flags, ZkrWake wake, ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_CREATE, path, func, user_data);

  call->wake = wake;
  call->is_create = TRUE;
  call->data = data;
  call->len = len;
  call->flags = flags;
  call->ttl = -1;
  op_send (session, call, issue_create);
}

void
zkr__op_create_ext (ZkrSession *session, const char *path, const char *data, int len,
                    int flags, const struct ACL_vector *acl, gint64 ttl_ms, ZkrWake wake,
                    ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ttl_ms > 0 ? ZKR_REQUEST_CREATE_TTL : ZKR_REQUEST_CREATE, path,
                              func, user_data);

  call->wake = wake;
  call->is_create = TRUE;
  call->data = data;
  call->len = len;
  call->flags = flags;
  call->acl = acl;
  call->ttl = ttl_ms > 0 ? ttl_ms : -1;
  op_send (session, call, issue_create);
}

static int
issue_delete (zhandle_t *zh, OpCall *call)
{
  return zoo_adelete (zh, call->path, call->version, void_done, call);
}

void
zkr__op_delete (ZkrSession *session, const char *path, int version,
                ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_delete_full (session, path, version, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_delete_full (ZkrSession *session, const char *path, int version, ZkrWake wake,
                     ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_DELETE, path, func, user_data);

  call->wake = wake;
  call->version = version;
  op_send (session, call, issue_delete);
}

static int
issue_exists (zhandle_t *zh, OpCall *call)
{
  return zoo_aexists (zh, call->path, call->watch, stat_done, call);
}

void
zkr__op_exists (ZkrSession *session, const char *path, gboolean watch,
                ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_exists_full (session, path, watch, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_exists_full (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                     ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_READ, path, func, user_data);

  call->wake = wake;
  call->watch = watch;
  op_send (session, call, issue_exists);
}

static int
issue_get (zhandle_t *zh, OpCall *call)
{
  return zoo_aget (zh, call->path, call->watch, data_done, call);
}

void
zkr__op_get (ZkrSession *session, const char *path, gboolean watch,
             ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_get_full (session, path, watch, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_get_full (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                  ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_READ, path, func, user_data);

  call->wake = wake;
  call->watch = watch;
  op_send (session, call, issue_get);
}

static int
issue_get_children (zhandle_t *zh, OpCall *call)
{
  return zoo_aget_children (zh, call->path, call->watch, strings_done, call);
}

void
zkr__op_get_children (ZkrSession *session, const char *path, gboolean watch,
                      ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_get_children_full (session, path, watch, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_get_children_full (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                           ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_READ, path, func, user_data);

  call->wake = wake;
  call->watch = watch;
  op_send (session, call, issue_get_children);
}

static int
issue_get_children2 (zhandle_t *zh, OpCall *call)
{
  return zoo_aget_children2 (zh, call->path, call->watch, strings_stat_done, call);
}

void
zkr__op_get_children2 (ZkrSession *session, const char *path, gboolean watch, ZkrWake wake,
                       ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_READ, path, func, user_data);

  call->wake = wake;
  call->watch = watch;
  op_send (session, call, issue_get_children2);
}

static int
issue_set (zhandle_t *zh, OpCall *call)
{
  return zoo_aset (zh, call->path, call->data, call->data != NULL ? call->len : -1,
                   call->version, stat_done, call);
}

void
zkr__op_set (ZkrSession *session, const char *path, const char *data, int len,
             int version, ZkrReplyFunc func, gpointer user_data)
{
  zkr__op_set_full (session, path, data, len, version, ZKR_WAKE_ALWAYS, func, user_data);
}

void
zkr__op_set_full (ZkrSession *session, const char *path, const char *data, int len,
                  int version, ZkrWake wake, ZkrReplyFunc func, gpointer user_data)
{
  OpCall *call = op_call_new (ZKR_REQUEST_SET, path, func, user_data);

  call->wake = wake;
  call->is_set = TRUE;
  call->data = data;
  call->len = len;
  call->version = version;
  op_send (session, call, issue_set);
}

static int
issue_sync_path (zhandle_t *zh, OpCall *call)
{
  return zoo_async (zh, call->path, string_done, call);
}

void
zkr__op_sync_path (ZkrSession *session, const char *path, ZkrReplyFunc func,
                   gpointer user_data)
{
  op_send (session, op_call_new (ZKR_REQUEST_SYNC, path, func, user_data), issue_sync_path);
}

/* ---- multi ---------------------------------------------------------- */

static void
multi_result_clear (gpointer data)
{
  g_free (((ZkrMultiResult *) data)->path);
}

/* ZooKeeper's completion thread: libzookeeper filled in zresults (each a
 * code, a created path in its buffer, a set's stat) before calling. */
static void
multi_done (int rc, const void *data)
{
  OpCall *call = (OpCall *) data;

  if (!op_completion_is_ours (call))
    return;
  if (zkr__error_rc_is_server_answer (rc))
    {
      call->reply.results = g_array_sized_new (FALSE, TRUE, sizeof (ZkrMultiResult),
                                               call->multi_count);
      g_array_set_clear_func (call->reply.results, multi_result_clear);
      for (guint i = 0; i < call->multi_count; i++)
        {
          ZkrMultiResult result = { .rc = call->zresults[i].err };

          if (result.rc == ZOK && call->multi_ops[i].kind == ZKR_MULTI_CREATE)
            result.path = g_strdup (call->zpaths[i]);
          if (result.rc == ZOK && call->multi_ops[i].kind == ZKR_MULTI_SET)
            {
              result.has_stat = TRUE;
              result.stat = call->zstats[i];
            }
          g_array_append_val (call->reply.results, result);
        }
    }
  /* Borrowed only while the request was written out. */
  call->multi_ops = NULL;
  op_complete (call, rc, NULL);
}

static int
issue_multi (zhandle_t *zh, OpCall *call)
{
  const struct ACL_vector *acl = zkr__session_get_acl_vector (call->session);

  for (guint i = 0; i < call->multi_count; i++)
    {
      const ZkrMultiOp *op = &call->multi_ops[i];
      int len = op->data != NULL ? op->len : -1;

      switch (op->kind)
        {
        case ZKR_MULTI_CREATE:
          zoo_create_op_init (&call->zops[i], op->path, op->data, len, acl, op->flags,
                              call->zpaths[i], (int) strlen (op->path) + 16);
          break;
        case ZKR_MULTI_SET:
          zoo_set_op_init (&call->zops[i], op->path, op->data, len, op->version,
                           &call->zstats[i]);
          break;
        case ZKR_MULTI_DELETE:
          zoo_delete_op_init (&call->zops[i], op->path, op->version);
          break;
        case ZKR_MULTI_CHECK:
        default:
          zoo_check_op_init (&call->zops[i], op->path, op->version);
          break;
        }
    }
  return zoo_amulti (zh, (int) call->multi_count, call->zops, call->zresults, multi_done, call);
}

void
zkr__op_multi (ZkrSession *session, const ZkrMultiOp *ops, guint count, ZkrWake wake,
               ZkrReplyFunc func, gpointer user_data)
{
  /* The kind is each operation's (op_call_size). */
  OpCall *call = op_call_new (ZKR_REQUEST_SYNC, NULL, func, user_data);

  call->wake = wake;
  call->multi_ops = ops;
  call->multi_count = count;
  call->zops = g_new0 (zoo_op_t, count);
  call->zresults = g_new0 (zoo_op_result_t, count);
  call->zstats = g_new0 (struct Stat, count);
  call->zpaths = g_new0 (char *, count);
  for (guint i = 0; i < count; i++)
    if (ops[i].kind == ZKR_MULTI_CREATE)
      /* A sequential create's name: the path and 10 digits. */
      call->zpaths[i] = g_malloc0 (strlen (ops[i].path) + 16);
  op_send (session, call, issue_multi);
}

/* ---- blocking twins ------------------------------------------------ */

typedef struct {
  ZkrWait wait;
  ZkrReply reply;
} SyncWait;

/* The thread that completes a direct call (libzookeeper's completion
 * thread, the sender when refused, the closer at handle close): move the
 * reply to the waiting thread. */
static void
sync_done (ZkrSession *session, ZkrReply *reply, gpointer user_data)
{
  SyncWait *sync = user_data;

  (void) session;
  sync->reply = *reply;
  memset (reply, 0, sizeof *reply);
  zkr__wait_done (&sync->wait);
}

int
zkr__op_sync (ZkrSession *session, ZkrSendFunc send, gpointer send_data, ZkrReply *out)
{
  SyncWait sync;

  g_return_val_if_fail (!zkr__session_in_worker (session), ZAPIERROR);
  zkr__wait_init (&sync.wait);
  send (session, sync_done, &sync, send_data);
  zkr__wait_block (&sync.wait);
  *out = sync.reply;
  return out->rc;
}

static void
send_delete (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_delete (session, args->path, args->version, func, user_data);
}

static void
send_sync_path (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  ZkrSyncArgs *args = send_data;
  zkr__op_sync_path (session, args->path, func, user_data);
}

int
zkr__op_delete_sync (ZkrSession *session, const char *path, int version)
{
  ZkrSyncArgs args = { path, NULL, 0, 0, version };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_delete, &args, &reply);

  zkr__op_reply_clear (&reply);
  return rc;
}

int
zkr__op_sync_path_sync (ZkrSession *session, const char *path)
{
  ZkrSyncArgs args = { path, NULL, 0, 0, -1 };
  ZkrReply reply = { 0 };
  int rc = zkr__op_sync (session, send_sync_path, &args, &reply);

  zkr__op_reply_clear (&reply);
  return rc;
}
