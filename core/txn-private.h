/* zkr internal: what the lock-specific fences (recipes/locks/txn-fence.c) need
 * from the transaction builder (core/txn.c). */
#pragma once

#include <zkr/txn.h>

G_BEGIN_DECLS

/* Keeps ZKR_ERROR_LOCK_LOST "fenced by @what, which is not held" for the
 * commit (unless an earlier bad input is kept already). */
void zkr__txn_fence_not_held (ZkrTxn *txn, const char *what);

G_END_DECLS
