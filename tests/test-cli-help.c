/* Unit tests of the zkr tool's help (tools/zkr-help.c and the pages
 * generated from docs/man/): `zkr help COMMAND` and `zkr COMMAND --help`
 * print the page's text, every command has a page, every option a command
 * accepts is documented and every documented one accepted as documented,
 * and each manual page renders without a warning and says what the help
 * says. Runs the built zkr (ZKR_CLI) and groff (ZKR_GROFF) on the built
 * pages (ZKR_MAN_DIR); no server. */

#include <string.h>

#include "zkr-help.h"
#include "zkr-test.h"

/* The exit status of @argv, what it printed on stdout and stderr. */
static int
run_v (const char *const *argv, char **out, char **err)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = g_get_environ ();
  int wait_status = 0;

  /* Nothing here may reach a server: help never connects, and a bad
   * case fails on a closed port rather than on someone's ensemble. */
  env = g_environ_setenv (env, "ZKR_HOSTS", "127.0.0.1:1", TRUE);
  env = g_environ_unsetenv (env, "ZKR_AUTH");
  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                     &wait_status, &error))
    {
      fprintf (stderr, "cannot run %s: %s\n", argv[0], error->message);
      CU_FAIL ("spawn");
      return -1;
    }
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return WEXITSTATUS (wait_status);
}
#define run(out, err, ...) run_v ((const char *const[]) { __VA_ARGS__, NULL }, out, err)

static const char *
env_path (const char *name)
{
  const char *path = g_getenv (name);

  if (path == NULL || *path == '\0')
    {
      fprintf (stderr, "%s is not set (meson test sets it)\n", name);
      CU_FAIL_FATAL ("environment");
    }
  return path;
}

static const char *
zkr (void)
{
  return env_path ("ZKR_CLI");
}

/* Asserts that @argv exits 0 with @text on stdout and nothing on stderr. */
static void
assert_prints (const char *const *argv, const char *text)
{
  g_autofree char *out = NULL, *err = NULL;

  CU_ASSERT_EQUAL (run_v (argv, &out, &err), 0);
  CU_ASSERT_STRING_EQUAL (out != NULL ? out : "", text);
  CU_ASSERT_STRING_EQUAL (err != NULL ? err : "", "");
  if (err != NULL && *err != '\0')
    fprintf (stderr, "%s %s: %s", argv[1], argv[2] != NULL ? argv[2] : "", err);
}

static void
test_cli_help__help_prints_each_commands_page (void)
{
  guint pages = 0;

  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++, pages++)
    {
      assert_prints ((const char *const[]) { zkr (), "help", page->command, NULL }, page->text);
      assert_prints ((const char *const[]) { zkr (), page->command, "--help", NULL }, page->text);
      assert_prints ((const char *const[]) { zkr (), page->command, "-h", NULL }, page->text);
      /* --help wins over what else is on the line, as GOption's did. */
      assert_prints ((const char *const[]) { zkr (), page->command, "/a", "--help", NULL },
                     page->text);
    }
  CU_ASSERT_EQUAL (pages, 15);
}

static void
test_cli_help__help_prints_zkrs_own_page (void)
{
  assert_prints ((const char *const[]) { zkr (), "help", NULL }, zkr_help_main.text);
  assert_prints ((const char *const[]) { zkr (), "--help", NULL }, zkr_help_main.text);
  assert_prints ((const char *const[]) { zkr (), "-h", NULL }, zkr_help_main.text);
  CU_ASSERT_PTR_NOT_NULL (strstr (zkr_help_main.text, "\nCOMMANDS\n"));
}

/* The dispatch table's commands, as zkr lists them after a usage error
 * ("Commands: get, set, ..."), each have a page, and there is no page
 * without a command. */
static void
test_cli_help__every_command_has_a_page (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *commands = NULL;
  const char *line;
  guint pages = 0;

  CU_ASSERT_EQUAL (run (&out, &err, zkr ()), 64);
  line = err != NULL ? strstr (err, "\nCommands: ") : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL (line);
  line += strlen ("\nCommands: ");
  commands = g_strndup (line, strcspn (line, "\n"));
  names = g_strsplit (commands, ", ", -1);
  for (guint i = 0; names[i] != NULL; i++)
    {
      CU_ASSERT_PTR_NOT_NULL (zkr_help_lookup (names[i]));
      if (zkr_help_lookup (names[i]) == NULL)
        fprintf (stderr, "no page for zkr %s\n", names[i]);
    }
  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    pages++;
  CU_ASSERT_EQUAL (g_strv_length (names), pages);
  CU_ASSERT_EQUAL (run (NULL, NULL, zkr (), "help", "no-such-command"), 64);
}

/* With --help set first, an option is parsed and then the help printed:
 * a flag exits 0, an option that wants an argument finds none ("Missing
 * argument"), an unknown one is refused ("Unknown option"). */
static void
assert_accepted_as_documented (const ZkrHelpPage *page, const char *option, gboolean has_arg)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *missing = g_strdup_printf ("Missing argument for %s", option);
  int status = run (&out, &err, zkr (), page->command, "--help", option);

  if (has_arg)
    {
      CU_ASSERT_EQUAL (status, 64);
      CU_ASSERT_PTR_NOT_NULL (err != NULL ? strstr (err, missing) : NULL);
    }
  else
    CU_ASSERT_EQUAL (status, 0);
  if (has_arg ? status != 64 : status != 0)
    fprintf (stderr, "zkr %s %s: exit %d: %s", page->command, option, status, err);
}

static void
test_cli_help__documented_options_are_accepted_as_documented (void)
{
  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    for (const ZkrHelpOption *option = page->options; option->long_name != NULL; option++)
      {
        g_autofree char *long_name = g_strconcat ("--", option->long_name, NULL);
        char short_name[3] = { '-', option->short_name, '\0' };

        assert_accepted_as_documented (page, long_name, option->arg != NULL);
        if (option->short_name != 0)
          assert_accepted_as_documented (page, short_name, option->arg != NULL);
      }
}

/* The check --help runs (every command's --help above exited 0 with
 * nothing on stderr) finds each kind of difference. */
static void
test_cli_help__check_finds_each_difference (void)
{
  const ZkrHelpPage *page = zkr_help_lookup ("lock");
  g_autoptr (GString) listing = g_string_new ("Usage:\n  zkr lock [OPTION…]\n\nOptions:\n");
  g_autofree char *agreeing = NULL, *extra = NULL, *missing = NULL, *short_name = NULL;

  CU_ASSERT_PTR_NOT_NULL_FATAL (page);
  for (const ZkrHelpOption *option = page->options; option->long_name != NULL; option++)
    if (option->short_name != 0)
      g_string_append_printf (listing, "  -%c, --%s%s%s   text\n", option->short_name,
                              option->long_name, option->arg != NULL ? "=" : "",
                              option->arg != NULL ? option->arg : "");
    else
      g_string_append_printf (listing, "  --%s\n", option->long_name);
  agreeing = zkr_help_check_options (page, listing->str);
  CU_ASSERT_PTR_NULL (agreeing);

  extra = zkr_help_check_options (page, (g_string_append (listing, "  --extra=X   more\n"))->str);
  CU_ASSERT_STRING_EQUAL (extra != NULL ? extra : "", "--extra is accepted but not documented");

  g_string_assign (listing, "  -t, --timeout\n  --shared\n");
  missing = zkr_help_check_options (page, listing->str);
  CU_ASSERT_PTR_NOT_NULL (missing != NULL ? strstr (missing, "--revocable is documented but "
                                                                "not accepted") : NULL);
  CU_ASSERT_PTR_NOT_NULL (missing != NULL ? strstr (missing, "--shared has the short name -s in "
                                                                "its page but none in the parser")
                                          : NULL);
  CU_ASSERT_PTR_NULL (missing != NULL ? strstr (missing, "--timeout") : NULL);

  g_string_assign (listing, "  -T, --timeout\n");
  short_name = zkr_help_check_options (page, listing->str);
  CU_ASSERT_PTR_NOT_NULL (short_name != NULL ? strstr (short_name, "--timeout has the short name "
                                                                   "-t in its page but -T in the "
                                                                   "parser") : NULL);
}

static char *
man_page_path (const ZkrHelpPage *page)
{
  g_autofree char *name = page->command != NULL ? g_strdup_printf ("zkr-%s.1", page->command)
                                                : g_strdup ("zkr.1");

  return g_build_filename (env_path ("ZKR_MAN_DIR"), name, NULL);
}

static void
assert_renders_without_warnings (const ZkrHelpPage *page)
{
  g_autofree char *path = man_page_path (page);
  g_autofree char *out = NULL, *err = NULL;

  CU_ASSERT_TRUE (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  CU_ASSERT_EQUAL (run (&out, &err, env_path ("ZKR_GROFF"), "-man", "-ww", "-z", path), 0);
  CU_ASSERT_STRING_EQUAL (err != NULL ? err : "", "");
  if (err != NULL && *err != '\0')
    fprintf (stderr, "%s: %s", path, err);
}

static void
test_cli_help__each_man_page_renders_without_warnings (void)
{
  assert_renders_without_warnings (&zkr_help_main);
  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    assert_renders_without_warnings (page);
}

/* @text without its white space, groff's typographic characters made the
 * plain ones the help prints. (transfer full) */
static char *
squeeze (const char *text)
{
  static const char *const typographic[][2] = {
    { "\342\200\220", "-" },  /* U+2010 hyphen */
    { "\342\210\222", "-" },  /* U+2212 minus */
    { "\342\200\230", "`" },  /* U+2018 left single quote */
    { "\342\200\231", "'" },  /* U+2019 right single quote */
  };
  GString *squeezed = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      gboolean replaced = FALSE;

      for (gsize i = 0; i < G_N_ELEMENTS (typographic) && !replaced; i++)
        if (g_str_has_prefix (p, typographic[i][0]))
          {
            g_string_append (squeezed, typographic[i][1]);
            p += strlen (typographic[i][0]) - 1;
            replaced = TRUE;
          }
      if (!replaced && !g_ascii_isspace (*p))
        g_string_append_c (squeezed, *p);
    }
  return g_string_free (squeezed, FALSE);
}

/* The page as groff renders it for a terminal, without its running
 * header and footer lines (the first and the last that are not empty). */
static char *
man_page_body (const ZkrHelpPage *page)
{
  g_autofree char *path = man_page_path (page);
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  GString *body;
  int first = 0, last;

  CU_ASSERT_EQUAL (run (&out, NULL, env_path ("ZKR_GROFF"), "-man", "-Tutf8", "-P-c", "-P-b",
                        "-P-u", "-P-o", path), 0);
  lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  last = (int) g_strv_length (lines) - 1;
  while (first <= last && *g_strstrip (lines[first]) == '\0')
    first++;
  while (last >= first && *g_strstrip (lines[last]) == '\0')
    last--;
  body = g_string_new (NULL);
  for (int i = first + 1; i < last; i++)
    g_string_append_printf (body, "%s\n", lines[i]);
  return g_string_free (body, FALSE);
}

static void
assert_man_page_says_what_the_help_says (const ZkrHelpPage *page)
{
  g_autofree char *body = man_page_body (page);
  g_autofree char *man = squeeze (body);
  g_autofree char *help = squeeze (page->text);
  gsize same = 0;

  CU_ASSERT_STRING_EQUAL (man, help);
  while (man[same] != '\0' && man[same] == help[same])
    same++;
  if (man[same] != help[same])
    fprintf (stderr, "zkr%s%s.1 and its help differ after \"%.40s\": \"%.40s\" vs \"%.40s\"\n",
             page->command != NULL ? "-" : "", page->command != NULL ? page->command : "",
             man + (same > 40 ? same - 40 : 0), man + same, help + same);
}

/* Nothing but the white space differs: the two came from one source. */
static void
test_cli_help__man_page_says_what_the_help_says (void)
{
  assert_man_page_says_what_the_help_says (&zkr_help_main);
  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    assert_man_page_says_what_the_help_says (page);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_cli_help__help_prints_each_commands_page),
    ZKR_TEST_CASE (test_cli_help__help_prints_zkrs_own_page),
    ZKR_TEST_CASE (test_cli_help__every_command_has_a_page),
    ZKR_TEST_CASE (test_cli_help__documented_options_are_accepted_as_documented),
    ZKR_TEST_CASE (test_cli_help__check_finds_each_difference),
    ZKR_TEST_CASE (test_cli_help__each_man_page_renders_without_warnings),
    ZKR_TEST_CASE (test_cli_help__man_page_says_what_the_help_says),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "cli-help", NULL, NULL, tests);
}
