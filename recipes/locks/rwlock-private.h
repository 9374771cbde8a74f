/* zkr internal: the read-write lock's pure parts, for its unit test: the
 * recipes of both sides (Curator's names and sort), the read predicate,
 * the participant view and the downgrade node's suffix. */
#pragma once

#include "queue-lock.h"

G_BEGIN_DECLS

/* "__WRIT__" nodes; Curator's write predicate: through at index 0 of ALL
 * children, else wait on index - 1. No predicate data. */
extern const ZkrQueueRecipe zkr__rwlock_write_recipe;
/* "__READ__" nodes with zkr__rwlock_predicate_read(). */
extern const ZkrQueueRecipe zkr__rwlock_read_recipe;
/* Both kinds, for listing: zkr__rwlock_predicate_listing(). */
extern const ZkrQueueRecipe zkr__rwlock_listing_recipe;

/* Sorts @names the way every Curator rwlock client does, as far as @ours
 * (zkr__nodename_sort_rwlock_up_to; all of it with @ours NULL); @lock_name is
 * ignored. */
gint zkr__rwlock_sort (GPtrArray *names, const char *lock_name, const char *ours);

/* Curator's read predicate. @data: (nullable) the same thread's write
 * ZkrQueueLock: while it is held, through (a downgrade). Otherwise through
 * when no write node sorts before ours, not counting a write node with our
 * own sort key (the write node a downgrade read node was named after); else
 * *@wait_on is the nearest such write node before ours. */
gboolean zkr__rwlock_predicate_read (GPtrArray *sorted, guint ours,
                                     const char **wait_on, gpointer data);

/* Who holds, for the participant listing (no thread to ask): a read node
 * as zkr__rwlock_predicate_read() without data; a write node when every node
 * before it is a read node with its own sort key (its downgrade twin), so
 * at index 0 in particular; a node of neither kind never. */
gboolean zkr__rwlock_predicate_listing (GPtrArray *sorted, guint ours,
                                        const char **wait_on, gpointer data);

/* The suffix of a downgrade read node made while holding the write node
 * @write_node (a name or a path): its sort key, the 10-character sequence,
 * as Curator's getSortingSequence() takes it. (transfer full) */
char *zkr__rwlock_downgrade_suffix (const char *write_node);

G_END_DECLS
