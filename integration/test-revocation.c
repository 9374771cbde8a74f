/* zkr integration: placeholder for the revocation suite, being written: checks
 * only that the ensemble answers. */
#include "itest.h"
#include "zkr-test.h"

static void
test_revocation__ensemble_answers (void)
{
  ZkrSession *session = itest_connect (itest_hosts (), 10000);

  CU_ASSERT_PTR_NOT_NULL (session);
  if (session != NULL)
    zkr_session_unref (session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_revocation__ensemble_answers),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "revocation", NULL, NULL, tests);
}
