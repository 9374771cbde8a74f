/* Unit tests of core/error.c: every ZooKeeper return code lands on the
 * documented ZkrError, retryable exactly where docs/design.md §2.4 says,
 * and error messages carry the operation, path, ZooKeeper name and session
 * id. */

#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <zookeeper/zookeeper.h>

#include "error-private.h"
#include "zkr-test.h"

typedef struct {
  int rc;
  const char *name;
  ZkrError code;
} ExpectedMapping;

/* Written from docs/design.md §2.4/§2.5 and include/zkr/error.h, not
 * copied from core/error.c: a change to the mapping must change this table
 * too. */
static const ExpectedMapping expected_mappings[] = {
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
};

static void
test_error__every_zookeeper_code_maps_as_documented (void)
{
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (expected_mappings); i++)
    {
      const ExpectedMapping *m = &expected_mappings[i];

      if (zkr__error_code_from_zk (m->rc) != m->code)
        {
          fprintf (stderr, "%s maps to %s, expected %s\n", m->name,
                   zkr_error_code_name (zkr__error_code_from_zk (m->rc)),
                   zkr_error_code_name (m->code));
          CU_FAIL (m->name);
        }
      CU_ASSERT_STRING_EQUAL (zkr__error_zk_name (m->rc), m->name);
    }
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZOK), 0);
  CU_ASSERT_STRING_EQUAL (zkr__error_zk_name (ZOK), "ZOK");
}

static void
test_error__key_codes_map_to_their_own_errors (void)
{
  /* The ones recipes branch on, spelled out. */
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZCONNECTIONLOSS), ZKR_ERROR_CONNECTION_LOSS);
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZSESSIONEXPIRED), ZKR_ERROR_SESSION_EXPIRED);
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZNOAUTH), ZKR_ERROR_AUTH);
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZAUTHFAILED), ZKR_ERROR_AUTH);
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZNONODE), ZKR_ERROR_NO_NODE);
  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZNODEEXISTS), ZKR_ERROR_NODE_EXISTS);
}

static void
test_error__unknown_codes_are_zookeeper_errors (void)
{
  static const int unknown[] = { -10, -16, -99, -104, -122, -125, -128, -999, 1, 42 };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (unknown); i++)
    {
      g_autofree char *expected = g_strdup_printf ("ZUNKNOWN(%d)", unknown[i]);

      CU_ASSERT_EQUAL (zkr__error_code_from_zk (unknown[i]), ZKR_ERROR_ZOOKEEPER);
      CU_ASSERT_STRING_EQUAL (zkr__error_zk_name (unknown[i]), expected);
      CU_ASSERT_FALSE (zkr__error_rc_is_retryable (unknown[i]));
    }
}

static void
test_error__only_transient_codes_are_retryable (void)
{
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (expected_mappings); i++)
    {
      int rc = expected_mappings[i].rc;
      gboolean expected = rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONMOVED ||
                          rc == ZTHROTTLEDOP || rc == ZSSLCONNECTIONERROR;

      if (zkr__error_rc_is_retryable (rc) != expected)
        CU_FAIL (expected_mappings[i].name);
    }
  /* docs/design.md §2.4: never retried. */
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZSESSIONEXPIRED));
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZAUTHFAILED));
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZNOAUTH));
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZBADARGUMENTS));
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZOK));
}

static void
test_error__gerror_retryable_follows_its_code (void)
{
  g_autoptr (GError) io_error = g_error_new_literal (G_IO_ERROR, ZKR_ERROR_CONNECTION_LOSS, "x");
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (expected_mappings); i++)
    {
      g_autoptr (GError) error = NULL;
      ZkrError code = expected_mappings[i].code;

      zkr__error_set_from_zk (&error, expected_mappings[i].rc, "get", "/x", 0);
      CU_ASSERT_PTR_NOT_NULL_FATAL (error);
      CU_ASSERT_EQUAL (error->domain, ZKR_ERROR);
      CU_ASSERT_EQUAL (error->code, (int) code);
      CU_ASSERT_EQUAL (zkr_error_is_retryable (error),
                       code == ZKR_ERROR_CONNECTION_LOSS || code == ZKR_ERROR_SESSION_MOVED);
    }
  CU_ASSERT_FALSE (zkr_error_is_retryable (NULL));
  CU_ASSERT_FALSE (zkr_error_is_retryable (io_error));
}

static void
test_error__connection_loss_retryable_session_expired_not (void)
{
  g_autoptr (GError) loss = NULL;
  g_autoptr (GError) expired = NULL;

  zkr__error_set_from_zk (&loss, ZCONNECTIONLOSS, "create", "/l", 1);
  zkr__error_set_from_zk (&expired, ZSESSIONEXPIRED, "create", "/l", 1);
  CU_ASSERT_TRUE (g_error_matches (loss, ZKR_ERROR, ZKR_ERROR_CONNECTION_LOSS));
  CU_ASSERT_TRUE (zkr_error_is_retryable (loss));
  CU_ASSERT_TRUE (g_error_matches (expired, ZKR_ERROR, ZKR_ERROR_SESSION_EXPIRED));
  CU_ASSERT_FALSE (zkr_error_is_retryable (expired));
}

static void
test_error__client_side_failures_are_not_server_answers (void)
{
  static const int client_side[] = {
    ZCONNECTIONLOSS, ZOPERATIONTIMEOUT, ZSESSIONEXPIRED, ZCLOSING,
    ZINVALIDSTATE, ZSYSTEMERROR, ZMARSHALLINGERROR, ZBADARGUMENTS,
    ZSSLCONNECTIONERROR, ZNOTHING, ZINVALIDCALLBACK, ZAPIERROR, ZSESSIONMOVED,
  };
  static const int answers[] = {
    ZOK, ZNONODE, ZNODEEXISTS, ZNOAUTH, ZBADVERSION, ZNOTEMPTY,
    ZNOCHILDRENFOREPHEMERALS, ZINVALIDACL, ZNOTREADONLY, ZTHROTTLEDOP,
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (client_side); i++)
    CU_ASSERT_FALSE (zkr__error_rc_is_server_answer (client_side[i]));
  for (i = 0; i < G_N_ELEMENTS (answers); i++)
    CU_ASSERT_TRUE (zkr__error_rc_is_server_answer (answers[i]));
}

static void
test_error__message_names_op_path_code_and_session (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  zkr__error_set_from_zk (&error, ZNONODE, "create", "/locks/db", G_GINT64_CONSTANT (0x1234abcd5678));
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  expected = g_strdup_printf ("create /locks/db: ZNONODE (%s) [session 0x1234abcd5678]", zerror (ZNONODE));
  CU_ASSERT_STRING_EQUAL (error->message, expected);
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "create"));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "/locks/db"));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "ZNONODE"));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "0x1234abcd5678"));
}

static void
test_error__message_without_path_or_session (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) high_id = NULL;
  g_autofree char *expected = NULL;

  zkr__error_set_from_zk (&error, ZCONNECTIONLOSS, "get_children", NULL, 0);
  expected = g_strdup_printf ("get_children: ZCONNECTIONLOSS (%s)", zerror (ZCONNECTIONLOSS));
  CU_ASSERT_STRING_EQUAL (error->message, expected);
  CU_ASSERT_PTR_NULL (strstr (error->message, "session"));

  /* Server ids >= 128 set the top bit: still printed as unsigned hex. */
  zkr__error_set_from_zk (&high_id, ZNOAUTH, "delete", "/x", (gint64) G_GUINT64_CONSTANT (0x81000000000000ff));
  CU_ASSERT_PTR_NOT_NULL (strstr (high_id->message, "[session 0x81000000000000ff]"));
}

static void
test_error__zok_is_not_an_error (void)
{
  GError *error = NULL;

  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr__error_set_from_zk (&error, ZOK, "get", "/x", 1));
  CU_ASSERT_PTR_NULL (error);
  /* A NULL error location is fine: nothing to set. */
  zkr__error_set_from_zk (NULL, ZNONODE, "get", "/x", 1);
}

static void
test_error__code_names_are_stable (void)
{
  /* ZKR_ERROR_CANCELLED: deprecated, never produced (a cancel is
   * G_IO_ERROR_CANCELLED), its value and name kept. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  static const struct {
    ZkrError code;
    int value;
    const char *name;
  } names[] = {
    { ZKR_ERROR_INVALID_ARGUMENT, 1, "ZKR_ERROR_INVALID_ARGUMENT" },
    { ZKR_ERROR_TIMEOUT, 2, "ZKR_ERROR_TIMEOUT" },
    { ZKR_ERROR_CANCELLED, 3, "ZKR_ERROR_CANCELLED" },
    { ZKR_ERROR_CONNECTION_LOSS, 4, "ZKR_ERROR_CONNECTION_LOSS" },
    { ZKR_ERROR_SESSION_EXPIRED, 5, "ZKR_ERROR_SESSION_EXPIRED" },
    { ZKR_ERROR_SESSION_CLOSED, 6, "ZKR_ERROR_SESSION_CLOSED" },
    { ZKR_ERROR_NOT_HELD, 7, "ZKR_ERROR_NOT_HELD" },
    { ZKR_ERROR_ALREADY_HELD, 8, "ZKR_ERROR_ALREADY_HELD" },
    { ZKR_ERROR_LOCK_LOST, 9, "ZKR_ERROR_LOCK_LOST" },
    { ZKR_ERROR_AUTH, 10, "ZKR_ERROR_AUTH" },
    { ZKR_ERROR_NO_NODE, 11, "ZKR_ERROR_NO_NODE" },
    { ZKR_ERROR_NODE_EXISTS, 12, "ZKR_ERROR_NODE_EXISTS" },
    { ZKR_ERROR_ZOOKEEPER, 13, "ZKR_ERROR_ZOOKEEPER" },
    { ZKR_ERROR_SESSION_MOVED, 14, "ZKR_ERROR_SESSION_MOVED" },
    { ZKR_ERROR_NOT_EMPTY, 15, "ZKR_ERROR_NOT_EMPTY" },
    { ZKR_ERROR_BAD_VERSION, 16, "ZKR_ERROR_BAD_VERSION" },
    { ZKR_ERROR_INTERNAL, 17, "ZKR_ERROR_INTERNAL" },
    { ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS, 18, "ZKR_ERROR_NO_CHILDREN_FOR_EPHEMERALS" },
    { ZKR_ERROR_INVALID_ACL, 19, "ZKR_ERROR_INVALID_ACL" },
    { ZKR_ERROR_UNIMPLEMENTED, 20, "ZKR_ERROR_UNIMPLEMENTED" },
    { ZKR_ERROR_NO_WATCHER, 21, "ZKR_ERROR_NO_WATCHER" },
  };
  G_GNUC_END_IGNORE_DEPRECATIONS
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      CU_ASSERT_EQUAL ((int) names[i].code, names[i].value);
      CU_ASSERT_STRING_EQUAL (zkr_error_code_name (names[i].code), names[i].name);
    }
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name (0), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) 22), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) -1), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_code_name ((ZkrError) 100000), "ZKR_ERROR_UNKNOWN");
}

static void
test_error__quark_is_stable (void)
{
  CU_ASSERT_NOT_EQUAL (ZKR_ERROR, 0);
  CU_ASSERT_EQUAL (ZKR_ERROR, g_quark_from_static_string ("zkr-error-quark"));
  CU_ASSERT_EQUAL (zkr_error_quark (), zkr_error_quark ());
}

/* The GIO convention (include/zkr/error.h): what
 * g_cancellable_set_error_if_cancelled() gives, with a message naming the
 * call. */
static void
test_error__a_cancel_is_gio_cancelled_naming_the_call (void)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) gio = NULL;
  g_autoptr (GError) error = zkr__error_new_cancelled ("acquire mutex %s", "/locks/db");

  g_cancellable_cancel (cancellable);
  CU_ASSERT_TRUE (g_cancellable_set_error_if_cancelled (cancellable, &gio));
  CU_ASSERT_TRUE (g_error_matches (error, gio->domain, gio->code));
  CU_ASSERT_TRUE (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  CU_ASSERT_STRING_EQUAL (error->message, "acquire mutex /locks/db: cancelled");
  CU_ASSERT_FALSE (zkr_error_is_retryable (error));
}

static void
test_error__error_names_cover_a_cancel (void)
{
  g_autoptr (GError) cancelled = zkr__error_new_cancelled ("get %s", "/x");
  g_autoptr (GError) timeout = g_error_new_literal (ZKR_ERROR, ZKR_ERROR_TIMEOUT, "t");
  g_autoptr (GError) unknown_code = g_error_new_literal (ZKR_ERROR, 1000, "u");
  g_autoptr (GError) other = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "o");

  CU_ASSERT_STRING_EQUAL (zkr_error_name (cancelled), "G_IO_ERROR_CANCELLED");
  CU_ASSERT_STRING_EQUAL (zkr_error_name (timeout), "ZKR_ERROR_TIMEOUT");
  CU_ASSERT_STRING_EQUAL (zkr_error_name (unknown_code), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_name (other), "ZKR_ERROR_UNKNOWN");
  CU_ASSERT_STRING_EQUAL (zkr_error_name (NULL), "NONE");
}

/* A request refused for its size before sending: INVALID_ARGUMENT naming
 * the size and the limit; final, never taken for the server's answer. */
static void
test_error__a_request_too_large_names_its_size (void)
{
  g_autoptr (GError) sized = NULL;
  g_autoptr (GError) unsized = NULL;

  CU_ASSERT_EQUAL (zkr__error_code_from_zk (ZKR_ZK_REQUEST_TOO_LARGE),
                   ZKR_ERROR_INVALID_ARGUMENT);
  CU_ASSERT_FALSE (zkr__error_rc_is_retryable (ZKR_ZK_REQUEST_TOO_LARGE));
  CU_ASSERT_FALSE (zkr__error_rc_is_server_answer (ZKR_ZK_REQUEST_TOO_LARGE));
  zkr__error_set_from_reply_rc (&sized, ZKR_ZK_REQUEST_TOO_LARGE, 1200113, "set", "/a", 0x12);
  CU_ASSERT_TRUE (g_error_matches (sized, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_STRING_EQUAL (sized->message,
                          "set /a: invalid request of 1200113 bytes: more than ZooKeeper takes "
                          "(1048575 bytes, ZKR_NODE_MAX_REQUEST_SIZE); nothing was sent");
  zkr__error_set_from_zk (&unsized, ZKR_ZK_REQUEST_TOO_LARGE, "get", NULL, 0);
  CU_ASSERT_STRING_EQUAL (unsized->message,
                          "get: invalid request: more than ZooKeeper takes (1048575 bytes, "
                          "ZKR_NODE_MAX_REQUEST_SIZE); nothing was sent");
}

static gpointer
name_unknown_codes (gpointer data)
{
  int base = GPOINTER_TO_INT (data);
  int i;

  for (i = 0; i < 2000; i++)
    {
      g_autofree char *expected = g_strdup_printf ("ZUNKNOWN(%d)", base - i);

      if (strcmp (zkr__error_zk_name (base - i), expected) != 0)
        return GINT_TO_POINTER (1);
    }
  return NULL;
}

static void
test_error__unknown_names_are_per_thread (void)
{
  GThread *one = g_thread_new ("names-1", name_unknown_codes, GINT_TO_POINTER (-1000));
  GThread *two = g_thread_new ("names-2", name_unknown_codes, GINT_TO_POINTER (-5000));

  CU_ASSERT_PTR_NULL (g_thread_join (one));
  CU_ASSERT_PTR_NULL (g_thread_join (two));
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_error__every_zookeeper_code_maps_as_documented),
    ZKR_TEST_CASE (test_error__key_codes_map_to_their_own_errors),
    ZKR_TEST_CASE (test_error__unknown_codes_are_zookeeper_errors),
    ZKR_TEST_CASE (test_error__only_transient_codes_are_retryable),
    ZKR_TEST_CASE (test_error__gerror_retryable_follows_its_code),
    ZKR_TEST_CASE (test_error__connection_loss_retryable_session_expired_not),
    ZKR_TEST_CASE (test_error__client_side_failures_are_not_server_answers),
    ZKR_TEST_CASE (test_error__message_names_op_path_code_and_session),
    ZKR_TEST_CASE (test_error__message_without_path_or_session),
    ZKR_TEST_CASE (test_error__zok_is_not_an_error),
    ZKR_TEST_CASE (test_error__code_names_are_stable),
    ZKR_TEST_CASE (test_error__quark_is_stable),
    ZKR_TEST_CASE (test_error__unknown_names_are_per_thread),
    ZKR_TEST_CASE (test_error__a_cancel_is_gio_cancelled_naming_the_call),
    ZKR_TEST_CASE (test_error__error_names_cover_a_cancel),
    ZKR_TEST_CASE (test_error__a_request_too_large_names_its_size),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "error", NULL, NULL, tests);
}
