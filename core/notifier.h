/* zkr internal: ordered event delivery to listeners, each in the
 * GMainContext that was thread-default when it was added. Used for session
 * state listeners and lock loss listeners: one mechanism, one set of
 * guarantees (exactly once per event, in order, never on a ZooKeeper
 * thread, removal stops delivery). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _ZkrNotifier ZkrNotifier;

/* Calls the listener's real callback @func for one event. */
typedef void (*ZkrNotifyMarshal) (GCallback func, gpointer source, int event, gpointer user_data);

/* @source is handed to every callback; it is kept alive with @source_ref
 * and @source_unref while deliveries are queued. @source_ref returns NULL
 * when the source is already being finalized (see zkr__ref_try()): then the
 * event is not delivered, so a listener never sees a dying object. An
 * owner whose memory can go while a notifier is still emitting must not
 * be its source (docs/design.md, "Ownership and unref"): the queue engine's
 * entries emit nothing themselves; their owners relay through the loss
 * hook, which stops when the entry is freed. */
ZkrNotifier *zkr__notifier_new (gpointer source,
                                gpointer (*source_ref) (gpointer),
                                void (*source_unref) (gpointer),
                                ZkrNotifyMarshal marshal);
/* Removes every listener (their destroy notifies run in their contexts). */
void zkr__notifier_free (ZkrNotifier *notifier);

/* Any thread. Returns an id > 0. */
guint zkr__notifier_add (ZkrNotifier *notifier, GCallback func, gpointer user_data,
                         GDestroyNotify destroy);
void zkr__notifier_remove (ZkrNotifier *notifier, guint id);

/* Any thread; queues @event for every listener. */
void zkr__notifier_emit (ZkrNotifier *notifier, int event);

G_END_DECLS
