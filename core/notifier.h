/* zkr internal: ordered event delivery to listeners, each in the
 * GMainContext that was thread-default when it was added. The one listener
 * registry of the library: session state listeners, lock loss listeners,
 * the caches' listeners (recipes/caches/cache-hub.c) and the shared count's
 * (recipes/counters/shared-count.c); one set of guarantees (each event once per
 * listener, in order, never on a ZooKeeper thread, removal from any thread
 * and from inside the listener stops delivery: no call starts after the
 * removal returns). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _ZkrNotifier ZkrNotifier;

/* Calls the listener's real callback @func for one event: a code
 * (zkr__notifier_new) or a boxed event (borrowed; zkr__notifier_new_boxed). */
typedef void (*ZkrNotifyMarshal) (GCallback func, gpointer source, int event, gpointer user_data);
typedef void (*ZkrNotifyBoxedMarshal) (GCallback func, gpointer source, gpointer event,
                                       gpointer user_data);

/* @source_ref (@source) returns what every callback is handed, kept alive
 * until @source_unref while deliveries are queued; it returns NULL when
 * the source is already being finalized (see zkr__ref_try()): then the
 * event is not delivered, so a listener never sees a dying object. It may
 * take the owner's lock: never call a notifier under it. An owner whose
 * memory can go while a notifier is still emitting must not be its source
 * (docs/design.md, "Ownership and unref"): the queue engine's entries emit
 * nothing themselves; their owners relay through the loss hook, which
 * stops when the entry is freed. */
ZkrNotifier *zkr__notifier_new (gpointer source,
                                gpointer (*source_ref) (gpointer),
                                void (*source_unref) (gpointer),
                                ZkrNotifyMarshal marshal);
/* The same for events that carry data: each emitted event is shared by its
 * deliveries and freed with @event_free after the last (or when a removal
 * drops it undelivered). */
ZkrNotifier *zkr__notifier_new_boxed (gpointer source,
                                      gpointer (*source_ref) (gpointer),
                                      void (*source_unref) (gpointer),
                                      ZkrNotifyBoxedMarshal marshal,
                                      GDestroyNotify event_free);
/* Deliveries assert zkr__context_assert_user (@what) before the callback:
 * for listeners that must never run in the session's worker. Before the
 * first add. */
void zkr__notifier_set_user_only (ZkrNotifier *notifier, const char *what);
/* Removes every listener (their destroy notifies run in their contexts). */
void zkr__notifier_free (ZkrNotifier *notifier);

/* Any thread. Returns an id > 0. */
guint zkr__notifier_add (ZkrNotifier *notifier, GCallback func, gpointer user_data,
                         GDestroyNotify destroy);
/* Any thread, also from inside the listener: no call of it starts after
 * this returns; its destroy notify runs in its context after the call
 * under way, if any. An unknown id is ignored. */
void zkr__notifier_remove (ZkrNotifier *notifier, guint id);
/* zkr__notifier_remove() of every listener. */
void zkr__notifier_remove_all (ZkrNotifier *notifier);
/* No delivery starts after this returns, of an event queued or emitted
 * later; the listeners stay registered (destroy notifies at their removal
 * or at zkr__notifier_free()). Any thread. */
void zkr__notifier_close (ZkrNotifier *notifier);

/* Any thread; queues @event for every listener. */
void zkr__notifier_emit (ZkrNotifier *notifier, int event);
/* Any thread; queues @event (transfer full) for every listener of a boxed
 * notifier. */
void zkr__notifier_emit_boxed (ZkrNotifier *notifier, gpointer event);

G_END_DECLS
