/* zkr: placeholder for `zkr counter`, being written (issue 23). */
#include <stdio.h>

#include "zkr-cli.h"

int
zkr_cmd_counter (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "zkr counter: not written yet\n");
  return ZKR_EXIT_USAGE;
}
