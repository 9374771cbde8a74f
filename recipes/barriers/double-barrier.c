/* zkr: the double barrier, Curator's DistributedDoubleBarrier layout
 * (PATH/<uuid> members, PATH/ready), enter and leave as chains of public
 * node and watch calls in the caller's context, with the fixes for
 * Curator's known bugs (docs/design.md §4.2). */
#include <string.h>

#include "barrier-private.h"
#include "error-private.h"
#include "path.h"

#include <zkr/double-barrier.h>
#include <zkr/error.h>

#define READY_NAME "ready"

typedef enum {
  MEMBER_OUT,      /* not in the barrier: may enter */
  MEMBER_ENTERING,
  MEMBER_IN,       /* entered: may leave */
  MEMBER_LEAVING,
} MemberState;

struct _ZkrDoubleBarrier {
  gatomicrefcount ref;
  ZkrSession *session;  /* (owned) */
  char *path;           /* (owned) */
  char *ready_path;     /* (owned) */
  int member_count;
  GMutex mutex;         /* guards the two below (public calls, any thread) */
  MemberState state;
  char *member_path;    /* (owned) (nullable) our node while it may exist */
};

/* One enter or leave; the call's data. */
typedef struct {
  ZkrDoubleBarrier *barrier; /* (owned) */
  char *member_path;         /* (owned) our node */
  gboolean ready_seen;       /* enter: PATH/ready existed at our check */
  gboolean member_made;      /* enter: our create was answered OK */
  gboolean member_gone;      /* leave: we deleted our node */
  GHashTable *leavers;       /* (owned) (nullable) leave: the members listed at
                              * the first look, the only ones waited for */
} Step;

static void
step_free (gpointer data)
{
  Step *step = data;

  zkr_double_barrier_unref (step->barrier);
  g_free (step->member_path);
  g_clear_pointer (&step->leavers, g_hash_table_unref);
  g_free (step);
}

ZkrDoubleBarrier *
zkr_double_barrier_new (ZkrSession *session, const char *path, int member_count,
                        GError **error)
{
  ZkrDoubleBarrier *barrier;

  g_return_val_if_fail (session != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);
  if (!zkr__barrier_validate_path (path, error))
    return NULL;
  if (member_count < 1)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid member count %d: a double barrier needs at least 1 member",
                   member_count);
      return NULL;
    }
  barrier = g_new0 (ZkrDoubleBarrier, 1);
  g_atomic_ref_count_init (&barrier->ref);
  barrier->session = zkr_session_ref (session);
  barrier->path = g_strdup (path);
  barrier->ready_path = g_strconcat (path, "/" READY_NAME, NULL);
  barrier->member_count = member_count;
  g_mutex_init (&barrier->mutex);
  return barrier;
}

ZkrDoubleBarrier *
zkr_double_barrier_ref (ZkrDoubleBarrier *barrier)
{
  g_return_val_if_fail (barrier != NULL, NULL);
  g_atomic_ref_count_inc (&barrier->ref);
  return barrier;
}

void
zkr_double_barrier_unref (ZkrDoubleBarrier *barrier)
{
  if (barrier == NULL || !g_atomic_ref_count_dec (&barrier->ref))
    return;
  /* Every call holds a reference: the last one finds the member out or
   * in; in, its node would count for the others until the session ends. */
  if (barrier->member_path != NULL)
    zkr__barrier_delete_in_background (barrier->session, barrier->member_path);
  zkr_session_unref (barrier->session);
  g_mutex_clear (&barrier->mutex);
  g_free (barrier->member_path);
  g_free (barrier->ready_path);
  g_free (barrier->path);
  g_free (barrier);
}

const char *
zkr_double_barrier_get_path (ZkrDoubleBarrier *barrier)
{
  g_return_val_if_fail (barrier != NULL, NULL);
  return barrier->path;
}

char *
zkr_double_barrier_dup_member_path (ZkrDoubleBarrier *barrier)
{
  char *path;

  g_return_val_if_fail (barrier != NULL, NULL);
  g_mutex_lock (&barrier->mutex);
  path = g_strdup (barrier->member_path);
  g_mutex_unlock (&barrier->mutex);
  return path;
}

/* Moves from @from to @to, or FALSE (nothing changed). */
static gboolean
member_move (ZkrDoubleBarrier *barrier, MemberState from, MemberState to)
{
  gboolean moved;

  g_mutex_lock (&barrier->mutex);
  moved = barrier->state == from;
  if (moved)
    barrier->state = to;
  g_mutex_unlock (&barrier->mutex);
  return moved;
}

/* The call ended: the member's state, and our node deleted in the
 * background unless it stays (entered) or is gone (left). */
static void
member_settle (ZkrDoubleBarrier *barrier, MemberState state, const char *member_path,
               gboolean delete_member)
{
  g_mutex_lock (&barrier->mutex);
  barrier->state = state;
  g_clear_pointer (&barrier->member_path, g_free);
  if (state == MEMBER_IN)
    barrier->member_path = g_strdup (member_path);
  g_mutex_unlock (&barrier->mutex);
  if (delete_member)
    zkr__barrier_delete_in_background (barrier->session, member_path);
}

static ZkrBarrierCall *
step_call_new (ZkrDoubleBarrier *barrier, const char *verb, int timeout_ms,
               GCancellable *cancellable, gpointer tag, GAsyncReadyCallback callback,
               gpointer user_data)
{
  g_autofree char *what = g_strdup_printf ("double barrier %s on %s", verb, barrier->path);
  ZkrBarrierCall *call = zkr__barrier_call_new (barrier->session, NULL, what, timeout_ms,
                                                cancellable, tag, callback, user_data);
  Step *step = g_new0 (Step, 1);

  step->barrier = zkr_double_barrier_ref (barrier);
  call->data = step;
  call->data_free = step_free;
  return call;
}

static void
answer_now (gpointer tag, GAsyncReadyCallback callback, gpointer user_data, ZkrError code,
            const char *message, const char *path)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_source_tag (task, tag);
  g_task_return_new_error (task, ZKR_ERROR, code, "double barrier on %s: %s", path, message);
  g_object_unref (task);
}

static gboolean
step_finish (ZkrDoubleBarrier *barrier, GAsyncResult *result, gpointer tag, GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tag, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ==== enter ============================================================== */

static void enter_check_ready (ZkrBarrierCall *call);

static void
enter_ended (ZkrBarrierCall *call, const GError *error)
{
  Step *step = call->data;

  member_settle (step->barrier, error == NULL ? MEMBER_IN : MEMBER_OUT, step->member_path,
                 error != NULL && step->member_path != NULL);
}

static void
enter_listed (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrBarrierCall *call = data;
  Step *step = call->data;
  GError *error = NULL;
  g_auto (GStrv) children = zkr_node_get_children_finish (call->session, result,
                                                          NULL, &error);
  const char *ours = strrchr (step->member_path, '/') + 1;
  const char *client_id;

  (void) source;
  if (!zkr__barrier_call_answered (call))
    {
      g_clear_error (&error);
      return;
    }
  if (children == NULL)
    {
      zkr__barrier_call_end (call, error);
      return;
    }
  if (!g_strv_contains ((const char *const *) children, ours))
    {
      zkr__barrier_call_end (call, g_error_new (ZKR_ERROR, ZKR_ERROR_NO_NODE,
                                                "our node %s vanished (session expired, "
                                                "or deleted by someone)", step->member_path));
      return;
    }
  /* Curator counts every child, ready included. */
  if (g_strv_length (children) < (guint) step->barrier->member_count)
    {
      zkr__barrier_call_wait (call, enter_check_ready);
      return;
    }
  client_id = zkr_session_get_client_id (call->session);
  call->in_flight = TRUE;
  zkr_node_create_async (call->session, step->barrier->ready_path, client_id,
                         strlen (client_id), ZKR_CREATE_PERSISTENT, ZKR_CREATE_PARENTS_NONE,
                         zkr__barrier_call_remaining (call), call->cancel, zkr__barrier_call_end_created,
                         call);
}

static void
enter_count (ZkrBarrierCall *call)
{
  Step *step = call->data;

  call->in_flight = TRUE;
  zkr_node_get_children_async (call->session, step->barrier->path,
                               zkr__barrier_call_remaining (call), call->cancel, enter_listed,
                               call);
}

static void
enter_member_made (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrBarrierCall *call = data;
  Step *step = call->data;
  GError *error = NULL;

  (void) source;
  step->member_made = zkr_node_create_finish (call->session, result, NULL, NULL,
                                              &error);
  if (!zkr__barrier_call_answered (call))
    {
      g_clear_error (&error);
      return;
    }
  if (error != NULL)
    zkr__barrier_call_end (call, error);
  else if (step->ready_seen)
    zkr__barrier_call_end (call, NULL);
  else
    zkr__barrier_call_run (call, enter_count);
}

static void
enter_ready_checked (ZkrBarrierCall *call, gboolean exists, GError *error)
{
  Step *step = call->data;
  const char *client_id;

  if (error != NULL)
    {
      zkr__barrier_call_end (call, error);
      return;
    }
  step->ready_seen = exists;
  if (exists)
    zkr__barrier_call_unwatch (call);
  if (step->member_made)
    {
      /* Woken: through only if ready exists now, else count again (a
       * wake-up alone is no proof: Curator's spurious pass). */
      if (exists)
        zkr__barrier_call_end (call, NULL);
      else
        enter_count (call);
      return;
    }
  client_id = zkr_session_get_client_id (call->session);
  call->in_flight = TRUE;
  zkr_node_create_async (call->session, step->member_path, client_id, strlen (client_id),
                         ZKR_CREATE_EPHEMERAL, ZKR_CREATE_PARENTS_CONTAINER,
                         zkr__barrier_call_remaining (call), call->cancel, enter_member_made,
                         call);
}

/* The watch on PATH/ready comes first, as in Curator: a ready node made
 * after our look wakes us. */
static void
enter_check_ready (ZkrBarrierCall *call)
{
  Step *step = call->data;

  zkr__barrier_call_watch_exists (call, step->barrier->ready_path, enter_ready_checked);
}

void
zkr_double_barrier_enter_async (ZkrDoubleBarrier *barrier, int timeout_ms,
                                GCancellable *cancellable, GAsyncReadyCallback callback,
                                gpointer user_data)
{
  ZkrBarrierCall *call;
  Step *step;
  g_autofree char *uuid = NULL;

  g_return_if_fail (barrier != NULL);
  if (!member_move (barrier, MEMBER_OUT, MEMBER_ENTERING))
    {
      answer_now (zkr_double_barrier_enter_async, callback, user_data, ZKR_ERROR_ALREADY_HELD,
                  "entering or entered already", barrier->path);
      return;
    }
  call = step_call_new (barrier, "enter", timeout_ms, cancellable,
                        zkr_double_barrier_enter_async, callback, user_data);
  step = call->data;
  uuid = g_uuid_string_random ();
  step->member_path = g_strconcat (barrier->path, "/", uuid, NULL);
  g_mutex_lock (&barrier->mutex);
  barrier->member_path = g_strdup (step->member_path);
  g_mutex_unlock (&barrier->mutex);
  call->on_end = enter_ended;
  enter_check_ready (call);
}

gboolean
zkr_double_barrier_enter_finish (ZkrDoubleBarrier *barrier, GAsyncResult *result,
                                 GError **error)
{
  return step_finish (barrier, result, zkr_double_barrier_enter_async, error);
}

gboolean
zkr_double_barrier_enter (ZkrDoubleBarrier *barrier, int timeout_ms,
                          GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  return zkr__barrier_run_blocking (barrier,
                                    (ZkrBarrierAsyncFunc) zkr_double_barrier_enter_async,
                                    (ZkrBarrierFinishFunc) zkr_double_barrier_enter_finish,
                                    timeout_ms, cancellable, error);
}

/* ==== leave ============================================================== */

static void leave_list (ZkrBarrierCall *call);

static void
leave_ended (ZkrBarrierCall *call, const GError *error)
{
  Step *step = call->data;

  (void) error;
  member_settle (step->barrier, MEMBER_OUT, step->member_path, !step->member_gone);
}

/* Everybody left: PATH/ready goes (every member tries, as in Curator). */
static void
leave_done (ZkrBarrierCall *call)
{
  Step *step = call->data;

  zkr__barrier_call_unwatch (call);
  call->in_flight = TRUE;
  zkr_node_delete_async (call->session, step->barrier->ready_path, -1,
                         zkr__barrier_call_remaining (call), call->cancel, zkr__barrier_call_end_deleted,
                         call);
}

static void
leave_watched (ZkrBarrierCall *call, gboolean exists, GError *error)
{
  if (error != NULL)
    zkr__barrier_call_end (call, error);
  else if (exists)
    zkr__barrier_call_wait (call, leave_list);
  else
    leave_list (call);
}

static void
leave_watch (ZkrBarrierCall *call, const char *name)
{
  Step *step = call->data;
  g_autofree char *path = g_strconcat (step->barrier->path, "/", name, NULL);

  zkr__barrier_call_watch_exists (call, path, leave_watched);
}

typedef struct {
  ZkrBarrierCall *call;
  char *watch_name; /* (owned) the member to watch once ours is gone */
} LeaveDelete;

static void
leave_member_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  LeaveDelete del = *(LeaveDelete *) data;
  Step *step = del.call->data;
  GError *error = NULL;
  g_autofree char *watch_name = del.watch_name;

  (void) source;
  g_free (data);
  step->member_gone = zkr_node_delete_finish (del.call->session, result, &error);
  if (!zkr__barrier_call_answered (del.call))
    {
      g_clear_error (&error);
      return;
    }
  if (error != NULL)
    zkr__barrier_call_end (del.call, error);
  else if (watch_name == NULL)
    zkr__barrier_call_run (del.call, leave_done);
  else
    leave_watch (del.call, watch_name);
}

/* Deletes our node, then watches @watch_name (nullable: we were last). */
static void
leave_delete_member (ZkrBarrierCall *call, const char *watch_name)
{
  Step *step = call->data;
  LeaveDelete *del = g_new0 (LeaveDelete, 1);

  zkr__barrier_call_unwatch (call);
  del->call = call;
  del->watch_name = g_strdup (watch_name);
  call->in_flight = TRUE;
  zkr_node_delete_async (call->session, step->member_path, -1,
                         zkr__barrier_call_remaining (call), call->cancel,
                         leave_member_deleted, del);
}

static int
name_compare (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The members' names (ready left out), sorted as Curator sorts them
 * (Java's String order, which is byte order for Curator's ASCII uuids).
 * The first look of a leave keeps the names it saw; later looks count
 * only those: a member that left this round and entered the next one has a
 * new node, and waiting for it would wait for a round that cannot open
 * without us (docs/design.md §4.2). */
static GPtrArray *
leave_members (Step *step, char **children)
{
  GPtrArray *members = g_ptr_array_new ();
  gboolean first = step->leavers == NULL;

  if (first)
    step->leavers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      if (strcmp (children[i], READY_NAME) == 0)
        continue;
      if (first)
        g_hash_table_add (step->leavers, g_strdup (children[i]));
      else if (!g_hash_table_contains (step->leavers, children[i]))
        continue;
      g_ptr_array_add (members, children[i]);
    }
  g_ptr_array_sort (members, name_compare);
  return members;
}

/* One look at the members (Curator's internalLeave loop), deciding what
 * to delete and which one member to watch. */
static void
leave_judge (ZkrBarrierCall *call, char **children)
{
  Step *step = call->data;
  const char *ours = strrchr (step->member_path, '/') + 1;
  g_autoptr (GPtrArray) members = leave_members (step, children);
  const char *lowest, *highest;
  gboolean ours_listed = FALSE;

  for (guint i = 0; i < members->len; i++)
    ours_listed = ours_listed || strcmp (g_ptr_array_index (members, i), ours) == 0;
  if (members->len == 0)
    {
      leave_done (call);
      return;
    }
  if (!step->member_gone && !ours_listed)
    {
      zkr__barrier_call_end (call, g_error_new (ZKR_ERROR, ZKR_ERROR_NO_NODE,
                                                "our node %s vanished (session expired, "
                                                "or deleted by someone)", step->member_path));
      return;
    }
  lowest = g_ptr_array_index (members, 0);
  highest = g_ptr_array_index (members, members->len - 1);
  if (members->len == 1 && ours_listed)
    leave_delete_member (call, NULL);
  else if (ours_listed && strcmp (lowest, ours) == 0)
    leave_watch (call, highest);   /* the lowest goes last */
  else if (ours_listed)
    leave_delete_member (call, lowest);
  else
    /* Ours is gone: wait for the lowest, even when it is the only one
     * left (Curator 5.4.0 passes then, before the last member left). */
    leave_watch (call, lowest);
}

static void
leave_listed (GObject *source, GAsyncResult *result, gpointer data)
{
  ZkrBarrierCall *call = data;
  GMainContext *context;
  GError *error = NULL;
  g_auto (GStrv) children = zkr_node_get_children_finish (call->session, result,
                                                          NULL, &error);

  (void) source;
  if (!zkr__barrier_call_answered (call))
    {
      g_clear_error (&error);
      return;
    }
  if (children == NULL && !g_error_matches (error, ZKR_ERROR, ZKR_ERROR_NO_NODE))
    {
      zkr__barrier_call_end (call, error);
      return;
    }
  g_clear_error (&error);
  /* leave_judge() may end (free) the call: ours keeps the context. */
  context = g_main_context_ref (call->context);
  g_main_context_push_thread_default (context);
  leave_judge (call, children);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

static void
leave_list (ZkrBarrierCall *call)
{
  Step *step = call->data;

  zkr__barrier_call_unwatch (call);
  call->in_flight = TRUE;
  zkr_node_get_children_async (call->session, step->barrier->path,
                               zkr__barrier_call_remaining (call), call->cancel, leave_listed,
                               call);
}

void
zkr_double_barrier_leave_async (ZkrDoubleBarrier *barrier, int timeout_ms,
                                GCancellable *cancellable, GAsyncReadyCallback callback,
                                gpointer user_data)
{
  ZkrBarrierCall *call;
  Step *step;

  g_return_if_fail (barrier != NULL);
  if (!member_move (barrier, MEMBER_IN, MEMBER_LEAVING))
    {
      answer_now (zkr_double_barrier_leave_async, callback, user_data, ZKR_ERROR_NOT_HELD,
                  "not entered", barrier->path);
      return;
    }
  call = step_call_new (barrier, "leave", timeout_ms, cancellable,
                        zkr_double_barrier_leave_async, callback, user_data);
  step = call->data;
  g_mutex_lock (&barrier->mutex);
  step->member_path = g_strdup (barrier->member_path);
  g_mutex_unlock (&barrier->mutex);
  call->on_end = leave_ended;
  leave_list (call);
}

gboolean
zkr_double_barrier_leave_finish (ZkrDoubleBarrier *barrier, GAsyncResult *result,
                                 GError **error)
{
  return step_finish (barrier, result, zkr_double_barrier_leave_async, error);
}

gboolean
zkr_double_barrier_leave (ZkrDoubleBarrier *barrier, int timeout_ms,
                          GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (barrier != NULL, FALSE);
  return zkr__barrier_run_blocking (barrier,
                                    (ZkrBarrierAsyncFunc) zkr_double_barrier_leave_async,
                                    (ZkrBarrierFinishFunc) zkr_double_barrier_leave_finish,
                                    timeout_ms, cancellable, error);
}
