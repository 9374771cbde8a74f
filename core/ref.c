/* zkr: reference counts taken only while their object is not being
 * finalized, and dropped only when not the last (docs/design.md §6). */

#include "ref.h"

/* Adds @delta to @ref unless it is at @floor or below; TRUE when added. */
static gboolean
ref_add_above (gatomicrefcount *ref, gint floor, gint delta)
{
  for (;;)
    {
      gint old = g_atomic_int_get (ref);

      if (old <= floor)
        return FALSE;
      if (g_atomic_int_compare_and_exchange (ref, old, old + delta))
        return TRUE;
    }
}

gboolean
zkr__ref_try (gatomicrefcount *ref)
{
  return ref_add_above (ref, 0, 1);
}

gboolean
zkr__ref_drop_unless_last (gatomicrefcount *ref)
{
  return ref_add_above (ref, 1, -1);
}
