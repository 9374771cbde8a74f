/* zkr integration: the presence commands run as a user runs them (a
 * subprocess): zkr register keeps an instance listed by zkr services while
 * CMD runs and removes it when CMD ends or on SIGTERM, passing CMD's
 * status through; bad values exit 64 naming them; zkr members lists a
 * group joined from the test. */

#include <signal.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "cli-proc.h"
#include "itest.h"
#include "zkr-test.h"

#define WAIT_MS CLI_WAIT_MS

/* Whether @path exists as the ensemble has it now: zkr's writes went
 * through another session, perhaps to another server. */
static gboolean
node_absent_synced (ZkrSession *session, const char *path)
{
  zkr__op_sync_path_sync (session, path);
  return itest_node_absent (session, path);
}

static char *
instance_path (const char *base, const char *name, const char *id)
{
  return g_strdup_printf ("%s/%s/%s", base, name, id);
}

/* CMD lists the instances itself (it runs only once registered) and its
 * status comes back; afterwards the instance is gone. */
static void
test_cli__register_lists_the_instance_while_cmd_runs_and_passes_its_status (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register");
  g_autofree char *node = instance_path (base, "api", "inst-1");
  g_autofree char *out = NULL, *err = NULL, *after = NULL;
  const char *script = "\"$0\" services --base-path \"$1\" --json api && exit 3";

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (&out, &err, "register", "api", "--base-path", base, "--id", "inst-1",
                            "--address", "10.1.2.3", "--port", "8080", "--ssl-port", "8443",
                            "--payload", "{\"zone\":\"a\",\"weight\":2}", "--", "sh", "-c",
                            script, zkr_path (), base), 3);
  CU_ASSERT_EQUAL (text_index (out, "[{"), 0);
  CU_ASSERT_EQUAL (text_count (out, "\"id\":"), 1);
  CU_ASSERT_TRUE (text_index (out, "\"name\":\"api\"") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"id\":\"inst-1\"") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"address\":\"10.1.2.3\"") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"port\":8080") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"sslPort\":8443") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"zone\":\"a\"") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"weight\":2") > 0);
  CU_ASSERT_TRUE (text_index (out, "\"serviceType\":\"DYNAMIC\"") > 0);
  CU_ASSERT_TRUE (node_absent_synced (session, node));
  /* The service's node stays (a container); it lists no instance. */
  CU_ASSERT_EQUAL (zkr_run (&after, NULL, "services", "--base-path", base, "api"), 0);
  CU_ASSERT_STRING_EQUAL (after != NULL ? after : "?", "");
  itest_cleanup_root (session, NULL, base);
  zkr_session_unref (session);
}

/* A running registration seen from outside, then SIGTERM: forwarded to
 * CMD, whose death by it is the status; the instance is gone. */
static void
test_cli__register_is_listed_from_outside_and_gone_after_sigterm (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register-term");
  g_autofree char *node = instance_path (base, "web", "w1");
  g_autofree char *names = NULL, *lines = NULL, *json = NULL;
  g_autoptr (Proc) proc = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = zkr_spawn ("register", "web", "--base-path", base, "--id", "w1", "--address",
                    "10.0.0.1", "--port", "9000", "--", "sh", "-c",
                    "echo \"up $ZKR_SERVICE_ID\"; exec sleep 600");
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (wait_output (proc->out_path, "up w1\n", 1));
  CU_ASSERT_EQUAL (zkr_run (&names, NULL, "services", "--base-path", base), 0);
  CU_ASSERT_STRING_EQUAL (names != NULL ? names : "?", "web\n");
  CU_ASSERT_EQUAL (zkr_run (&lines, NULL, "services", "--base-path", base, "web"), 0);
  CU_ASSERT_STRING_EQUAL (lines != NULL ? lines : "?", "w1 10.0.0.1:9000\n");
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "services", "--json", "--base-path", base), 0);
  CU_ASSERT_STRING_EQUAL (json != NULL ? json : "?", "[\"web\"]\n");
  CU_ASSERT_FALSE (node_absent_synced (session, node));
  proc_signal (proc, SIGTERM);
  CU_ASSERT_EQUAL (proc_finish (proc, WAIT_MS, NULL, NULL), 128 + SIGTERM);
  CU_ASSERT_TRUE (node_absent_synced (session, node));
  itest_cleanup_root (session, NULL, base);
  zkr_session_unref (session);
}

/* zkr register SIGKILLed (no unregister can run): its instance goes with
 * its session, at the server's expiry of it: within one session timeout
 * (4 s here) and a margin for the server's session tick. */
static void
test_cli__register_sigkilled_is_gone_within_a_session_timeout (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register-kill");
  g_autofree char *node = instance_path (base, "web", "k1");
  g_autofree char *cmd_pid = NULL;
  g_autoptr (Proc) proc = NULL;
  gint64 killed, end;
  gboolean gone = FALSE;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  proc = zkr_spawn ("register", "web", "--base-path", base, "--id", "k1", "--address",
                    "10.0.0.2", "--port", "9001", "--session-timeout", "4", "--", "sh", "-c",
                    "echo \"pid $$\"; exec sleep 600");
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_TRUE_FATAL (wait_output (proc->out_path, "pid ", 1));
  CU_ASSERT_FALSE (node_absent_synced (session, node));
  {
    g_autofree char *out = NULL;

    if (g_file_get_contents (proc->out_path, &out, NULL, NULL))
      cmd_pid = g_strdup (g_strstrip (out + strlen ("pid ")));
  }
  proc_signal (proc, SIGKILL);
  killed = g_get_monotonic_time ();
  /* CMD outlives zkr: it is ours to stop. */
  if (cmd_pid != NULL && g_ascii_strtoll (cmd_pid, NULL, 10) > 1)
    kill ((pid_t) g_ascii_strtoll (cmd_pid, NULL, 10), SIGKILL);
  end = killed + (4000 + 3000) * (gint64) 1000;
  while (!gone && g_get_monotonic_time () < end)
    {
      gone = node_absent_synced (session, node);
      if (!gone)
        g_usleep (50 * 1000);
    }
  if (!gone)
    g_printerr ("the instance of a SIGKILLed zkr register was still there after 7 s\n");
  CU_ASSERT_TRUE (gone);
  itest_cleanup_root (session, NULL, base);
  zkr_session_unref (session);
}

/* Without --id, Curator's default: a random UUID, which CMD is told. */
static void
test_cli__register_id_defaults_to_a_uuid (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register-uuid");
  g_autofree char *out = NULL, *line = NULL;
  g_auto (GStrv) lines = NULL;
  const char *script = "echo \"$ZKR_SERVICE_ID\"; \"$0\" services --base-path \"$1\" svc";

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_EQUAL (zkr_run (&out, NULL, "register", "svc", "--base-path", base, "--address",
                            "h", "--port", "1", "--", "sh", "-c", script, zkr_path (), base), 0);
  lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  CU_ASSERT_EQUAL_FATAL (g_strv_length (lines), 3);
  CU_ASSERT_TRUE (g_uuid_string_is_valid (lines[0]));
  line = g_strdup_printf ("%s h:1", lines[0]);
  CU_ASSERT_STRING_EQUAL (lines[1], line);
  CU_ASSERT_STRING_EQUAL (lines[2], "");
  itest_cleanup_root (session, NULL, base);
  zkr_session_unref (session);
}

/* Another session's node holds BASE/NAME/ID: not registered by
 * --timeout, exit 75, CMD never runs, and that node is left alone (the
 * pending registration's close once deleted it). */
static void
test_cli__register_times_out_with_75_while_the_id_is_taken (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register-taken");
  g_autofree char *node = instance_path (base, "svc", "taken");
  g_autofree char *out = NULL, *err = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_TRUE_FATAL (zkr_node_create (session, node, "theirs", 6, ZKR_CREATE_PERSISTENT,
                                         ZKR_CREATE_PARENTS_PERSISTENT, 10000, NULL, NULL, NULL,
                                         NULL));
  CU_ASSERT_EQUAL (zkr_run (&out, &err, "register", "svc", "--base-path", base, "--id", "taken",
                            "--address", "h", "--port", "1", "--timeout", "1", "--", "echo",
                            "ran"), 75);
  CU_ASSERT_EQUAL (text_index (out, "ran"), -1);
  CU_ASSERT_NOT_EQUAL (text_index (err, "not registered"), -1);
  {
    g_autoptr (GBytes) data = NULL;

    CU_ASSERT_TRUE (zkr_node_sync (session, node, 10000, NULL, NULL));
    data = zkr_node_get (session, node, 10000, NULL, NULL, NULL);
    CU_ASSERT_TRUE (data != NULL && g_bytes_get_size (data) == 6 &&
                    memcmp (g_bytes_get_data (data, NULL), "theirs", 6) == 0);
  }
  itest_cleanup_root (session, NULL, base);
  zkr_session_unref (session);
}

static void
assert_usage_naming (const char *bad_value, const char *const *args)
{
  g_autofree char *err = NULL;

  CU_ASSERT_EQUAL (zkr_run_v (args, NULL, &err), 64);
  CU_ASSERT_NOT_EQUAL (text_index (err, bad_value), -1);
}

/* Refused before anything is sent: nothing is registered, CMD never runs. */
static void
test_cli__register_bad_values_exit_64_naming_them (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *base = itest_scratch_path ("cli-register-bad");

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  assert_usage_naming ("{zone:", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--port", "1", "--payload", "{zone:", "--", "true", NULL });
  assert_usage_naming ("70000", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--port", "70000", "--", "true", NULL });
  assert_usage_naming ("8o8o", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--port", "8o8o", "--", "true", NULL });
  assert_usage_naming ("-2", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--port", "1", "--ssl-port", "-2", "--", "true", NULL });
  assert_usage_naming ("--port", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--", "true", NULL });
  assert_usage_naming ("CMD", (const char *const[]) { "register", "s", "--base-path", base,
    "--address", "h", "--port", "1", NULL });
  CU_ASSERT_TRUE (itest_node_absent (session, base));
  itest_assert_path_clean (session, base);
  zkr_session_unref (session);
}

/* Members joined from the test, read by zkr members without joining. */
static void
test_cli__members_lists_ids_and_payloads (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *group = itest_scratch_path ("cli-members");
  g_autofree char *missing = g_strconcat (group, "-missing", NULL);
  const char binary[] = { 'a', '\n', '\xff' };
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL, *json = NULL, *err = NULL;
  ZkrGroupMember *m1, *m2;

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  m1 = zkr_group_member_new (session, group, "m1", "hello world", 11, &error);
  m2 = zkr_group_member_new (session, group, "m2", binary, sizeof binary, &error);
  CU_ASSERT_TRUE_FATAL (m1 != NULL && m2 != NULL);
  CU_ASSERT_TRUE (zkr_group_member_start (m1, &error) && zkr_group_member_start (m2, &error));
  CU_ASSERT_TRUE (zkr_group_member_wait_joined (m1, 30000, NULL, &error));
  CU_ASSERT_TRUE (zkr_group_member_wait_joined (m2, 30000, NULL, &error));
  CU_ASSERT_EQUAL (zkr_run (&text, NULL, "members", group), 0);
  CU_ASSERT_STRING_EQUAL (text != NULL ? text : "?", "m1\thello world\nm2\ta\\n\\377\n");
  CU_ASSERT_EQUAL (zkr_run (&json, NULL, "members", "--json", group), 0);
  CU_ASSERT_STRING_EQUAL (json != NULL ? json : "?",
                          "{\"m1\":\"hello world\",\"m2\":{\"base64\":\"YQr/\"}}\n");
  /* Read-only: still exactly our two members. */
  CU_ASSERT_EQUAL (itest_count_children (session, group), 2);
  CU_ASSERT_EQUAL (zkr_run (NULL, &err, "members", missing), 66);
  CU_ASSERT_NOT_EQUAL (text_index (err, missing), -1);
  CU_ASSERT_TRUE (zkr_group_member_close (m1, 30000, NULL, &error));
  CU_ASSERT_TRUE (zkr_group_member_close (m2, 30000, NULL, &error));
  zkr_group_member_unref (m1);
  zkr_group_member_unref (m2);
  itest_cleanup_root (session, NULL, group);
  CU_ASSERT_TRUE (itest_node_absent (session, missing));
  zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli__register_lists_the_instance_while_cmd_runs_and_passes_its_status),
  ZKR_TEST_CASE (test_cli__register_is_listed_from_outside_and_gone_after_sigterm),
  ZKR_TEST_CASE (test_cli__register_id_defaults_to_a_uuid),
  ZKR_TEST_CASE (test_cli__register_sigkilled_is_gone_within_a_session_timeout),
  ZKR_TEST_CASE (test_cli__register_times_out_with_75_while_the_id_is_taken),
  ZKR_TEST_CASE (test_cli__register_bad_values_exit_64_naming_them),
  ZKR_TEST_CASE (test_cli__members_lists_ids_and_payloads),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-presence", NULL, NULL, tests);
}
