/* Unit tests of core/hosts.c: connect strings, the good ones split into
 * hosts and chroot, the bad ones refused with a message naming the entry. */

#include <stdio.h>
#include <string.h>

#include <zkr/error.h>

#include "hosts.h"
#include "zkr-test.h"

/* TRUE when @connect_string parses into @hosts, @chroot and @n_hosts. */
static gboolean
parses_to (const char *connect_string, const char *hosts, const char *chroot, guint n_hosts)
{
  g_autoptr (GError) error = NULL;
  ZkrHosts parsed;
  gboolean same;

  if (!zkr__hosts_parse (connect_string, &parsed, &error))
    {
      fprintf (stderr, "rejected: %s\n", error->message);
      return FALSE;
    }
  same = g_strcmp0 (parsed.hosts, hosts) == 0 &&
         g_strcmp0 (parsed.chroot, chroot) == 0 &&
         parsed.n_hosts == n_hosts;
  if (!same)
    fprintf (stderr, "%s: got hosts %s chroot %s n %u\n", connect_string,
             parsed.hosts, parsed.chroot != NULL ? parsed.chroot : "(null)", parsed.n_hosts);
  zkr__hosts_clear (&parsed);
  return same;
}

/* TRUE when @connect_string is refused with exactly @expected, and the
 * output is left empty. */
static gboolean
fails_with (const char *connect_string, const char *expected)
{
  g_autoptr (GError) error = NULL;
  ZkrHosts parsed = { (char *) "stale", (char *) "/stale", 7 };

  if (zkr__hosts_parse (connect_string, &parsed, &error))
    {
      fprintf (stderr, "accepted, expected: %s\n", expected);
      zkr__hosts_clear (&parsed);
      return FALSE;
    }
  if (parsed.hosts != NULL || parsed.chroot != NULL || parsed.n_hosts != 0)
    {
      fprintf (stderr, "output not cleared on failure\n");
      return FALSE;
    }
  if (!g_error_matches (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT) ||
      strcmp (error->message, expected) != 0)
    {
      fprintf (stderr, "got      %s\nexpected %s\n", error != NULL ? error->message : "(none)", expected);
      return FALSE;
    }
  return TRUE;
}

static void
test_hosts__parses_single_host (void)
{
  CU_ASSERT (parses_to ("127.0.0.1:2181", "127.0.0.1:2181", NULL, 1));
  CU_ASSERT (parses_to ("localhost:65535", "localhost:65535", NULL, 1));
  CU_ASSERT (parses_to ("zk-1.example.COM:1", "zk-1.example.COM:1", NULL, 1));
  CU_ASSERT (parses_to ("a:02181", "a:02181", NULL, 1));
}

static void
test_hosts__parses_host_lists (void)
{
  CU_ASSERT (parses_to ("a:1,b:2,c:3", "a:1,b:2,c:3", NULL, 3));
  CU_ASSERT (parses_to ("10.0.0.1:2181,10.0.0.2:2181", "10.0.0.1:2181,10.0.0.2:2181", NULL, 2));
}

static void
test_hosts__parses_bracketed_ipv6 (void)
{
  CU_ASSERT (parses_to ("[::1]:2181", "[::1]:2181", NULL, 1));
  CU_ASSERT (parses_to ("[2001:db8::1]:2181,10.0.0.1:2182/x",
                        "[2001:db8::1]:2181,10.0.0.1:2182", "/x", 2));
}

static void
test_hosts__splits_chroot (void)
{
  CU_ASSERT (parses_to ("zk1:2181,zk2:2182/app/locks", "zk1:2181,zk2:2182", "/app/locks", 2));
  CU_ASSERT (parses_to ("a:1/x", "a:1", "/x", 1));
  /* "/" alone is the root: no chroot. */
  CU_ASSERT (parses_to ("a:1/", "a:1", NULL, 1));
  /* The chroot follows the path rules, where a space is legal. */
  CU_ASSERT (parses_to ("a:1/zkr test", "a:1", "/zkr test", 1));
  CU_ASSERT (parses_to ("a:1/\xc3\xa4", "a:1", "/\xc3\xa4", 1));
}

static void
test_hosts__rejects_empty_string (void)
{
  CU_ASSERT (fails_with ("", "invalid connect string \"\": empty"));
}

static void
test_hosts__rejects_empty_entries (void)
{
  CU_ASSERT (fails_with ("a:1,,b:2", "invalid connect string \"a:1,,b:2\": empty host entry 2"));
  CU_ASSERT (fails_with (",a:1", "invalid connect string \",a:1\": empty host entry 1"));
  CU_ASSERT (fails_with ("a:1,", "invalid connect string \"a:1,\": empty host entry 2"));
  CU_ASSERT (fails_with ("/chroot", "invalid connect string \"/chroot\": empty host entry 1"));
  CU_ASSERT (fails_with (",", "invalid connect string \",\": empty host entry 1"));
}

static void
test_hosts__rejects_missing_or_bad_port (void)
{
  CU_ASSERT (fails_with ("a", "invalid connect string \"a\": host entry 1 \"a\": missing port"));
  CU_ASSERT (fails_with ("b:2,a:", "invalid connect string \"b:2,a:\": host entry 2 \"a:\": missing port"));
  CU_ASSERT (fails_with ("a:0", "invalid connect string \"a:0\": host entry 1 \"a:0\": port out of range 1..65535"));
  CU_ASSERT (fails_with ("a:65536",
                         "invalid connect string \"a:65536\": host entry 1 \"a:65536\": port out of range 1..65535"));
  CU_ASSERT (fails_with ("a:99999999999999999999",
                         "invalid connect string \"a:99999999999999999999\": host entry 1 \"a:99999999999999999999\": port out of range 1..65535"));
  CU_ASSERT (fails_with ("a:-1", "invalid connect string \"a:-1\": host entry 1 \"a:-1\": port is not a decimal number"));
  CU_ASSERT (fails_with ("a:+1", "invalid connect string \"a:+1\": host entry 1 \"a:+1\": port is not a decimal number"));
  CU_ASSERT (fails_with ("a:0x10", "invalid connect string \"a:0x10\": host entry 1 \"a:0x10\": port is not a decimal number"));
}

static void
test_hosts__rejects_whitespace (void)
{
  CU_ASSERT (fails_with ("a:1, b:2", "invalid connect string \"a:1, b:2\": whitespace at offset 4"));
  CU_ASSERT (fails_with (" a:1", "invalid connect string \" a:1\": whitespace at offset 0"));
  CU_ASSERT (fails_with ("a:1\t", "invalid connect string \"a:1\\t\": whitespace at offset 3"));
  CU_ASSERT (fails_with ("a:1\x01", "invalid connect string \"a:1\\001\": control character 0x01 at offset 3"));
}

static void
test_hosts__rejects_bad_host_names (void)
{
  CU_ASSERT (fails_with ("a_b:1",
                         "invalid connect string \"a_b:1\": host entry 1 \"a_b:1\": invalid character 0x5f in host name"));
  CU_ASSERT (fails_with ("h\xc3\xa4:1",
                         "invalid connect string \"h\\303\\244:1\": host entry 1 \"h\\303\\244:1\": invalid character 0xc3 in host name"));
  CU_ASSERT (fails_with (":2181", "invalid connect string \":2181\": host entry 1 \":2181\": empty host name"));
  CU_ASSERT (fails_with ("a..b:1", "invalid connect string \"a..b:1\": host entry 1 \"a..b:1\": empty label in host name"));
  CU_ASSERT (fails_with (".a:1", "invalid connect string \".a:1\": host entry 1 \".a:1\": empty label in host name"));
}

static void
test_hosts__rejects_bad_addresses (void)
{
  CU_ASSERT (fails_with ("10.0.0.300:1",
                         "invalid connect string \"10.0.0.300:1\": host entry 1 \"10.0.0.300:1\": invalid IPv4 address"));
  CU_ASSERT (fails_with ("a:1,1.2.3:1",
                         "invalid connect string \"a:1,1.2.3:1\": host entry 2 \"1.2.3:1\": invalid IPv4 address"));
  CU_ASSERT (fails_with ("::1:2181",
                         "invalid connect string \"::1:2181\": host entry 1 \"::1:2181\": an IPv6 address must be written in brackets"));
  CU_ASSERT (fails_with ("[::1:2181",
                         "invalid connect string \"[::1:2181\": host entry 1 \"[::1:2181\": '[' without ']'"));
  CU_ASSERT (fails_with ("[zz::1]:1",
                         "invalid connect string \"[zz::1]:1\": host entry 1 \"[zz::1]:1\": invalid IPv6 address"));
  CU_ASSERT (fails_with ("[]:1", "invalid connect string \"[]:1\": host entry 1 \"[]:1\": invalid IPv6 address"));
  CU_ASSERT (fails_with ("[::1]2181",
                         "invalid connect string \"[::1]2181\": host entry 1 \"[::1]2181\": expected ':' after ']'"));
  CU_ASSERT (fails_with ("[::1]", "invalid connect string \"[::1]\": host entry 1 \"[::1]\": missing port"));
}

static void
test_hosts__rejects_bad_chroot (void)
{
  CU_ASSERT (fails_with ("a:1/a/",
                         "invalid connect string \"a:1/a/\": chroot: invalid path \"/a/\": trailing '/' at offset 2"));
  CU_ASSERT (fails_with ("a:1//x",
                         "invalid connect string \"a:1//x\": chroot: invalid path \"//x\": empty segment at offset 0"));
  CU_ASSERT (fails_with ("a:1/x/../y",
                         "invalid connect string \"a:1/x/../y\": chroot: invalid path \"/x/../y\": \"..\" segment at offset 2"));
  CU_ASSERT (fails_with ("a:1/x\x01",
                         "invalid connect string \"a:1/x\\001\": chroot: invalid path \"/x\\001\": forbidden character U+0001 at offset 2"));
}

static void
test_hosts__null_arguments_are_programming_errors (void)
{
  ZkrHosts parsed = { NULL, NULL, 0 };
  gboolean ok = TRUE;

  ZKR_TEST_EXPECT_ONE_CRITICAL (ok = zkr__hosts_parse (NULL, &parsed, NULL));
  CU_ASSERT_FALSE (ok);
  ok = TRUE;
  ZKR_TEST_EXPECT_ONE_CRITICAL (ok = zkr__hosts_parse ("a:1", NULL, NULL));
  CU_ASSERT_FALSE (ok);
  ZKR_TEST_EXPECT_ONE_CRITICAL (zkr__hosts_clear (NULL));
}

static void
test_hosts__clear_is_idempotent (void)
{
  ZkrHosts parsed;

  CU_ASSERT_TRUE_FATAL (zkr__hosts_parse ("a:1/x", &parsed, NULL));
  zkr__hosts_clear (&parsed);
  CU_ASSERT_PTR_NULL (parsed.hosts);
  CU_ASSERT_PTR_NULL (parsed.chroot);
  CU_ASSERT_EQUAL (parsed.n_hosts, 0);
  zkr__hosts_clear (&parsed);
  CU_ASSERT_PTR_NULL (parsed.hosts);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_hosts__parses_single_host),
    ZKR_TEST_CASE (test_hosts__parses_host_lists),
    ZKR_TEST_CASE (test_hosts__parses_bracketed_ipv6),
    ZKR_TEST_CASE (test_hosts__splits_chroot),
    ZKR_TEST_CASE (test_hosts__rejects_empty_string),
    ZKR_TEST_CASE (test_hosts__rejects_empty_entries),
    ZKR_TEST_CASE (test_hosts__rejects_missing_or_bad_port),
    ZKR_TEST_CASE (test_hosts__rejects_whitespace),
    ZKR_TEST_CASE (test_hosts__rejects_bad_host_names),
    ZKR_TEST_CASE (test_hosts__rejects_bad_addresses),
    ZKR_TEST_CASE (test_hosts__rejects_bad_chroot),
    ZKR_TEST_CASE (test_hosts__null_arguments_are_programming_errors),
    ZKR_TEST_CASE (test_hosts__clear_is_idempotent),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "hosts", NULL, NULL, tests);
}
