/* zkr: group membership (Curator's GroupMember): a member of the group at
 * PATH is the EPHEMERAL node PATH/<id> holding its payload, kept present
 * by a ZkrPersistentNode (include/zkr/persistent-node.h: made again after
 * an expiry or a delete from outside, deleted by close); the group's
 * members are read from a ZkrTreeCache of PATH (depth 1), so listing them
 * never waits for the server (docs/design.md, "Group membership").
 *
 * The layout is Curator's: a Curator GroupMember and a zkr one on the same
 * PATH see each other. Missing parents of PATH are created as CONTAINER
 * nodes.
 *
 * Threads: every function may be called from any thread. Listeners run in
 * the GMainContext that was thread-default when they were added.
 *
 * Ownership: reference-counted; the object keeps a reference on its
 * session. The last unref (any thread, also from inside a listener) closes
 * the member without waiting: its node is deleted in the background. */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/session.h>

G_BEGIN_DECLS

typedef struct _ZkrGroupMember ZkrGroupMember;

/* The longest member id, in bytes (a node name; ZooKeeper has no limit
 * of its own below its request size, zkr keeps ids short). */
#define ZKR_GROUP_MEMBER_ID_MAX_BYTES 1024

/**
 * ZkrGroupEvent:
 * @ZKR_GROUP_MEMBER_JOINED: a member's node appeared (also for each member
 *   found by the first read)
 * @ZKR_GROUP_MEMBER_CHANGED: a member's payload changed
 * @ZKR_GROUP_MEMBER_LEFT: a member's node went
 */
typedef enum {
  ZKR_GROUP_MEMBER_JOINED,
  ZKR_GROUP_MEMBER_CHANGED,
  ZKR_GROUP_MEMBER_LEFT,
} ZkrGroupEvent;

/**
 * ZkrGroupMemberFunc:
 * @member: the member the listener was added to, valid for the call
 * @event: what happened
 * @id: the member concerned (borrowed)
 * @payload: its payload (for LEFT, the last one seen); borrowed:
 *   g_bytes_ref() it to keep it
 * Runs in the listener's context (see above), once per change the cache
 * saw, in order. It may remove itself, close or unref the member.
 */
typedef void (*ZkrGroupMemberFunc) (ZkrGroupMember *member, ZkrGroupEvent event, const char *id,
                                    GBytes *payload, gpointer user_data);

/**
 * zkr_group_member_new:
 * @session: the session (a reference is taken)
 * @path: the group's path (not "/")
 * @id: this member's id: a node name (not empty, no '/', not "." or "..",
 *   no control character, at most ZKR_GROUP_MEMBER_ID_MAX_BYTES)
 * @payload: (nullable): this member's payload, copied (NULL with @len 0)
 * Nothing is sent before zkr_group_member_start().
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming a bad @path, @id or payload.
 * A NULL @session, @path or @id is a programming error.
 * Returns: (transfer full) (nullable): zkr_group_member_unref() it.
 */
ZKR_API ZkrGroupMember *zkr_group_member_new (ZkrSession *session, const char *path,
                                              const char *id, const void *payload, gsize len,
                                              GError **error);
ZKR_API ZkrGroupMember *zkr_group_member_ref (ZkrGroupMember *member);
ZKR_API void zkr_group_member_unref (ZkrGroupMember *member);

/**
 * zkr_group_member_start:
 * Joins (in the background) and starts reading the group. Add listeners
 * first to hear every JOINED of the first read.
 * Errors: those of zkr_persistent_node_start() and zkr_tree_cache_start().
 */
ZKR_API gboolean zkr_group_member_start (ZkrGroupMember *member, GError **error);

/**
 * zkr_group_member_wait_joined:
 * @timeout_ms: > 0 a deadline; 0 only looks; < 0 none
 * Waits until this member's node was made and the group's first read is
 * done, by the deadline whatever the session does.
 * Errors: those of zkr_persistent_node_wait_for_initial_create() and
 * zkr_tree_cache_wait_initialized().
 */
ZKR_API gboolean zkr_group_member_wait_joined (ZkrGroupMember *member, int timeout_ms,
                                               GCancellable *cancellable, GError **error);

/**
 * zkr_group_member_set_payload:
 * Sets this member's payload (in the background, as
 * zkr_persistent_node_set_data()).
 * Errors: ZKR_ERROR_INVALID_ARGUMENT (bad payload, or closed).
 */
ZKR_API gboolean zkr_group_member_set_payload (ZkrGroupMember *member, const void *payload,
                                               gsize len, GError **error);

/**
 * zkr_group_member_dup_members:
 * The group's members as the cache has them now, this member always
 * included (with its own payload, even before its node is seen: Curator's
 * rule). Never waits for the server.
 * Returns: (transfer full): id (char *) -> payload (GBytes *), both owned
 * by the table; g_hash_table_unref() it. Empty once closed (this member
 * is then no longer included either).
 */
ZKR_API GHashTable *zkr_group_member_dup_members (ZkrGroupMember *member);

/* This member's id and the group's path. (transfer none) */
ZKR_API const char *zkr_group_member_get_id (ZkrGroupMember *member);
ZKR_API const char *zkr_group_member_get_path (ZkrGroupMember *member);

/**
 * zkr_group_member_add_listener:
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the member goes
 * Returns: an id for zkr_group_member_remove_listener() (> 0), 0 once
 * closed.
 */
ZKR_API guint zkr_group_member_add_listener (ZkrGroupMember *member, ZkrGroupMemberFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
ZKR_API void zkr_group_member_remove_listener (ZkrGroupMember *member, guint id);

/**
 * zkr_group_member_close:
 * @timeout_ms: as zkr_persistent_node_close()
 * Leaves the group (deletes this member's node, guaranteed) and stops the
 * cache: no listener call starts after this returns. Idempotent.
 * Errors: those of zkr_persistent_node_close().
 */
ZKR_API gboolean zkr_group_member_close (ZkrGroupMember *member, int timeout_ms,
                                         GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrGroupMember, zkr_group_member_unref)

G_END_DECLS
