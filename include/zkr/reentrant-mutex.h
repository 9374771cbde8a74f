/* zkr: a reentrant distributed mutex, Curator's InterProcessMutex in full:
 * the "lock-" layout (so it excludes Curator clients and zkr_mutex on the
 * same path) and a hold count per thread kept in the client: a thread that
 * holds it may acquire it again without a request, and must release it as
 * many times. Different threads of one process sharing the object queue
 * for it separately, each with its own node, as two processes would.
 *
 * Threads: every function may be called from any thread; acquire, release,
 * is_held and the token are about the calling thread's hold. */
#pragma once

#include <gio/gio.h>
#include <zkr/lock.h>
#include <zkr/revocation.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrReentrantMutex ZkrReentrantMutex;

/* Errors: ZKR_ERROR_INVALID_ARGUMENT for an invalid path. (transfer full) */
ZKR_API ZkrReentrantMutex *zkr_reentrant_mutex_new (ZkrSession *session, const char *path,
                                                    GError **error);
ZKR_API ZkrReentrantMutex *zkr_reentrant_mutex_ref (ZkrReentrantMutex *mutex);
/* The last unref gives up every thread's hold (in the background). */
ZKR_API void zkr_reentrant_mutex_unref (ZkrReentrantMutex *mutex);

/* As zkr_mutex_acquire(); a re-acquire by the holding thread only counts. */
ZKR_API gboolean zkr_reentrant_mutex_acquire (ZkrReentrantMutex *mutex, int timeout_ms,
                                              GCancellable *cancellable, GError **error);
/* The calling thread is the one that will hold. */
ZKR_API void zkr_reentrant_mutex_acquire_async (ZkrReentrantMutex *mutex, int timeout_ms,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
ZKR_API gboolean zkr_reentrant_mutex_acquire_finish (ZkrReentrantMutex *mutex,
                                                     GAsyncResult *result, GError **error);
/* Decrements the calling thread's count; at zero deletes the node (see
 * zkr_mutex_release() for a release while disconnected).
 * Errors: ZKR_ERROR_NOT_HELD when this thread does not hold it. */
ZKR_API gboolean zkr_reentrant_mutex_release (ZkrReentrantMutex *mutex, GError **error);

ZKR_API gboolean zkr_reentrant_mutex_is_held (ZkrReentrantMutex *mutex);
/* How many times the calling thread holds it (0 when not). */
ZKR_API guint zkr_reentrant_mutex_get_hold_count (ZkrReentrantMutex *mutex);
ZKR_API gint64 zkr_reentrant_mutex_get_fencing_token (ZkrReentrantMutex *mutex);
ZKR_API gboolean zkr_reentrant_mutex_verify (ZkrReentrantMutex *mutex, GError **error);

/* Loss events of any thread's hold. */
ZKR_API guint zkr_reentrant_mutex_add_loss_listener (ZkrReentrantMutex *mutex,
                                                     ZkrLockLossFunc func,
                                                     gpointer user_data,
                                                     GDestroyNotify destroy);
ZKR_API void zkr_reentrant_mutex_remove_loss_listener (ZkrReentrantMutex *mutex,
                                                       guint listener_id);

/* Makes the mutex revocable (zkr_mutex_make_revocable(), Curator's
 * makeRevocable()): each request written into the node of whichever
 * thread holds calls @func once, in the GMainContext that is
 * thread-default now; @func NULL: not revocable again. The listener
 * decides; the release must come from the holding thread, as many times
 * as it acquired. Any thread. See <zkr/revocation.h>. */
ZKR_API void zkr_reentrant_mutex_make_revocable (ZkrReentrantMutex *mutex,
                                                 ZkrRevocationFunc func, gpointer user_data,
                                                 GDestroyNotify destroy);

ZKR_API GPtrArray *zkr_reentrant_mutex_list_participants (ZkrReentrantMutex *mutex,
                                                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrReentrantMutex, zkr_reentrant_mutex_unref)

G_END_DECLS
