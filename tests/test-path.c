/* Unit tests of core/path.c: ZooKeeper's path rules, the error messages
 * that name the bad value, and the path arithmetic. */

#include <stdio.h>
#include <string.h>

#include <zkr/error.h>

#include "path.h"
#include "zkr-test.h"

/* TRUE when @path (@len bytes, -1: NUL-terminated) is accepted. Prints the
 * error otherwise. */
static gboolean
path_is_valid (const char *path, gssize len)
{
  g_autoptr (GError) error = NULL;
  gboolean valid;

  valid = len < 0 ? zkr__path_validate (path, &error)
                  : zkr__path_validate_len (path, (gsize) len, &error);
  if (valid != (error == NULL))
    {
      fprintf (stderr, "return value and error disagree\n");
      return FALSE;
    }
  if (!valid)
    fprintf (stderr, "rejected: %s\n", error->message);
  return valid;
}

/* TRUE when @path is rejected with INVALID_ARGUMENT and exactly
 * @expected as message. Prints what it got otherwise. */
static gboolean
path_fails_with (const char *path, gssize len, const char *expected)
{
  g_autoptr (GError) error = NULL;
  gboolean valid;

  valid = len < 0 ? zkr__path_validate (path, &error)
                  : zkr__path_validate_len (path, (gsize) len, &error);
  if (valid || error == NULL)
    {
      fprintf (stderr, "accepted, expected: %s\n", expected);
      return FALSE;
    }
  if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT) ||
      strcmp (error->message, expected) != 0)
    {
      fprintf (stderr, "got      %s (code %d)\nexpected %s\n",
               error->message, error->code, expected);
      return FALSE;
    }
  return TRUE;
}

static gboolean
namespace_fails_with (const char *name_space, const char *expected)
{
  g_autoptr (GError) error = NULL;

  if (zkr__path_validate_namespace (name_space, &error) || error == NULL)
    {
      fprintf (stderr, "accepted, expected: %s\n", expected);
      return FALSE;
    }
  if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT) ||
      strcmp (error->message, expected) != 0)
    {
      fprintf (stderr, "got      %s\nexpected %s\n", error->message, expected);
      return FALSE;
    }
  return TRUE;
}

static void
test_path__accepts_root (void)
{
  CU_ASSERT (path_is_valid ("/", -1));
  CU_ASSERT (path_is_valid ("/", 1));
}

static void
test_path__accepts_plain_paths (void)
{
  static const char *const good[] = {
    "/a", "/a/b", "/zookeeper", "/zookeeper/quota", "/zkr/locks/db-1",
    "/a/_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-lock-0000000001",
    "/a.b", "/..a", "/a..", "/...", "/.a/b.", "/a b", "/-_~!@#$%^&*()+=",
    "/a\\b", "/0000000001",
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (good); i++)
    CU_ASSERT (path_is_valid (good[i], -1));
}

static void
test_path__accepts_unicode (void)
{
  CU_ASSERT (path_is_valid ("/\xc3\xa4/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", -1));
  /* The edges of the refused ranges: U+00A0, U+D7FF, U+F900, U+FFEF. */
  CU_ASSERT (path_is_valid ("/\xc2\xa0", -1));
  CU_ASSERT (path_is_valid ("/\xed\x9f\xbf", -1));
  CU_ASSERT (path_is_valid ("/\xef\xa4\x80", -1));
  CU_ASSERT (path_is_valid ("/\xef\xbf\xaf", -1));
}

static void
test_path__accepts_max_length (void)
{
  g_autofree char *path = g_strnfill (ZKR_PATH_MAX, 'a');

  path[0] = '/';
  CU_ASSERT_EQUAL (strlen (path), ZKR_PATH_MAX);
  CU_ASSERT (path_is_valid (path, -1));
}

static void
test_path__rejects_empty_path (void)
{
  CU_ASSERT (path_fails_with ("", -1, "invalid path \"\": empty path"));
  CU_ASSERT (path_fails_with ("/a", 0, "invalid path \"\": empty path"));
}

static void
test_path__rejects_relative_path (void)
{
  CU_ASSERT (path_fails_with ("a", -1,
                              "invalid path \"a\": not absolute (must start with '/')"));
  CU_ASSERT (path_fails_with ("a/b", -1,
                              "invalid path \"a/b\": not absolute (must start with '/')"));
  CU_ASSERT (path_fails_with (" /a", -1,
                              "invalid path \" /a\": not absolute (must start with '/')"));
}

static void
test_path__rejects_trailing_slash (void)
{
  CU_ASSERT (path_fails_with ("/a/", -1, "invalid path \"/a/\": trailing '/' at offset 2"));
  CU_ASSERT (path_fails_with ("//", -1, "invalid path \"//\": trailing '/' at offset 1"));
  CU_ASSERT (path_fails_with ("/a/b//", -1,
                              "invalid path \"/a/b//\": trailing '/' at offset 5"));
}

static void
test_path__rejects_empty_segment (void)
{
  CU_ASSERT (path_fails_with ("/a//b", -1, "invalid path \"/a//b\": empty segment at offset 2"));
  CU_ASSERT (path_fails_with ("//a", -1, "invalid path \"//a\": empty segment at offset 0"));
  CU_ASSERT (path_fails_with ("/a/b///c", -1,
                              "invalid path \"/a/b///c\": empty segment at offset 4"));
}

static void
test_path__rejects_dot_segments (void)
{
  CU_ASSERT (path_fails_with ("/.", -1, "invalid path \"/.\": \".\" segment at offset 0"));
  CU_ASSERT (path_fails_with ("/..", -1, "invalid path \"/..\": \"..\" segment at offset 0"));
  CU_ASSERT (path_fails_with ("/a/./b", -1,
                              "invalid path \"/a/./b\": \".\" segment at offset 2"));
  CU_ASSERT (path_fails_with ("/a/../b", -1,
                              "invalid path \"/a/../b\": \"..\" segment at offset 2"));
  CU_ASSERT (path_fails_with ("/a/..", -1, "invalid path \"/a/..\": \"..\" segment at offset 2"));
  CU_ASSERT (path_fails_with ("/a/.", -1, "invalid path \"/a/.\": \".\" segment at offset 2"));
}

static void
test_path__rejects_control_characters (void)
{
  CU_ASSERT (path_fails_with ("/a\x01", -1,
                              "invalid path \"/a\\001\": forbidden character U+0001 at offset 2"));
  CU_ASSERT (path_fails_with ("/a\tb", -1,
                              "invalid path \"/a\\tb\": forbidden character U+0009 at offset 2"));
  CU_ASSERT (path_fails_with ("/a\nb", -1,
                              "invalid path \"/a\\nb\": forbidden character U+000A at offset 2"));
  CU_ASSERT (path_fails_with ("/\x1f", -1,
                              "invalid path \"/\\037\": forbidden character U+001F at offset 1"));
  CU_ASSERT (path_fails_with ("/x/\x7f", -1,
                              "invalid path \"/x/\\177\": forbidden character U+007F at offset 3"));
  /* C1 controls as code points (two bytes each in UTF-8). */
  CU_ASSERT (path_fails_with ("/\xc2\x80", -1,
                              "invalid path \"/\\302\\200\": forbidden character U+0080 at offset 1"));
  CU_ASSERT (path_fails_with ("/ab\xc2\x9f", -1,
                              "invalid path \"/ab\\302\\237\": forbidden character U+009F at offset 3"));
}

static void
test_path__rejects_code_points_zookeeper_refuses (void)
{
  /* U+D800-U+F8FF (surrogates cannot be encoded; the private use area can),
   * U+FFF0-U+FFFF, and anything above U+FFFF (a surrogate pair in Java). */
  CU_ASSERT (path_fails_with ("/\xee\x80\x80", -1,
                              "invalid path \"/\\356\\200\\200\": forbidden character U+E000 at offset 1"));
  CU_ASSERT (path_fails_with ("/\xef\xa3\xbf", -1,
                              "invalid path \"/\\357\\243\\277\": forbidden character U+F8FF at offset 1"));
  CU_ASSERT (path_fails_with ("/\xef\xbf\xb0", -1,
                              "invalid path \"/\\357\\277\\260\": forbidden character U+FFF0 at offset 1"));
  CU_ASSERT (path_fails_with ("/\xef\xbf\xbf", -1,
                              "invalid path \"/\\357\\277\\277\": forbidden character U+FFFF at offset 1"));
  CU_ASSERT (path_fails_with ("/a/\xf0\x9f\x98\x80", -1,
                              "invalid path \"/a/\\360\\237\\230\\200\": forbidden character U+1F600 at offset 3"));
}

static void
test_path__rejects_invalid_utf8 (void)
{
  CU_ASSERT (path_fails_with ("/\xff", -1, "invalid path \"/\\377\": invalid UTF-8 at offset 1"));
  /* Overlong '/', a cut sequence, an encoded surrogate. */
  CU_ASSERT (path_fails_with ("/a\xc0\xaf", -1,
                              "invalid path \"/a\\300\\257\": invalid UTF-8 at offset 2"));
  CU_ASSERT (path_fails_with ("/a\xe6\x97", -1,
                              "invalid path \"/a\\346\\227\": invalid UTF-8 at offset 2"));
  CU_ASSERT (path_fails_with ("/\xed\xa0\x80", -1,
                              "invalid path \"/\\355\\240\\200\": invalid UTF-8 at offset 1"));
}

static void
test_path__rejects_too_long_path_with_short_message (void)
{
  g_autofree char *path = g_strnfill (10 * 1024, 'a');
  g_autofree char *expected = NULL;
  g_autoptr (GError) error = NULL;

  path[0] = '/';
  CU_ASSERT_FALSE (zkr__path_validate (path, &error));
  CU_ASSERT_TRUE (g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT));
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  /* The value is cut after 100 bytes and marked with "...". */
  expected = g_strdup_printf ("invalid path \"%.100s...\": longer than 4096 bytes", path);
  CU_ASSERT_STRING_EQUAL (error->message, expected);

  /* One byte over the limit. */
  g_clear_error (&error);
  path[ZKR_PATH_MAX + 1] = '\0';
  CU_ASSERT_FALSE (zkr__path_validate (path, &error));
  CU_ASSERT_STRING_EQUAL (error != NULL ? error->message : "", expected);
}

static void
test_path__validate_len_rejects_embedded_nul (void)
{
  CU_ASSERT (path_fails_with ("/a\0b", 4, "invalid path \"/a\\000b\": embedded NUL at offset 2"));
  CU_ASSERT (path_fails_with ("/\0", 2, "invalid path \"/\\000\": embedded NUL at offset 1"));
  /* The length, not the NUL, bounds the buffer. */
  CU_ASSERT (path_is_valid ("/a/b", 4));
  CU_ASSERT (path_is_valid ("/a/bcd", 4));
  CU_ASSERT (path_fails_with ("/a/bcd", 3, "invalid path \"/a/\": trailing '/' at offset 2"));
}

static void
test_path__quote_value_escapes_and_cuts (void)
{
  g_autofree char *long_value = g_strnfill (150, 'x');
  g_autofree char *expected = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *utf8 = NULL;

  quoted = zkr__path_quote_value ("a\"b\\c\n\x01", -1);
  CU_ASSERT_STRING_EQUAL (quoted, "\"a\\\"b\\\\c\\n\\001\"");
  g_free (quoted);
  quoted = zkr__path_quote_value ("a\0b", 3);
  CU_ASSERT_STRING_EQUAL (quoted, "\"a\\000b\"");
  g_free (quoted);
  quoted = zkr__path_quote_value (NULL, -1);
  CU_ASSERT_STRING_EQUAL (quoted, "NULL");
  g_free (quoted);

  quoted = zkr__path_quote_value (long_value, -1);
  expected = g_strdup_printf ("\"%.100s...\"", long_value);
  CU_ASSERT_STRING_EQUAL (quoted, expected);
  g_free (quoted);

  /* 99 ASCII bytes then a 2-byte character across the cut: the character
   * is left out whole, not split. */
  utf8 = g_strdup_printf ("%.99s\xc3\xa4yyyy", long_value);
  quoted = zkr__path_quote_value (utf8, -1);
  g_free (expected);
  expected = g_strdup_printf ("\"%.99s...\"", long_value);
  CU_ASSERT_STRING_EQUAL (quoted, expected);
}

static void
test_path__null_path_is_a_programming_error (void)
{
  g_autoptr (GError) error = NULL;
  gboolean valid = TRUE;

  ZKR_TEST_EXPECT_ONE_CRITICAL (valid = zkr__path_validate (NULL, &error));
  CU_ASSERT_FALSE (valid);
  CU_ASSERT_PTR_NULL (error);
  valid = TRUE;
  ZKR_TEST_EXPECT_ONE_CRITICAL (valid = zkr__path_validate_len (NULL, 3, &error));
  CU_ASSERT_FALSE (valid);
  CU_ASSERT_PTR_NULL (error);
}

static void
test_path__join_adds_one_separator (void)
{
  g_autofree char *at_root = zkr__path_join ("/", "a");
  g_autofree char *nested = zkr__path_join ("/x", "a");
  g_autofree char *deep = zkr__path_join ("/x/y", "_c_id-lock-0000000001");

  CU_ASSERT_STRING_EQUAL (at_root, "/a");
  CU_ASSERT_STRING_EQUAL (nested, "/x/a");
  CU_ASSERT_STRING_EQUAL (deep, "/x/y/_c_id-lock-0000000001");
}

static void
test_path__join_refuses_bad_arguments (void)
{
  char *joined = (char *) "unset";

  ZKR_TEST_EXPECT_ONE_CRITICAL (joined = zkr__path_join ("/x", "a/b"));
  CU_ASSERT_PTR_NULL (joined);
  ZKR_TEST_EXPECT_ONE_CRITICAL (joined = zkr__path_join ("/x", ""));
  CU_ASSERT_PTR_NULL (joined);
  ZKR_TEST_EXPECT_ONE_CRITICAL (joined = zkr__path_join ("x", "a"));
  CU_ASSERT_PTR_NULL (joined);
  ZKR_TEST_EXPECT_ONE_CRITICAL (joined = zkr__path_join (NULL, "a"));
  CU_ASSERT_PTR_NULL (joined);
}

static void
test_path__parent_walks_up_to_root (void)
{
  g_autofree char *two = zkr__path_parent ("/a/b");
  g_autofree char *three = zkr__path_parent ("/a/b/c");
  g_autofree char *one = zkr__path_parent ("/a");
  g_autofree char *root = zkr__path_parent ("/");

  CU_ASSERT_STRING_EQUAL (two, "/a");
  CU_ASSERT_STRING_EQUAL (three, "/a/b");
  CU_ASSERT_STRING_EQUAL (one, "/");
  CU_ASSERT_PTR_NULL (root);
}

static void
test_path__basename_points_into_path (void)
{
  const char *path = "/a/bc";
  const char *root = "/";

  CU_ASSERT_PTR_EQUAL (zkr__path_basename (path), path + 3);
  CU_ASSERT_STRING_EQUAL (zkr__path_basename (path), "bc");
  CU_ASSERT_STRING_EQUAL (zkr__path_basename ("/a"), "a");
  CU_ASSERT_PTR_EQUAL (zkr__path_basename (root), root + 1);
  CU_ASSERT_STRING_EQUAL (zkr__path_basename (root), "");
}

static void
test_path__prefix_namespace (void)
{
  static const struct {
    const char *name_space;
    const char *path;
    const char *expected;
  } cases[] = {
    { NULL, "/a", "/a" },
    { "", "/a/b", "/a/b" },
    { NULL, "/", "/" },
    { "ns", "/a", "/ns/a" },
    { "ns", "/a/b", "/ns/a/b" },
    { "ns", "/", "/ns" },
    { "a/b", "/c", "/a/b/c" },
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *full = zkr__path_prefix_namespace (cases[i].name_space, cases[i].path);

      CU_ASSERT_STRING_EQUAL (full, cases[i].expected);
      /* The length alone, as the request size check takes it. */
      CU_ASSERT_EQUAL (zkr__path_prefix_namespace_len (cases[i].name_space, cases[i].path),
                       strlen (cases[i].expected));
    }
}

static void
test_path__namespace_accepts_none_and_relative_names (void)
{
  static const char *const good[] = { "", "a", "a/b", "zkr-test", "app.1/locks" };
  gsize i;

  CU_ASSERT_TRUE (zkr__path_validate_namespace (NULL, NULL));
  for (i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;

      CU_ASSERT_TRUE (zkr__path_validate_namespace (good[i], &error));
      CU_ASSERT_PTR_NULL (error);
    }
}

static void
test_path__namespace_rejects_bad_names (void)
{
  g_autofree char *too_long = g_strnfill (ZKR_PATH_MAX, 'n');

  CU_ASSERT (namespace_fails_with ("/a", "invalid namespace \"/a\": must not start with '/'"));
  CU_ASSERT (namespace_fails_with ("a/", "invalid namespace \"a/\": trailing '/' at offset 1"));
  CU_ASSERT (namespace_fails_with ("a//b", "invalid namespace \"a//b\": empty segment at offset 1"));
  CU_ASSERT (namespace_fails_with (".", "invalid namespace \".\": \".\" segment at offset 0"));
  CU_ASSERT (namespace_fails_with ("a/..", "invalid namespace \"a/..\": \"..\" segment at offset 1"));
  CU_ASSERT (namespace_fails_with ("ab\x01", "invalid namespace \"ab\\001\": forbidden character U+0001 at offset 2"));
  CU_ASSERT (namespace_fails_with ("a\xff", "invalid namespace \"a\\377\": invalid UTF-8 at offset 1"));
  CU_ASSERT (g_str_has_suffix (too_long, "n"));
  {
    g_autoptr (GError) error = NULL;

    CU_ASSERT_FALSE (zkr__path_validate_namespace (too_long, &error));
    CU_ASSERT (error != NULL && g_str_has_suffix (error->message, "...\": longer than 4095 bytes"));
  }
  /* One byte shorter fits: "/" + 4095 bytes is ZKR_PATH_MAX. */
  too_long[ZKR_PATH_MAX - 1] = '\0';
  CU_ASSERT_TRUE (zkr__path_validate_namespace (too_long, NULL));
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_path__accepts_root),
    ZKR_TEST_CASE (test_path__accepts_plain_paths),
    ZKR_TEST_CASE (test_path__accepts_unicode),
    ZKR_TEST_CASE (test_path__accepts_max_length),
    ZKR_TEST_CASE (test_path__rejects_empty_path),
    ZKR_TEST_CASE (test_path__rejects_relative_path),
    ZKR_TEST_CASE (test_path__rejects_trailing_slash),
    ZKR_TEST_CASE (test_path__rejects_empty_segment),
    ZKR_TEST_CASE (test_path__rejects_dot_segments),
    ZKR_TEST_CASE (test_path__rejects_control_characters),
    ZKR_TEST_CASE (test_path__rejects_code_points_zookeeper_refuses),
    ZKR_TEST_CASE (test_path__rejects_invalid_utf8),
    ZKR_TEST_CASE (test_path__rejects_too_long_path_with_short_message),
    ZKR_TEST_CASE (test_path__validate_len_rejects_embedded_nul),
    ZKR_TEST_CASE (test_path__quote_value_escapes_and_cuts),
    ZKR_TEST_CASE (test_path__null_path_is_a_programming_error),
    ZKR_TEST_CASE (test_path__join_adds_one_separator),
    ZKR_TEST_CASE (test_path__join_refuses_bad_arguments),
    ZKR_TEST_CASE (test_path__parent_walks_up_to_root),
    ZKR_TEST_CASE (test_path__basename_points_into_path),
    ZKR_TEST_CASE (test_path__prefix_namespace),
    ZKR_TEST_CASE (test_path__namespace_accepts_none_and_relative_names),
    ZKR_TEST_CASE (test_path__namespace_rejects_bad_names),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "path", NULL, NULL, tests);
}
