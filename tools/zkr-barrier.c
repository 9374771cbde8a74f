/* zkr: placeholder for `zkr barrier`, being written (issue 23). */
#include <stdio.h>

#include "zkr-cli.h"

int
zkr_cmd_barrier (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "zkr barrier: not written yet\n");
  return ZKR_EXIT_USAGE;
}
