/* zkr integration: zkr-bench (tools/bench/zkr-bench.c, built with -Dbench)
 * against the real ensemble, run as a user runs it (a subprocess): one
 * JSON line per run with the keys and value types `zkr bench` printed,
 * every implementation excluding (no violation) and leaving nothing on
 * the server, bad command lines refused with exit 64, every option in
 * --help. */

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <json-glib/json-glib.h>

#include "cli-proc.h"
#include "itest.h"
#include "zkr-test.h"

/* The zkr-bench program under test (ZKR_BENCH; a CUnit failure if unset). */
static const char *
bench_path (void)
{
  const char *path = g_getenv ("ZKR_BENCH");

  CU_ASSERT_PTR_NOT_NULL (path);
  return path != NULL ? path : "zkr-bench";
}

/* Runs zkr-bench with @args (NULL-terminated) to completion: its exit
 * status, -1 if it did not end within CLI_WAIT_MS. */
static int
bench_run_v (const char *const *args, char **out, char **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (Proc) proc = NULL;

  g_ptr_array_add (argv, (gpointer) bench_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = proc_spawn ((const char *const *) argv->pdata, NULL);
  return proc != NULL ? proc_finish (proc, CLI_WAIT_MS, out, err) : -1;
}
#define bench_run(out, err, ...) bench_run_v ((const char *const[]) { __VA_ARGS__, NULL }, out, err)

/* The members of `zkr bench`'s line, in its order, with their types. */
static const struct {
  const char *name;
  GType type;
} result_members[] = {
  { "impl", G_TYPE_STRING },
  { "clients", G_TYPE_INT64 },
  { "cycles_total", G_TYPE_INT64 },
  { "seconds", G_TYPE_DOUBLE },
  { "cycles_per_s", G_TYPE_DOUBLE },
  { "acquire_ms_p50", G_TYPE_DOUBLE },
  { "acquire_ms_p99", G_TYPE_DOUBLE },
  { "violations", G_TYPE_INT64 },
};

/* @line parses as one object with exactly result_members, in order, each
 * of its type: "impl" @impl, "clients" @clients, "cycles_total"
 * @cycles_total, no violation. */
static void
assert_result (const char *line, const char *impl, gint64 clients, gint64 cycles_total)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GList) names = NULL;
  JsonObject *object;
  guint i = 0;

  CU_ASSERT_TRUE_FATAL (json_parser_load_from_data (parser, line, -1, NULL));
  CU_ASSERT_TRUE_FATAL (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  object = json_node_get_object (json_parser_get_root (parser));
  names = json_object_get_members (object);
  CU_ASSERT_EQUAL (g_list_length (names), G_N_ELEMENTS (result_members));
  for (GList *l = names; l != NULL && i < G_N_ELEMENTS (result_members); l = l->next, i++)
    {
      JsonNode *member = json_object_get_member (object, l->data);

      CU_ASSERT_STRING_EQUAL (l->data, result_members[i].name);
      CU_ASSERT_TRUE (JSON_NODE_HOLDS_VALUE (member)
                      && json_node_get_value_type (member) == result_members[i].type);
    }
  CU_ASSERT_STRING_EQUAL (json_object_get_string_member (object, "impl"), impl);
  CU_ASSERT_EQUAL (json_object_get_int_member (object, "clients"), clients);
  CU_ASSERT_EQUAL (json_object_get_int_member (object, "cycles_total"), cycles_total);
  CU_ASSERT_TRUE (json_object_get_double_member (object, "seconds") > 0);
  CU_ASSERT_TRUE (json_object_get_double_member (object, "acquire_ms_p50")
                  <= json_object_get_double_member (object, "acquire_ms_p99"));
  CU_ASSERT_EQUAL (json_object_get_int_member (object, "violations"), 0);
}

static void
test_cli_bench__each_impl_prints_one_json_line_and_leaves_nothing (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-bench");
  const char *impls[] = { "raw", "raw-curator", "mutex", "rwlock-read", "rwlock-write",
                          "semaphore", "raw-counter", "atomic-long", "atomic-long-promoted" };

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  for (gsize i = 0; i < G_N_ELEMENTS (impls); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      CU_ASSERT_EQUAL (bench_run (&out, &err, "--impl", impls[i], "--path", path,
                                  "--clients=2", "--cycles=20", "--warmup=2"), 0);
      /* One line, the JSON object. */
      CU_ASSERT_TRUE (g_str_has_suffix (out != NULL ? out : "", "}\n"));
      CU_ASSERT_EQUAL (text_count (out, "\n"), 1);
      assert_result (out != NULL ? out : "", impls[i], 2, 40);
      /* stderr is a pipe here: no progress line. */
      CU_ASSERT_STRING_EQUAL (err != NULL ? err : "?", "");
      CU_ASSERT_TRUE (itest_node_absent (session, path));
    }
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

/* -H wins over $ZKR_HOSTS (not the ensemble's here); with -i, -q and a
 * timed run (--seconds) instead of counted cycles. */
static void
test_cli_bench__hosts_option_overrides_the_environment_in_a_timed_run (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);
  g_autofree char *path = itest_scratch_path ("cli-bench-short");
  g_autofree char *out = NULL, *err = NULL;
  const char *const env[] = { "ZKR_HOSTS=127.0.0.1:1", NULL };
  const char *const argv[] = { bench_path (), "-i", "raw", "-H", itest_hosts (), "-q",
                               "--path", path, "--seconds=0.2", "--warmup=0", "--hold-us=100",
                               NULL };
  g_autoptr (Proc) proc = proc_spawn (argv, env);
  g_autoptr (JsonParser) parser = json_parser_new ();

  CU_ASSERT_PTR_NOT_NULL_FATAL (session);
  CU_ASSERT_PTR_NOT_NULL_FATAL (proc);
  CU_ASSERT_EQUAL (proc_finish (proc, CLI_WAIT_MS, &out, &err), 0);
  CU_ASSERT_STRING_EQUAL (err != NULL ? err : "?", "");
  CU_ASSERT_TRUE_FATAL (json_parser_load_from_data (parser, out != NULL ? out : "", -1, NULL));
  CU_ASSERT_STRING_EQUAL (json_object_get_string_member (json_node_get_object (
                            json_parser_get_root (parser)), "impl"), "raw");
  itest_assert_path_clean (session, path);
  zkr_session_unref (session);
}

static void
test_cli_bench__bad_arguments_print_usage_and_exit_64 (void)
{
  const char *const cases[][3] = {
    { "--impl=nope", NULL },
    { "--clients=0", NULL },
    { "--cycles=0", NULL },
    { "--seconds=-1", NULL },
    { "--path=relative", NULL },
    { "--bogus", NULL },
    { "--clients", "many" },
    { "extra", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[3] = { cases[i][0], cases[i][1], NULL };

      CU_ASSERT_EQUAL (bench_run_v (args, &out, &err), 64);
      CU_ASSERT_TRUE (g_str_has_prefix (err != NULL ? err : "", "zkr-bench: "));
      CU_ASSERT_TRUE (text_index (err, "\nUsage: zkr-bench [OPTION…]\n") > 0);
      CU_ASSERT_STRING_EQUAL (out != NULL ? out : "?", "");
    }
}

/* The options of `zkr bench`, all listed by --help (and -h). */
static void
test_cli_bench__help_lists_every_option (void)
{
  const char *options[] = { "-i, --impl=IMPL", "--path=P", "--clients=K", "--cycles=M",
                            "--hold-us=U", "--warmup=W", "--seconds=S", "-H, --hosts=HOSTS",
                            "-q, --quiet", "-h, --help", "ZKR_HOSTS", "atomic-long-promoted" };
  const char *flags[] = { "--help", "-h" };

  for (gsize f = 0; f < G_N_ELEMENTS (flags); f++)
    {
      g_autofree char *out = NULL, *err = NULL;

      CU_ASSERT_EQUAL (bench_run (&out, &err, flags[f]), 0);
      for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
        {
          CU_ASSERT_TRUE (text_index (out, options[i]) > 0);
          if (text_index (out, options[i]) <= 0)
            fprintf (stderr, "%s: no %s\n", flags[f], options[i]);
        }
      CU_ASSERT_STRING_EQUAL (err != NULL ? err : "?", "");
    }
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_cli_bench__each_impl_prints_one_json_line_and_leaves_nothing),
  ZKR_TEST_CASE (test_cli_bench__hosts_option_overrides_the_environment_in_a_timed_run),
  ZKR_TEST_CASE (test_cli_bench__bad_arguments_print_usage_and_exit_64),
  ZKR_TEST_CASE (test_cli_bench__help_lists_every_option),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "cli-bench", NULL, NULL, tests);
}
