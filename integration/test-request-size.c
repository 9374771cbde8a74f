/* zkr integration: ZooKeeper's request size limit (ZKR_NODE_MAX_REQUEST_SIZE)
 * through every public call that writes: a request one byte over is
 * refused with INVALID_ARGUMENT naming its size, nothing sent and the
 * session undisturbed; one exactly at the limit is taken by the server. And
 * the one door every request leaves through refuses what no call checked.
 * Every test removes its nodes and checks that nothing is left. */

#include <string.h>

#include <CUnit/CUnit.h>
#include <json-glib/json-glib.h>

#include "error-private.h"
#include "itest.h"
#include "zkr-test.h"

#define LIMIT ((gsize) ZKR_NODE_MAX_REQUEST_SIZE)
/* A name long enough that data filling a request to the limit stays
 * within ZKR_NODE_MAX_DATA_SIZE (the request limit less 1 KiB). */
#define LONG_NAME_BYTES 1500

/* The framing the tests expect, written out here on its own (not the
 * library's count): ZooKeeper's jute as libzookeeper writes it. A length
 * prefix (4), the request header (xid, type: 8); a string or buffer is a
 * 4-byte length and its bytes; an int 4, a boolean 1. The tests' sessions
 * use ZKR_ACL_OPEN: one entry, world:anyone. */
#define OPEN_ACL_BYTES (4 + (4 + 4 + 5 + 4 + 6))

/* A create: path, data, ACL, flags. */
static gsize
create_size (gsize path_len, gsize data_len, gsize acl_bytes)
{
  return 4 + 8 + 4 + path_len + 4 + data_len + acl_bytes + 4;
}

/* A set: path, data, version. */
static gsize
set_size (gsize path_len, gsize data_len)
{
  return 4 + 8 + 4 + path_len + 4 + data_len + 4;
}

/* A multi: each operation behind a header (type, done, err: 9 bytes),
 * then an end header; @bodies is the sum of the operations' bodies. */
static gsize
multi_size (guint n_ops, gsize bodies)
{
  return 4 + 8 + n_ops * 9 + bodies + 9;
}

static gsize
multi_set_body (gsize path_len, gsize data_len)
{
  return 4 + path_len + 4 + data_len + 4;
}

static gsize
multi_create_body (gsize path_len, gsize data_len)
{
  return 4 + path_len + 4 + data_len + OPEN_ACL_BYTES + 4;
}

/* A session whose every state change is recorded, and a root of its own. */
typedef struct {
  ZkrSession *session;
  ItestRecorder *recorder;
  char *root;
  char *data;  /* LIMIT bytes of 'd' */
} Quiet;

static void
quiet_begin (Quiet *q, const char *name)
{
  q->session = itest_connect_recorded (itest_hosts (), 10000, &q->recorder);
  q->root = itest_scratch_path (name);
  q->data = g_malloc (LIMIT);
  memset (q->data, 'd', LIMIT);
  CU_ASSERT_EQUAL (itest_create_with_retries (q->session, q->root, ITEST_CALL_MS), ZOK);
}

static void
quiet_end (Quiet *q)
{
  CU_ASSERT_TRUE (itest_delete_tree (q->session, q->root));
  itest_recorder_free (q->recorder);
  zkr_session_unref (q->session);
  g_free (q->root);
  g_free (q->data);
}

/* "@parent/" and a long name starting with @letter. (transfer full) */
static char *
long_child (const char *parent, char letter)
{
  g_autofree char *name = g_strnfill (LONG_NAME_BYTES, letter);

  return g_strdup_printf ("%s/%s", parent, name);
}

/* The listener heard nothing but the first connect (which it may hear
 * before or after the session said CONNECTED: its own thread). */
static void
quiet_assert_no_change (Quiet *q)
{
  g_autofree char *states = itest_recorder_describe (q->recorder);

  if (strcmp (states, "") != 0 && strcmp (states, "CONNECTED") != 0)
    {
      g_printerr ("states heard: %s\n", states);
      CU_FAIL ("the session's listener heard a change of state");
    }
}

/* Nothing was sent: the session saw no change of state, is CONNECTED,
 * and a small write right behind the refusal is answered. */
static void
quiet_check (Quiet *q)
{
  g_autoptr (GError) error = NULL;

  CU_ASSERT_TRUE (zkr_node_set (q->session, q->root, "ok", 2, -1, ITEST_CALL_MS, NULL, NULL,
                                &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr_session_get_state (q->session), ZKR_SESSION_STATE_CONNECTED);
  quiet_assert_no_change (q);
}

/* @error refuses a request of @size bytes, named with the limit. */
#define ASSERT_REFUSED(q, error, size) assert_refused ((q), (error), (size), __LINE__)
static void
assert_refused (Quiet *q, const GError *error, gsize size, int line)
{
  g_autofree char *named = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes", size);

  itest_assert_code (error, ZKR_ERROR_INVALID_ARGUMENT, __FILE__, line);
  if (error != NULL &&
      (strstr (error->message, named) == NULL ||
       strstr (error->message, "ZKR_NODE_MAX_REQUEST_SIZE") == NULL))
    {
      g_printerr ("line %d: \"%s\" does not name \"%s\" and the limit\n", line, error->message,
                  named);
      CU_FAIL ("the refusal does not name the request's size and the limit");
    }
  quiet_check (q);
}

/* ---- node calls ---------------------------------------------------------- */

static void
test_request_size__node_create_one_byte_over_refused_at_the_limit_made (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  gsize fits;

  quiet_begin (&q, "size-create");
  path = long_child (q.root, 'c');
  fits = LIMIT - create_size (strlen (path), 0, OPEN_ACL_BYTES);
  CU_ASSERT_FALSE (zkr_node_create (q.session, path, q.data, fits + 1, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                    &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (itest_node_absent (q.session, path));
  CU_ASSERT_TRUE (zkr_node_create (q.session, path, q.data, fits, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_NONE, ITEST_CALL_MS, NULL, NULL, NULL,
                                   &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

/* An ACL of the call's own counts as sent: two entries. */
static void
test_request_size__node_create_full_counts_its_own_acl (void)
{
  static const ZkrAclEntry acl[] = {
    { ZKR_PERM_ALL, "world", "anyone" },
    { ZKR_PERM_READ, "ip", "127.0.0.1" },
  };
  ZkrCreateOptions options = { .mode = ZKR_CREATE_PERSISTENT, .acl = acl, .n_acl = 2 };
  gsize acl_bytes = 4 + (4 + 4 + 5 + 4 + 6) + (4 + 4 + 2 + 4 + 9);
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  gsize fits;

  quiet_begin (&q, "size-create-full");
  path = long_child (q.root, 'f');
  fits = LIMIT - create_size (strlen (path), 0, acl_bytes);
  CU_ASSERT_FALSE (zkr_node_create_full (q.session, path, q.data, fits + 1, &options,
                                         ITEST_CALL_MS, NULL, NULL, NULL, &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_create_full (q.session, path, q.data, fits, &options,
                                        ITEST_CALL_MS, NULL, NULL, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

/* A protected create's name carries "_c_<uuid>-" (40 bytes) on the wire:
 * counted. */
static void
test_request_size__protected_create_counts_its_prefix (void)
{
  ZkrCreateOptions options = { .mode = ZKR_CREATE_EPHEMERAL_SEQUENTIAL, .protection = TRUE };
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *made = NULL;
  gsize fits;

  quiet_begin (&q, "size-protected");
  path = long_child (q.root, 'p');
  fits = LIMIT - create_size (strlen (path) + 40, 0, OPEN_ACL_BYTES);
  CU_ASSERT_FALSE (zkr_node_create_full (q.session, path, q.data, fits + 1, &options,
                                         ITEST_CALL_MS, NULL, NULL, NULL, &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (itest_count_children (q.session, q.root), 0);
  CU_ASSERT_TRUE (zkr_node_create_full (q.session, path, q.data, fits, &options,
                                        ITEST_CALL_MS, NULL, &made, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

static void
test_request_size__node_set_one_byte_over_refused_at_the_limit_set (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  gsize fits;

  quiet_begin (&q, "size-set");
  path = long_child (q.root, 's');
  CU_ASSERT_EQUAL (itest_create_with_retries (q.session, path, ITEST_CALL_MS), ZOK);
  fits = LIMIT - set_size (strlen (path), 0);
  CU_ASSERT_FALSE (zkr_node_set (q.session, path, q.data, fits + 1, -1, ITEST_CALL_MS, NULL,
                                 NULL, &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_set (q.session, path, q.data, fits, -1, ITEST_CALL_MS, NULL, NULL,
                                &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

/* The path on the wire carries the connect string's chroot and the
 * session's namespace: both counted. */
static void
test_request_size__chroot_and_namespace_are_counted (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrSession) rooted = NULL;
  g_autofree char *hosts = NULL;
  g_autofree char *path = NULL;
  gsize wire_path;
  gsize fits;

  quiet_begin (&q, "size-chroot");
  hosts = g_strconcat (itest_hosts (), q.root, NULL);
  rooted = itest_connect_ns (hosts, "size-ns", 10000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rooted);
  path = long_child ("", 'r');
  wire_path = strlen (q.root) + strlen ("/size-ns") + strlen (path);
  fits = LIMIT - create_size (wire_path, 0, OPEN_ACL_BYTES);
  CU_ASSERT_FALSE (zkr_node_create (rooted, path, q.data, fits + 1, ZKR_CREATE_PERSISTENT,
                                    ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL, NULL,
                                    &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_node_create (rooted, path, q.data, fits, ZKR_CREATE_PERSISTENT,
                                   ZKR_CREATE_PARENTS_CONTAINER, ITEST_CALL_MS, NULL, NULL, NULL,
                                   &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (zkr_session_get_state (rooted), ZKR_SESSION_STATE_CONNECTED);
  quiet_check (&q);
  quiet_end (&q);
}

/* ---- transactions ----------------------------------------------------------- */

/* Two sets of 600,000 bytes: each fits, together they do not. Sent, the
 * server closed the connection (the session SUSPENDED, a small write right
 * behind answered CONNECTION_LOSS). Then one set that alone is too large
 * for its path. */
static void
test_request_size__txn_of_two_large_sets_refused_with_nothing_sent (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrTxn) txn = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  gsize each = 600000;

  quiet_begin (&q, "size-txn");
  a = g_strdup_printf ("%s/a", q.root);
  b = g_strdup_printf ("%s/b", q.root);
  CU_ASSERT_EQUAL (itest_create_with_retries (q.session, a, ITEST_CALL_MS), ZOK);
  CU_ASSERT_EQUAL (itest_create_with_retries (q.session, b, ITEST_CALL_MS), ZOK);
  txn = zkr_txn_new (q.session);
  zkr_txn_set (txn, a, q.data, each, -1);
  zkr_txn_set (txn, b, q.data, each, -1);
  CU_ASSERT_FALSE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
  ASSERT_REFUSED (&q, error, multi_size (2, multi_set_body (strlen (a), each) +
                                                multi_set_body (strlen (b), each)));
  g_clear_error (&error);
  g_clear_pointer (&txn, zkr_txn_unref);
  /* One set of the most data a node takes, on a 4,005-byte path (which
   * zkr_node_set() refused, and the transaction sent). */
  {
    g_autofree char *name = g_strnfill (4005 - strlen (q.root) - 1, 'l');
    g_autofree char *long_path = g_strdup_printf ("%s/%s", q.root, name);

    txn = zkr_txn_new (q.session);
    zkr_txn_set (txn, long_path, q.data, ZKR_NODE_MAX_DATA_SIZE, -1);
    CU_ASSERT_FALSE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
    ASSERT_REFUSED (&q, error,
                    multi_size (1, multi_set_body (4005, ZKR_NODE_MAX_DATA_SIZE)));
  }
  quiet_end (&q);
}

/* A create and a set filling the request to the limit commit; one byte
 * more is refused. */
static void
test_request_size__txn_one_byte_over_refused_at_the_limit_committed (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autofree char *made = NULL;
  g_autofree char *set = NULL;
  gsize made_data = 1000;
  gsize fits;

  quiet_begin (&q, "size-txn-limit");
  made = g_strdup_printf ("%s/made", q.root);
  set = long_child (q.root, 't');
  CU_ASSERT_EQUAL (itest_create_with_retries (q.session, set, ITEST_CALL_MS), ZOK);
  fits = LIMIT - multi_size (2, multi_create_body (strlen (made), made_data) +
                                    multi_set_body (strlen (set), 0));
  for (int extra = 1; extra >= 0; extra--)
    {
      g_autoptr (ZkrTxn) txn = zkr_txn_new (q.session);

      zkr_txn_create (txn, made, q.data, made_data, ZKR_CREATE_PERSISTENT);
      zkr_txn_set (txn, set, q.data, fits + (gsize) extra, -1);
      if (extra == 1)
        {
          CU_ASSERT_FALSE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
          ASSERT_REFUSED (&q, error, LIMIT + 1);
          g_clear_error (&error);
          CU_ASSERT_TRUE (itest_node_absent (q.session, made));
        }
      else
        {
          CU_ASSERT_TRUE (zkr_txn_commit (txn, ITEST_CALL_MS, NULL, &error));
          CU_ASSERT_PTR_NULL (error);
        }
    }
  quiet_check (&q);
  quiet_end (&q);
}

/* ---- recipes ------------------------------------------------------------------ */

/* Refused at once, not tried again and again in the background. */
static void
test_request_size__persistent_node_refused_at_once (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrPersistentNode) node = NULL;
  g_autofree char *path = NULL;
  gsize fits;

  quiet_begin (&q, "size-persistent");
  path = long_child (q.root, 'n');
  fits = LIMIT - create_size (strlen (path), 0, OPEN_ACL_BYTES);
  node = zkr_persistent_node_new (q.session, path, ZKR_CREATE_EPHEMERAL, FALSE, q.data, fits + 1,
                                  &error);
  CU_ASSERT_PTR_NULL (node);
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  /* With protection the same data no longer fits: its name is longer. */
  node = zkr_persistent_node_new (q.session, path, ZKR_CREATE_EPHEMERAL, TRUE, q.data, fits,
                                  &error);
  CU_ASSERT_PTR_NULL (node);
  ASSERT_REFUSED (&q, error, LIMIT + 40);
  g_clear_error (&error);
  node = zkr_persistent_node_new (q.session, path, ZKR_CREATE_EPHEMERAL, FALSE, q.data, fits,
                                  &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  CU_ASSERT_TRUE (zkr_persistent_node_start (node, &error));
  CU_ASSERT_TRUE (zkr_persistent_node_wait_for_initial_create (node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_persistent_node_set_data (node, q.data, fits + 1, &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_persistent_node_close (node, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

static void
test_request_size__group_member_refused_at_once (void)
{
  Quiet q;
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrGroupMember) member = NULL;
  g_autofree char *group = NULL;
  gsize fits;

  quiet_begin (&q, "size-group");
  group = long_child (q.root, 'g');
  fits = LIMIT - create_size (strlen (group) + strlen ("/m1"), 0, OPEN_ACL_BYTES);
  member = zkr_group_member_new (q.session, group, "m1", q.data, fits + 1, &error);
  CU_ASSERT_PTR_NULL (member);
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  member = zkr_group_member_new (q.session, group, "m1", q.data, fits, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (member);
  CU_ASSERT_TRUE (zkr_group_member_start (member, &error));
  CU_ASSERT_TRUE (zkr_group_member_wait_joined (member, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_FALSE (zkr_group_member_set_payload (member, q.data, fits + 1, &error));
  ASSERT_REFUSED (&q, error, LIMIT + 1);
  g_clear_error (&error);
  CU_ASSERT_TRUE (zkr_group_member_close (member, ITEST_CALL_MS, NULL, &error));
  CU_ASSERT_PTR_NULL (error);
  quiet_check (&q);
  quiet_end (&q);
}

/* An instance whose JSON is @payload_len bytes of payload string. */
static ZkrServiceInstance *
instance_new (ZkrServiceType type, gsize payload_len, gsize *json_len)
{
  ZkrServiceInstance *instance = zkr_service_instance_new ("svc", "one", NULL);
  g_autofree char *text = g_strnfill (payload_len, 'j');
  JsonNode *payload = json_node_new (JSON_NODE_VALUE);
  g_autofree char *json = NULL;

  json_node_set_string (payload, text);
  zkr_service_instance_set_payload (instance, payload);
  json_node_unref (payload);
  zkr_service_instance_set_registration_time (instance, 1);
  CU_ASSERT_TRUE (zkr_service_instance_set_service_type (instance, type, NULL));
  json = zkr_service_instance_to_json (instance, json_len, NULL);
  return instance;
}

/* DYNAMIC (a persistent node of the registration's) and PERMANENT (a
 * plain create): refused at once, not TIMEOUT after retries. */
static void
test_request_size__service_registration_refused_at_once (void)
{
  static const ZkrServiceType types[] = { ZKR_SERVICE_DYNAMIC, ZKR_SERVICE_PERMANENT };
  Quiet q;
  g_autofree char *base = NULL;
  g_autofree char *node_path = NULL;

  quiet_begin (&q, "size-discovery");
  base = long_child (q.root, 'b');
  node_path = g_strdup_printf ("%s/svc/one", base);
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr (ZkrServiceDiscovery) discovery = zkr_service_discovery_new (q.session, base,
                                                                              NULL);
      g_autoptr (GError) error = NULL;
      ZkrServiceInstance *instance;
      gsize json_len = 0;
      gsize fits;
      gsize payload;

      CU_ASSERT_PTR_NOT_NULL_FATAL (discovery);
      instance = instance_new (types[i], 1000, &json_len);
      /* The payload's bytes are the JSON's, one for one. */
      fits = LIMIT - create_size (strlen (node_path), 0, OPEN_ACL_BYTES);
      payload = 1000 + fits - json_len;
      zkr_service_instance_free (instance);
      instance = instance_new (types[i], payload + 1, &json_len);
      CU_ASSERT_EQUAL (json_len, fits + 1);
      CU_ASSERT_FALSE (zkr_service_discovery_register (discovery, instance, ITEST_CALL_MS, NULL,
                                                       &error));
      ASSERT_REFUSED (&q, error, LIMIT + 1);
      g_clear_error (&error);
      CU_ASSERT_TRUE (itest_node_absent (q.session, node_path));
      zkr_service_instance_free (instance);
      instance = instance_new (types[i], payload, &json_len);
      CU_ASSERT_TRUE (zkr_service_discovery_register (discovery, instance, ITEST_CALL_MS, NULL,
                                                      &error));
      CU_ASSERT_PTR_NULL (error);
      if (types[i] == ZKR_SERVICE_DYNAMIC)
        {
          /* Its data is used for every re-creation: a create's size. */
          ZkrServiceInstance *larger = instance_new (types[i], payload + 1, &json_len);

          CU_ASSERT_FALSE (zkr_service_discovery_update (discovery, larger, ITEST_CALL_MS, NULL,
                                                         &error));
          ASSERT_REFUSED (&q, error, LIMIT + 1);
          g_clear_error (&error);
          zkr_service_instance_free (larger);
        }
      CU_ASSERT_TRUE (zkr_service_discovery_unregister (discovery, "svc", "one", ITEST_CALL_MS,
                                                        NULL, &error));
      CU_ASSERT_PTR_NULL (error);
      CU_ASSERT_TRUE (zkr_service_discovery_close (discovery, ITEST_CALL_MS, NULL, &error));
      zkr_service_instance_free (instance);
    }
  quiet_check (&q);
  quiet_end (&q);
}

/* ---- the door ------------------------------------------------------------------- */

typedef struct {
  const char *path;
  const char *data;
  int len;
  const ZkrMultiOp *ops;
  guint count;
} DoorArgs;

static void
send_set (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  DoorArgs *args = send_data;

  zkr__op_set (session, args->path, args->data, args->len, -1, func, user_data);
}

static void
send_multi (ZkrSession *session, ZkrReplyFunc func, gpointer user_data, gpointer send_data)
{
  DoorArgs *args = send_data;

  zkr__op_multi (session, args->ops, args->count, ZKR_WAKE_ALWAYS, func, user_data);
}

/* Below every call's own check: the requests the recipes send go through
 * the same door, which refuses before anything leaves and says the size. */
static void
test_request_size__the_op_door_refuses_what_no_call_checked (void)
{
  Quiet q;
  g_autofree char *path = NULL;
  ZkrReply reply = { 0 };
  DoorArgs args = { 0 };
  ZkrMultiOp ops[2];
  gsize fits;

  quiet_begin (&q, "size-door");
  path = long_child (q.root, 'o');
  CU_ASSERT_EQUAL (itest_create_with_retries (q.session, path, ITEST_CALL_MS), ZOK);
  fits = LIMIT - set_size (strlen (path), 0);
  args.path = path;
  args.data = q.data;
  args.len = (int) fits + 1;
  CU_ASSERT_EQUAL (zkr__op_sync (q.session, send_set, &args, &reply), ZKR_ZK_REQUEST_TOO_LARGE);
  CU_ASSERT_EQUAL (reply.request_size, LIMIT + 1);
  zkr__op_reply_clear (&reply);
  quiet_check (&q);
  args.len = (int) fits;
  CU_ASSERT_EQUAL (zkr__op_sync (q.session, send_set, &args, &reply), ZOK);
  zkr__op_reply_clear (&reply);

  /* A multi of two sets, each one well under the limit. */
  for (guint i = 0; i < 2; i++)
    ops[i] = (ZkrMultiOp) { .kind = ZKR_MULTI_SET, .path = path, .data = q.data,
                            .len = 600000, .version = -1 };
  args.ops = ops;
  args.count = 2;
  CU_ASSERT_EQUAL (zkr__op_sync (q.session, send_multi, &args, &reply), ZKR_ZK_REQUEST_TOO_LARGE);
  CU_ASSERT_EQUAL (reply.request_size, multi_size (2, 2 * multi_set_body (strlen (path), 600000)));
  CU_ASSERT_PTR_NULL (reply.results);
  zkr__op_reply_clear (&reply);
  quiet_check (&q);
  quiet_end (&q);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_request_size__txn_of_two_large_sets_refused_with_nothing_sent),
  ZKR_TEST_CASE (test_request_size__txn_one_byte_over_refused_at_the_limit_committed),
  ZKR_TEST_CASE (test_request_size__node_create_one_byte_over_refused_at_the_limit_made),
  ZKR_TEST_CASE (test_request_size__node_create_full_counts_its_own_acl),
  ZKR_TEST_CASE (test_request_size__protected_create_counts_its_prefix),
  ZKR_TEST_CASE (test_request_size__node_set_one_byte_over_refused_at_the_limit_set),
  ZKR_TEST_CASE (test_request_size__chroot_and_namespace_are_counted),
  ZKR_TEST_CASE (test_request_size__persistent_node_refused_at_once),
  ZKR_TEST_CASE (test_request_size__group_member_refused_at_once),
  ZKR_TEST_CASE (test_request_size__service_registration_refused_at_once),
  ZKR_TEST_CASE (test_request_size__the_op_door_refuses_what_no_call_checked),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "request-size", NULL, NULL, tests);
}
