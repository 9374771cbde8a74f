/* placeholder */
#include "zkr-test.h"
static const ZkrTestCase tests[] = { { NULL, NULL } };
int main (int argc, char **argv) { return zkr_test_main (argc, argv, "bad-input", NULL, NULL, tests); }
