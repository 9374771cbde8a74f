/* zkr internal: what the node cache and the tree cache share. The engine
 * (cache-engine.c) mirrors a subtree on the session's worker; the hub
 * (cache-hub.c) delivers its events to the user's listeners and answers
 * wait_initialized; the object (cache-object.c) is the body both public
 * objects share; tree-cache.c and node-cache.c are the public objects. */
#pragma once

#include <gio/gio.h>
#include <zkr/tree-cache.h>

#include "notifier.h"

G_BEGIN_DECLS

/* Not a listener event: the session was closed, so a wait for the first
 * full read can never end well. */
#define ZKR_CACHE_EVENT_SESSION_CLOSED 100

/* ---- the engine ---------------------------------------------------- */

typedef struct _ZkrCacheEngine ZkrCacheEngine;

/* Runs on the worker (with the engine's hook lock held: it must only
 * queue work, never call user code). @event is borrowed. */
typedef void (*ZkrCacheHookFunc) (const ZkrTreeCacheEvent *event, gpointer user_data);

/* @path is valid and without the namespace; @max_depth >= -1. Nothing is
 * read before zkr__cache_engine_start(). Any thread. (transfer full) */
ZkrCacheEngine *zkr__cache_engine_new (ZkrSession *session, const char *path, int max_depth,
                                       ZkrCacheHookFunc hook, gpointer hook_data);
/* Posts the first full read to the worker. Any thread, once. */
void zkr__cache_engine_start (ZkrCacheEngine *engine);
/* Once this returns the hook is never called again; the engine stops on
 * the worker (watches and listeners removed) and goes with its last
 * reply. Drops the caller's reference. Any thread but the worker. */
void zkr__cache_engine_stop (ZkrCacheEngine *engine);
/* From memory, any thread: the data (transfer full) and stat of @path if
 * it is cached, else NULL. */
GBytes *zkr__cache_engine_get_data (ZkrCacheEngine *engine, const char *path, ZkrStat *stat);
/* From memory, any thread: the sorted names of @path's cached children,
 * NULL if @path is not cached. (transfer full) */
char **zkr__cache_engine_get_children (ZkrCacheEngine *engine, const char *path);
/* From memory, any thread: how many nodes are cached. */
guint zkr__cache_engine_count (ZkrCacheEngine *engine);

/* ---- the hub ------------------------------------------------------- */

typedef struct _ZkrCacheHub ZkrCacheHub;

/* Calls a listener's real callback @func with @event (a ZkrTreeCacheEvent,
 * borrowed). */
typedef ZkrNotifyBoxedMarshal ZkrCacheMarshal;

/* @source is what the listeners are handed; a delivery keeps it alive
 * with @source_ref (which returns NULL once the source is being
 * finalized: then nothing is delivered) and @source_unref. */
ZkrCacheHub *zkr__cache_hub_new (gpointer source, gpointer (*source_ref) (gpointer),
                                 void (*source_unref) (gpointer), ZkrCacheMarshal marshal);
/* Destroy notifies of the listeners left are posted to their contexts. */
void zkr__cache_hub_free (ZkrCacheHub *hub);
/* In the thread-default context of the caller. Any thread. */
guint zkr__cache_hub_add (ZkrCacheHub *hub, GCallback func, gpointer user_data,
                          GDestroyNotify destroy);
void zkr__cache_hub_remove (ZkrCacheHub *hub, guint id);
/* Queues @event for every listener (any thread; the engine's hook). */
void zkr__cache_hub_emit (ZkrCacheHub *hub, const ZkrTreeCacheEvent *event);
/* No delivery starts after this returns; waiters wake. Any thread. */
void zkr__cache_hub_close (ZkrCacheHub *hub);
/* The wait of zkr_tree_cache_wait_initialized(): @what names the cache in
 * messages. */
gboolean zkr__cache_hub_wait_initialized (ZkrCacheHub *hub, const char *what, int timeout_ms,
                                          GCancellable *cancellable, GError **error);

/* ---- the object ------------------------------------------------------ */

/* The body of a ZkrTreeCache or a ZkrNodeCache (their first member, so a
 * pointer to one is a pointer to the other): the engine, closed under
 * @lock, and the hub its events go to. */
typedef struct {
  gatomicrefcount ref;     /* the users' (one for all) and each queued delivery's */
  gint user_refs;          /* atomic: the public references; the last one
                            * closes the cache, so a delivery still queued
                            * then is dropped, never handed to a listener */
  ZkrSession *session;     /* (owned) */
  char *path;              /* without the namespace */
  const char *kind;        /* "tree cache", "node cache": for messages */
  GMutex lock;
  ZkrCacheEngine *engine;  /* (owned) (nullable) protected by lock: NULL once closed */
  gboolean started;        /* protected by lock */
  ZkrCacheHub *hub;        /* (owned) */
} ZkrCacheObject;

/* @object is the first member of a public struct made with g_new0(),
 * freed here with its last reference; @path is valid, @max_depth >= -1. */
void zkr__cache_object_init (ZkrCacheObject *object, const char *kind, ZkrSession *session,
                             const char *path, int max_depth, ZkrCacheMarshal marshal);
/* A public reference, and dropping one: the last closes the cache at once
 * (deliveries still queued are dropped) and frees it once none is left. */
void zkr__cache_object_ref (ZkrCacheObject *object);
void zkr__cache_object_unref (ZkrCacheObject *object);
gboolean zkr__cache_object_start (ZkrCacheObject *object, GError **error);
gboolean zkr__cache_object_wait_initialized (ZkrCacheObject *object, int timeout_ms,
                                             GCancellable *cancellable, GError **error);
void zkr__cache_object_close (ZkrCacheObject *object);
GBytes *zkr__cache_object_get_data (ZkrCacheObject *object, const char *path, ZkrStat *stat);
char **zkr__cache_object_get_children (ZkrCacheObject *object, const char *path);
guint zkr__cache_object_count (ZkrCacheObject *object);

/* ---- one node's direct children, for the recipes on a tree cache ---- */

/* Calls a children listener's real callback @func: the direct child @name
 * of the parent was added, updated or removed (@type); @data is its data
 * (borrowed; for a removal the last cached). @owner is held for the call. */
typedef void (*ZkrCacheChildMarshal) (GCallback func, gpointer owner, ZkrTreeCacheEventType type,
                                      const char *name, GBytes *data, gpointer user_data);

/* A listener on @cache that hears only the direct children of @parent
 * (without the namespace), on behalf of @owner, the recipe object whose
 * reference count is @owner_ref: an event that comes while the owner is
 * being finalized is dropped, and @owner_unref drops what a call took.
 * @destroy (nullable) gets @user_data when the listener goes. In the
 * caller's thread-default context, as zkr_tree_cache_add_listener(), whose
 * id it returns (zkr_tree_cache_remove_listener() removes it). */
guint zkr__tree_cache_add_child_listener (ZkrTreeCache *cache, const char *parent,
                                          gpointer owner, gatomicrefcount *owner_ref,
                                          GDestroyNotify owner_unref, ZkrCacheChildMarshal marshal,
                                          GCallback func, gpointer user_data,
                                          GDestroyNotify destroy);

G_END_DECLS
