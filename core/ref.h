/* zkr internal: reference counts that may be taken and dropped while
 * their object is being finalized elsewhere (docs/design.md §6). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Takes a reference on @ref unless it already dropped to zero (the object
 * is being finalized). Any thread. Returns TRUE when it took one. */
gboolean zkr__ref_try (gatomicrefcount *ref);
/* Drops a reference on @ref unless it is the last one. Any thread.
 * Returns FALSE, having changed nothing, when it is the last: the caller
 * then drops it where finalizing is allowed. */
gboolean zkr__ref_drop_unless_last (gatomicrefcount *ref);

G_END_DECLS
