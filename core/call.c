/* zkr: the answer of one public async call (core/call.h). */

#include "call.h"
#include "context.h"

#include <string.h>

/* How many finished answers a thread keeps for its next calls. A window
 * of requests in flight answers in bursts: enough for one burst of a
 * context's posts, small enough to be nothing at a thread's exit. */
#define CALL_SPARES 64

struct _ZkrCall {
  GObject parent;
  ZkrContextPost post;          /* the answer's post to @context */
  GMainContext *context;        /* (owned) thread-default at the call */
  gpointer source_tag;
  GAsyncReadyCallback callback; /* (nullable) */
  gpointer user_data;
  gpointer data;                /* (owned by @data_destroy) */
  GDestroyNotify data_destroy;
  gpointer held;                /* (owned by @held_drop) until answered */
  GDestroyNotify held_drop;
  gpointer result;              /* (owned by @result_free) until propagated */
  GDestroyNotify result_free;
  GError *error;                /* (owned) (nullable) */
  gboolean returned;
  gboolean propagated;
};

typedef struct {
  GObjectClass parent_class;
} ZkrCallClass;

static void zkr_call_async_result_init (GAsyncResultIface *iface);

G_DEFINE_TYPE_WITH_CODE (ZkrCall, zkr_call, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_RESULT, zkr_call_async_result_init))

/* Exactly a ZkrCall (it has no subclasses): a compare, where
 * G_TYPE_CHECK_INSTANCE_TYPE is a library call per check. */
#define ZKR_IS_CALL(obj)                                                  \
  ((obj) != NULL && ((GTypeInstance *) (obj))->g_class != NULL &&        \
   G_TYPE_FROM_INSTANCE (obj) == zkr_call_get_type ())

/* Frees what the call owns, leaving it as g_object_new() made it. */
static void
call_clear (ZkrCall *call)
{
  if (call->held_drop != NULL)
    call->held_drop (call->held);
  if (call->data_destroy != NULL)
    call->data_destroy (call->data);
  if (call->result_free != NULL && call->result != NULL)
    call->result_free (call->result);
  g_clear_error (&call->error);
  g_clear_pointer (&call->context, g_main_context_unref);
  memset ((char *) call + sizeof (GObject), 0, sizeof (ZkrCall) - sizeof (GObject));
}

static void
zkr_call_finalize (GObject *object)
{
  call_clear ((ZkrCall *) object);
  G_OBJECT_CLASS (zkr_call_parent_class)->finalize (object);
}

static void
zkr_call_init (ZkrCall *call)
{
  (void) call;
}

static void
zkr_call_class_init (ZkrCallClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zkr_call_finalize;
}

static gpointer
call_get_user_data (GAsyncResult *result)
{
  return ((ZkrCall *) result)->user_data;
}

static GObject *
call_get_source_object (GAsyncResult *result)
{
  (void) result;
  return NULL;
}

static gboolean
call_is_tagged (GAsyncResult *result, gpointer source_tag)
{
  return ((ZkrCall *) result)->source_tag == source_tag;
}

static void
zkr_call_async_result_init (GAsyncResultIface *iface)
{
  iface->get_user_data = call_get_user_data;
  iface->get_source_object = call_get_source_object;
  iface->is_tagged = call_is_tagged;
}

/* ---- spares: finished answers kept for the thread's next calls --------- */

typedef struct {
  guint count;
  ZkrCall *calls[CALL_SPARES];
} Spares;

static __thread Spares *spares_here;

/* At the thread's end, on the thread: what ends after this (another
 * thread-local destructor finalizing a context with answers queued) finds
 * no spares and makes new ones, freed in the next round. */
static void
spares_free (gpointer data)
{
  Spares *spares = data;

  if (spares_here == spares)
    spares_here = NULL;
  for (guint i = 0; i < spares->count; i++)
    g_object_unref (spares->calls[i]);
  g_free (spares);
}

/* The GPrivate frees a thread's spares at its end; the compiler TLS copy
 * is what the calls read (a GPrivate lookup costs more). */
static GPrivate thread_spares = G_PRIVATE_INIT (spares_free);

/* Nobody but us holds @call: no reference taken, and no data, weak
 * reference or toggle reference attached (GObject keeps all three, and
 * their flags, in qdata). A reference can only be taken by a holder of
 * one, so with ours the only one this cannot change under us. */
static gboolean
call_is_alone (ZkrCall *call)
{
  GObject *object = (GObject *) call;

  return g_atomic_int_get ((gint *) &object->ref_count) == 1 &&
         g_atomic_pointer_get (&object->qdata) == NULL;
}

/* Drops our reference: kept for this thread's next call when nobody else
 * holds it and there is room, else unref'd. */
static void
call_drop (ZkrCall *call)
{
  Spares *spares;

  if (!call_is_alone (call))
    {
      g_object_unref (call);
      return;
    }
  /* First: what it frees (a transaction's, an operation's last
   * reference) may make or drop calls of this thread meanwhile. */
  call_clear (call);
  spares = spares_here;
  if (spares == NULL)
    {
      spares = g_new0 (Spares, 1);
      g_private_set (&thread_spares, spares);
      spares_here = spares;
    }
  if (spares->count == CALL_SPARES)
    g_object_unref (call);
  else
    spares->calls[spares->count++] = call;
}

ZkrCall *
zkr__call_new (gpointer source_tag, GAsyncReadyCallback callback, gpointer user_data)
{
  Spares *spares = spares_here;
  ZkrCall *call;

  if (spares != NULL && spares->count > 0)
    call = spares->calls[--spares->count];
  else
    call = g_object_new (zkr_call_get_type (), NULL);
  call->context = g_main_context_ref_thread_default ();
  call->source_tag = source_tag;
  call->callback = callback;
  call->user_data = user_data;
  return call;
}

void
zkr__call_set_data (ZkrCall *call, gpointer data, GDestroyNotify destroy)
{
  g_return_if_fail (call != NULL);
  g_return_if_fail (call->data_destroy == NULL && !call->returned);

  call->data = data;
  call->data_destroy = destroy;
}

void
zkr__call_hold_until_answered (ZkrCall *call, gpointer data, GDestroyNotify drop)
{
  g_return_if_fail (call != NULL);
  g_return_if_fail (call->held_drop == NULL && !call->returned);

  call->held = data;
  call->held_drop = drop;
}

/* The call's context: the user's callback, with that context
 * thread-default (as GTask does; not pushed again when it already is). */
static gboolean
call_run (gpointer data)
{
  ZkrCall *call = data;
  GMainContext *current = g_main_context_get_thread_default ();
  gboolean push = (current != NULL ? current : g_main_context_default ()) != call->context;

  if (call->callback == NULL)
    return G_SOURCE_REMOVE;
  if (push)
    g_main_context_push_thread_default (call->context);
  call->callback (NULL, (GAsyncResult *) call, call->user_data);
  if (push)
    g_main_context_pop_thread_default (call->context);
  return G_SOURCE_REMOVE;
}

/* After the callback (or when the context went with the answer unrun):
 * what was held for the answer goes now, the rest with the call. */
static void
call_done (gpointer data)
{
  ZkrCall *call = data;
  GDestroyNotify drop = g_steal_pointer (&call->held_drop);

  if (drop != NULL)
    drop (g_steal_pointer (&call->held));
  call_drop (call);
}

static void
call_set_answer (ZkrCall *call, gpointer result, GDestroyNotify result_free, GError *error)
{
  call->returned = TRUE;
  if (error != NULL)
    {
      call->error = error;
      if (result_free != NULL && result != NULL)
        result_free (result);
    }
  else
    {
      call->result = result;
      call->result_free = result_free;
    }
}

void
zkr__call_return (ZkrCall *call, gpointer result, GDestroyNotify result_free, GError *error)
{
  g_return_if_fail (call != NULL);
  g_return_if_fail (!call->returned);

  call_set_answer (call, result, result_free, error);
  zkr__context_post_embedded (call->context, &call->post, call_run, call, call_done);
}

void
zkr__call_return_here (ZkrCall *call, gpointer result, GDestroyNotify result_free, GError *error)
{
  g_return_if_fail (call != NULL);
  g_return_if_fail (!call->returned);
  g_return_if_fail (g_main_context_is_owner (call->context));

  call_set_answer (call, result, result_free, error);
  zkr__context_assert_user ("an answer returned in its context");
  call_run (call);
  call_done (call);
}

GMainContext *
zkr__call_get_context (ZkrCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return call->context;
}

gboolean
zkr__call_is_tagged (GAsyncResult *result, gpointer source_tag)
{
  return ZKR_IS_CALL (result) && ((ZkrCall *) result)->source_tag == source_tag;
}

gpointer
zkr__call_propagate (GAsyncResult *result, GError **error)
{
  ZkrCall *call = (ZkrCall *) result;

  g_return_val_if_fail (ZKR_IS_CALL (result), NULL);
  g_return_val_if_fail (call->returned && !call->propagated, NULL);

  call->propagated = TRUE;
  if (call->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&call->error));
      return NULL;
    }
  call->result_free = NULL;
  return g_steal_pointer (&call->result);
}

gpointer
zkr__call_result_get_data (GAsyncResult *result)
{
  g_return_val_if_fail (ZKR_IS_CALL (result), NULL);

  return ((ZkrCall *) result)->data;
}

void
zkr__call_release (GAsyncResult *result)
{
  g_return_if_fail (ZKR_IS_CALL (result));

  call_drop ((ZkrCall *) result);
}
