/**
 * SECTION:group-member
 * @title: ZkrGroupMember
 * @short_description: group membership, Curator's GroupMember
 * @include: zkr/zkr.h
 *
 * Group membership (Curator's GroupMember): a member of the group at
 * PATH is the EPHEMERAL node `PATH/<id>` holding its payload, kept present
 * by a ZkrPersistentNode (zkr/persistent-node.h: made again after
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
 * the member without waiting: its node is deleted in the background.
 */
#pragma once

#include <gio/gio.h>
#include <zkr/macros.h>
#include <zkr/session.h>

G_BEGIN_DECLS

/**
 * ZkrGroupMember:
 *
 * A member of a group: opaque and reference-counted (see "Ownership"
 * above).
 *
 * Since: 0.1
 */
typedef struct _ZkrGroupMember ZkrGroupMember;

/**
 * ZKR_GROUP_MEMBER_ID_MAX_BYTES:
 *
 * The longest member id, in bytes (a node name; ZooKeeper has no limit of
 * its own below its request size, zkr keeps ids short).
 *
 * Since: 0.1
 */
#define ZKR_GROUP_MEMBER_ID_MAX_BYTES 1024

/**
 * ZkrGroupEvent:
 * @ZKR_GROUP_MEMBER_JOINED: a member's node appeared (also for each member
 *   found by the first read)
 * @ZKR_GROUP_MEMBER_CHANGED: a member's payload changed
 * @ZKR_GROUP_MEMBER_LEFT: a member's node went
 *
 * What a group listener is told.
 *
 * Since: 0.1
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
 * @user_data: as given to zkr_group_member_add_listener()
 *
 * A group listener, called once per change the cache saw, in order. It
 * may remove itself, close or unref the member.
 *
 * Thread: runs in the GMainContext that was thread-default when the
 * listener was added.
 *
 * Since: 0.1
 */
typedef void (*ZkrGroupMemberFunc) (ZkrGroupMember *member, ZkrGroupEvent event, const char *id,
                                    GBytes *payload, gpointer user_data);

/**
 * zkr_group_member_new:
 * @session: the session (a reference is taken)
 * @path: the group's path (not "/")
 * @id: this member's id: a node name (not empty, no '/', not "." or "..",
 *   no control character, at most %ZKR_GROUP_MEMBER_ID_MAX_BYTES)
 * @payload: (nullable) (array length=len): this member's payload, copied
 *   (%NULL with @len 0)
 * @len: the length of @payload
 * @error: return location for a #GError, or %NULL
 *
 * Makes a member; nothing is sent before zkr_group_member_start(). A
 * %NULL @session, @path or @id is a programming error.
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT naming a bad @path, @id or payload.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (nullable): the member; zkr_group_member_unref() it.
 *
 * Since: 0.1
 */
ZKR_API ZkrGroupMember *zkr_group_member_new (ZkrSession *session, const char *path,
                                              const char *id, const void *payload, gsize len,
                                              GError **error);
/**
 * zkr_group_member_ref:
 * @member: a #ZkrGroupMember
 *
 * Takes a reference on @member.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full): @member.
 *
 * Since: 0.1
 */
ZKR_API ZkrGroupMember *zkr_group_member_ref (ZkrGroupMember *member);
/**
 * zkr_group_member_unref:
 * @member: (transfer full): a #ZkrGroupMember
 *
 * Drops a reference; the last one closes the member without waiting (its
 * node is deleted in the background).
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_group_member_unref (ZkrGroupMember *member);

/**
 * zkr_group_member_start:
 * @member: a #ZkrGroupMember
 * @error: return location for a #GError, or %NULL
 *
 * Joins (in the background) and starts reading the group. Add listeners
 * first to hear every JOINED of the first read.
 *
 * Errors: those of zkr_persistent_node_start() and zkr_tree_cache_start().
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when started.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_group_member_start (ZkrGroupMember *member, GError **error);

/**
 * zkr_group_member_wait_joined:
 * @member: a started #ZkrGroupMember
 * @timeout_ms: positive: a deadline; 0 only looks; negative: none
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Waits until this member's node was made and the group's first read is
 * done, by the deadline whatever the session does.
 *
 * Errors: those of zkr_persistent_node_wait_for_initial_create() and
 * zkr_tree_cache_wait_initialized(); %G_IO_ERROR_CANCELLED when
 * @cancellable is cancelled.
 *
 * Thread: any thread; blocks it.
 *
 * Returns: %TRUE once joined and read.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_group_member_wait_joined (ZkrGroupMember *member, int timeout_ms,
                                               GCancellable *cancellable, GError **error);

/**
 * zkr_group_member_set_payload:
 * @member: a #ZkrGroupMember
 * @payload: (nullable) (array length=len): the new payload, copied
 * @len: the length of @payload
 * @error: return location for a #GError, or %NULL
 *
 * Sets this member's payload (in the background, as
 * zkr_persistent_node_set_data()).
 *
 * Errors: %ZKR_ERROR_INVALID_ARGUMENT (bad payload, or closed).
 *
 * Thread: any thread; returns at once.
 *
 * Returns: %TRUE when the payload was taken.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_group_member_set_payload (ZkrGroupMember *member, const void *payload,
                                               gsize len, GError **error);

/**
 * zkr_group_member_dup_members:
 * @member: a #ZkrGroupMember
 *
 * The group's members as the cache has them now, this member always
 * included (with its own payload, even before its node is seen: Curator's
 * rule). Never waits for the server.
 *
 * Thread: any thread.
 *
 * Returns: (transfer full) (element-type utf8 GBytes): id (char *) to payload
 *   (#GBytes *), both owned by the table; g_hash_table_unref() it. Empty
 *   once closed (this member is then no longer included either).
 *
 * Since: 0.1
 */
ZKR_API GHashTable *zkr_group_member_dup_members (ZkrGroupMember *member);

/**
 * zkr_group_member_get_id:
 * @member: a #ZkrGroupMember
 *
 * This member's id.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the id, valid while @member lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_group_member_get_id (ZkrGroupMember *member);
/**
 * zkr_group_member_get_path:
 * @member: a #ZkrGroupMember
 *
 * The group's path.
 *
 * Thread: any thread.
 *
 * Returns: (transfer none): the path, valid while @member lives.
 *
 * Since: 0.1
 */
ZKR_API const char *zkr_group_member_get_path (ZkrGroupMember *member);

/**
 * zkr_group_member_add_listener:
 * @member: a #ZkrGroupMember
 * @func: (scope notified): the listener
 * @user_data: (closure): data for @func and @destroy
 * @destroy: (nullable): runs on @user_data after the listener is removed
 *   or the member goes
 *
 * Adds a group listener.
 *
 * Thread: any thread; @func runs in the GMainContext that is
 * thread-default now.
 *
 * Returns: an id for zkr_group_member_remove_listener() (> 0), 0 once
 *   closed.
 *
 * Since: 0.1
 */
ZKR_API guint zkr_group_member_add_listener (ZkrGroupMember *member, ZkrGroupMemberFunc func,
                                             gpointer user_data, GDestroyNotify destroy);
/**
 * zkr_group_member_remove_listener:
 * @member: a #ZkrGroupMember
 * @id: an id zkr_group_member_add_listener() returned
 *
 * Removes a listener: no call of it starts after this returns.
 *
 * Thread: any thread, also from inside a listener.
 *
 * Since: 0.1
 */
ZKR_API void zkr_group_member_remove_listener (ZkrGroupMember *member, guint id);

/**
 * zkr_group_member_close:
 * @member: a #ZkrGroupMember
 * @timeout_ms: as zkr_persistent_node_close()
 * @cancellable: (nullable): stops the wait, not the delete
 * @error: return location for a #GError, or %NULL
 *
 * Leaves the group (deletes this member's node, guaranteed) and stops the
 * cache: no listener call starts after this returns. Idempotent.
 *
 * Errors: those of zkr_persistent_node_close().
 *
 * Thread: any thread; blocks it until the delete is answered.
 *
 * Returns: %TRUE once the node is deleted.
 *
 * Since: 0.1
 */
ZKR_API gboolean zkr_group_member_close (ZkrGroupMember *member, int timeout_ms,
                                         GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrGroupMember, zkr_group_member_unref)

G_END_DECLS
