/* Unit tests of core/request-size.c: the size of a request on the wire,
 * counted as ZooKeeper's jute framing writes it (each figure below added
 * up by hand from the records: length prefix 4, header 8, a string 4 + its
 * bytes, an int 4, a boolean 1, a multi header 9). */

#include "request-size.h"
#include "zkr-test.h"

/* ZOO_PERM_ALL (0x1f): libzookeeper declares it a variable, not a constant. */
static struct ACL open_entry = { 0x1f, { (char *) "world", (char *) "anyone" } };
static struct ACL_vector open_acl = { 1, &open_entry };

static gsize
one (ZkrRequestKind kind, gsize path_len, gssize data_len, gsize chroot_len)
{
  ZkrRequestPart part = { .kind = kind, .path_len = path_len, .data_len = data_len,
                          .acl = &open_acl };

  return zkr__request_size (&part, 1, FALSE, chroot_len);
}

static void
test_request_size__set_counts_path_data_and_version (void)
{
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_SET, 2, 3, 0), 4 + 8 + (4 + 2) + (4 + 3) + 4);
  /* No data: the length -1 alone. */
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_SET, 2, -1, 0), 4 + 8 + (4 + 2) + 4 + 4);
}

static void
test_request_size__create_counts_acl_flags_and_ttl (void)
{
  gsize acl = 4 + (4 + (4 + 5) + (4 + 6));
  struct ACL two[2] = { open_entry, { 1, { (char *) "ip", (char *) "10.0.0.1" } } };
  struct ACL_vector two_acl = { 2, two };
  ZkrRequestPart part = { .kind = ZKR_REQUEST_CREATE, .path_len = 2, .data_len = 3,
                          .acl = &two_acl };

  CU_ASSERT_EQUAL (one (ZKR_REQUEST_CREATE, 2, 3, 0), 4 + 8 + (4 + 2) + (4 + 3) + acl + 4);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_CREATE_TTL, 2, 3, 0),
                   4 + 8 + (4 + 2) + (4 + 3) + acl + 4 + 8);
  CU_ASSERT_EQUAL (zkr__request_size (&part, 1, FALSE, 0),
                   4 + 8 + (4 + 2) + (4 + 3) + acl + (4 + (4 + 2) + (4 + 8)) + 4);
}

static void
test_request_size__reads_deletes_and_syncs_count_their_path (void)
{
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_READ, 2, -1, 0), 4 + 8 + (4 + 2) + 1);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_DELETE, 2, -1, 0), 4 + 8 + (4 + 2) + 4);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_CHECK, 2, -1, 0), 4 + 8 + (4 + 2) + 4);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_SYNC, 2, -1, 0), 4 + 8 + (4 + 2));
}

/* libzookeeper puts the chroot before every path; "/" alone becomes it. */
static void
test_request_size__chroot_is_counted_as_libzookeeper_prepends_it (void)
{
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_READ, 2, -1, 3), 4 + 8 + (4 + 3 + 2) + 1);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_READ, 1, -1, 3), 4 + 8 + (4 + 3) + 1);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_READ, 1, -1, 0), 4 + 8 + (4 + 1) + 1);
}

static void
test_request_size__multi_counts_a_header_per_operation_and_an_end (void)
{
  ZkrRequestPart parts[] = {
    { .kind = ZKR_REQUEST_CHECK, .path_len = 2, .data_len = -1 },
    { .kind = ZKR_REQUEST_SET, .path_len = 2, .data_len = 3 },
    { .kind = ZKR_REQUEST_CREATE, .path_len = 2, .data_len = 3, .acl = &open_acl },
  };
  gsize acl = 4 + (4 + (4 + 5) + (4 + 6));

  CU_ASSERT_EQUAL (zkr__request_size (parts, 3, TRUE, 0),
                   4 + 8 + (9 + (4 + 2) + 4) + (9 + (4 + 2) + (4 + 3) + 4) +
                     (9 + (4 + 2) + (4 + 3) + acl + 4) + 9);
  CU_ASSERT_EQUAL (zkr__request_size (parts, 0, TRUE, 0), 4 + 8 + 9);
}

/* A length no request could have saturates instead of wrapping around
 * (and so stays over every limit). */
static void
test_request_size__saturates_instead_of_wrapping (void)
{
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_SET, G_MAXSIZE - 3, G_MAXSSIZE, 0), G_MAXSIZE);
  CU_ASSERT_EQUAL (one (ZKR_REQUEST_READ, G_MAXSIZE, -1, 5), G_MAXSIZE);
}

int
main (int argc, char **argv)
{
  static const ZkrTestCase tests[] = {
    ZKR_TEST_CASE (test_request_size__set_counts_path_data_and_version),
    ZKR_TEST_CASE (test_request_size__create_counts_acl_flags_and_ttl),
    ZKR_TEST_CASE (test_request_size__reads_deletes_and_syncs_count_their_path),
    ZKR_TEST_CASE (test_request_size__chroot_is_counted_as_libzookeeper_prepends_it),
    ZKR_TEST_CASE (test_request_size__multi_counts_a_header_per_operation_and_an_end),
    ZKR_TEST_CASE (test_request_size__saturates_instead_of_wrapping),
    { NULL, NULL },
  };

  return zkr_test_main (argc, argv, "request-size", NULL, NULL, tests);
}
