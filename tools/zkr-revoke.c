/* zkr: placeholder for `zkr revoke`, being written (issue 23). */
#include <stdio.h>

#include "zkr-cli.h"

int
zkr_cmd_revoke (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "zkr revoke: not written yet\n");
  return ZKR_EXIT_USAGE;
}
