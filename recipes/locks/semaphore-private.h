/* zkr internal: the semaphore's pure parts, for its unit test: the lease
 * predicate (Curator's rule), the participant listing's view, and the
 * shared count's encoding. */
#pragma once

#include "queue-lock.h"

G_BEGIN_DECLS

/* Curator's InterProcessSemaphoreV2 lease nodes: "lease-" under
 * PATH/leases. Predicate data: a gint * holding the max leases (read
 * atomically). */
extern const ZkrQueueRecipe zkr__semaphore_lease_recipe;
/* The same nodes, for listing: the first max in sequence order hold. */
extern const ZkrQueueRecipe zkr__semaphore_listing_recipe;

/* Curator's literal rule: through when the number of children of leases/
 * (all of them, lease nodes or not) is <= max; otherwise wait for any
 * change of the children (*@wait_on stays NULL). @data: gint *max. */
gboolean zkr__semaphore_predicate_lease (GPtrArray *sorted, guint ours,
                                         const char **wait_on, gpointer data);
/* The listing's view: index < max holds. @data: gint *max. */
gboolean zkr__semaphore_predicate_listing (GPtrArray *sorted, guint ours,
                                           const char **wait_on, gpointer data);

G_END_DECLS
