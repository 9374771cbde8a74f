/* Unit tests of the listener registry (core/notifier.c) with boxed events,
 * as the caches and the shared count use it, without a server: each event
 * reaches each listener once, in order, in the listener's context, and is
 * freed once; a removal from inside the listener, a close, and a source
 * being finalized stop the deliveries still queued and free their events. */

#include <CUnit/CUnit.h>

#include "notifier.h"
#include "zkr-test.h"

#define EVENTS 50

typedef struct {
  gint refs;        /* atomic */
  gboolean dying;   /* source_ref refuses */
} Source;

typedef struct {
  int value;
} Event;

static gint events_freed; /* atomic */

static gpointer
source_ref (gpointer data)
{
  Source *source = data;

  if (source->dying)
    return NULL;
  g_atomic_int_inc (&source->refs);
  return source;
}

static void
source_unref (gpointer data)
{
  Source *source = data;

  g_atomic_int_add (&source->refs, -1);
}

static void
event_free (gpointer data)
{
  g_atomic_int_inc (&events_freed);
  g_free (data);
}

static Event *
event_new (int value)
{
  Event *event = g_new0 (Event, 1);

  event->value = value;
  return event;
}

typedef struct {
  ZkrNotifier *notifier;
  guint id;
  GArray *seen;         /* the values, in the order they came */
  gboolean remove_self; /* removes itself at its first event */
  guint destroyed;
} Listener;

typedef void (*ValueFunc) (Source *source, int value, gpointer user_data);

static void
marshal (GCallback func, gpointer source, gpointer event, gpointer user_data)
{
  ((ValueFunc) func) (source, ((Event *) event)->value, user_data);
}

static void
on_value (Source *source, int value, gpointer user_data)
{
  Listener *listener = user_data;

  CU_ASSERT_PTR_NOT_NULL (source);
  g_array_append_val (listener->seen, value);
  if (listener->remove_self)
    zkr__notifier_remove (listener->notifier, listener->id);
}

static void
on_destroy (gpointer user_data)
{
  Listener *listener = user_data;

  listener->destroyed++;
}

static ZkrNotifier *
notifier_new (Source *source)
{
  g_atomic_int_set (&events_freed, 0);
  return zkr__notifier_new_boxed (source, source_ref, source_unref, marshal, event_free);
}

static void
listener_add (Listener *listener, ZkrNotifier *notifier)
{
  listener->notifier = notifier;
  listener->seen = g_array_new (FALSE, FALSE, sizeof (int));
  listener->id = zkr__notifier_add (notifier, G_CALLBACK (on_value), listener, on_destroy);
  CU_ASSERT_TRUE (listener->id > 0);
}

/* Runs the thread-default context until it has nothing to do. */
static void
drain_context (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
test_notifier__boxed_events_reach_each_listener_once_in_order_and_are_freed_once (void)
{
  Source source = { 0 };
  ZkrNotifier *notifier = notifier_new (&source);
  Listener one = { 0 }, two = { 0 };

  listener_add (&one, notifier);
  listener_add (&two, notifier);
  for (int i = 0; i < EVENTS; i++)
    zkr__notifier_emit_boxed (notifier, event_new (i));
  drain_context ();
  CU_ASSERT_EQUAL (one.seen->len, EVENTS);
  CU_ASSERT_EQUAL (two.seen->len, EVENTS);
  for (guint i = 0; i < one.seen->len && i < two.seen->len; i++)
    {
      CU_ASSERT_EQUAL (g_array_index (one.seen, int, i), (int) i);
      CU_ASSERT_EQUAL (g_array_index (two.seen, int, i), (int) i);
    }
  CU_ASSERT_EQUAL (g_atomic_int_get (&events_freed), EVENTS);
  CU_ASSERT_EQUAL (g_atomic_int_get (&source.refs), 0);
  zkr__notifier_free (notifier);
  drain_context ();
  CU_ASSERT_EQUAL (one.destroyed, 1);
  CU_ASSERT_EQUAL (two.destroyed, 1);
  g_array_unref (one.seen);
  g_array_unref (two.seen);
}

static void
test_notifier__removal_inside_the_listener_stops_its_queued_events (void)
{
  Source source = { 0 };
  ZkrNotifier *notifier = notifier_new (&source);
  Listener quitter = { .remove_self = TRUE }, stayer = { 0 };

  listener_add (&quitter, notifier);
  listener_add (&stayer, notifier);
  for (int i = 0; i < 3; i++)
    zkr__notifier_emit_boxed (notifier, event_new (i));
  drain_context ();
  CU_ASSERT_EQUAL (quitter.seen->len, 1);
  CU_ASSERT_EQUAL (quitter.destroyed, 1);
  CU_ASSERT_EQUAL (stayer.seen->len, 3);
  CU_ASSERT_EQUAL (g_atomic_int_get (&events_freed), 3);
  /* Removed twice (again from outside): ignored. */
  zkr__notifier_remove (notifier, quitter.id);
  zkr__notifier_free (notifier);
  drain_context ();
  CU_ASSERT_EQUAL (quitter.destroyed, 1);
  CU_ASSERT_EQUAL (stayer.destroyed, 1);
  CU_ASSERT_EQUAL (g_atomic_int_get (&source.refs), 0);
  g_array_unref (quitter.seen);
  g_array_unref (stayer.seen);
}

static void
test_notifier__close_stops_queued_and_later_deliveries (void)
{
  Source source = { 0 };
  ZkrNotifier *notifier = notifier_new (&source);
  Listener before = { 0 }, after = { 0 };

  listener_add (&before, notifier);
  zkr__notifier_emit_boxed (notifier, event_new (1));
  zkr__notifier_close (notifier);
  listener_add (&after, notifier);
  zkr__notifier_emit_boxed (notifier, event_new (2));
  drain_context ();
  CU_ASSERT_EQUAL (before.seen->len, 0);
  CU_ASSERT_EQUAL (after.seen->len, 0);
  CU_ASSERT_EQUAL (g_atomic_int_get (&events_freed), 2);
  /* Registered until the free, which runs their destroy notifies. */
  CU_ASSERT_EQUAL (before.destroyed, 0);
  zkr__notifier_free (notifier);
  drain_context ();
  CU_ASSERT_EQUAL (before.destroyed, 1);
  CU_ASSERT_EQUAL (after.destroyed, 1);
  CU_ASSERT_EQUAL (g_atomic_int_get (&source.refs), 0);
  g_array_unref (before.seen);
  g_array_unref (after.seen);
}

static void
test_notifier__a_dying_source_is_never_handed_out (void)
{
  Source source = { .dying = TRUE };
  ZkrNotifier *notifier = notifier_new (&source);
  Listener listener = { 0 };

  listener_add (&listener, notifier);
  zkr__notifier_emit_boxed (notifier, event_new (1));
  drain_context ();
  CU_ASSERT_EQUAL (listener.seen->len, 0);
  CU_ASSERT_EQUAL (g_atomic_int_get (&events_freed), 1);
  zkr__notifier_remove_all (notifier);
  drain_context ();
  CU_ASSERT_EQUAL (listener.destroyed, 1);
  zkr__notifier_free (notifier);
  g_array_unref (listener.seen);
}

/* Each listener in its own thread's context: it hears its events there,
 * in order, while the emitter runs elsewhere. */
typedef struct {
  Listener listener;
  GMainContext *context;
  ZkrNotifier *notifier;
  GThread *caller; /* the emitter's thread: never the listener's */
  gboolean elsewhere;
} Remote;

static void
on_remote_value (Source *source, int value, gpointer user_data)
{
  Remote *remote = user_data;

  if (g_thread_self () == remote->caller)
    remote->elsewhere = FALSE;
  on_value (source, value, &remote->listener);
}

static gpointer
remote_thread (gpointer data)
{
  Remote *remote = data;

  g_main_context_push_thread_default (remote->context);
  while (remote->listener.destroyed == 0)
    g_main_context_iteration (remote->context, TRUE);
  g_main_context_pop_thread_default (remote->context);
  return NULL;
}

static void
test_notifier__each_listener_hears_in_its_own_context (void)
{
  Source source = { 0 };
  ZkrNotifier *notifier = notifier_new (&source);
  Remote remote = { .elsewhere = TRUE };
  GThread *thread;

  remote.context = g_main_context_new ();
  remote.notifier = notifier;
  remote.caller = g_thread_self ();
  /* Added with the listener's context as the thread-default one. */
  g_main_context_push_thread_default (remote.context);
  remote.listener.notifier = notifier;
  remote.listener.seen = g_array_new (FALSE, FALSE, sizeof (int));
  remote.listener.id = zkr__notifier_add (notifier, G_CALLBACK (on_remote_value), &remote,
                                          on_destroy);
  g_main_context_pop_thread_default (remote.context);
  thread = g_thread_new ("listener", remote_thread, &remote);
  for (int i = 0; i < EVENTS; i++)
    zkr__notifier_emit_boxed (notifier, event_new (i));
  /* Removed from this thread while the events may still be heard there:
   * the destroy notify comes last, in the listener's context. */
  zkr__notifier_remove (notifier, remote.listener.id);
  g_thread_join (thread);
  CU_ASSERT_TRUE (remote.elsewhere);
  CU_ASSERT_TRUE (remote.listener.seen->len <= EVENTS);
  for (guint i = 0; i < remote.listener.seen->len; i++)
    CU_ASSERT_EQUAL (g_array_index (remote.listener.seen, int, i), (int) i);
  CU_ASSERT_EQUAL (remote.listener.destroyed, 1);
  CU_ASSERT_EQUAL (g_atomic_int_get (&events_freed), EVENTS);
  CU_ASSERT_EQUAL (g_atomic_int_get (&source.refs), 0);
  zkr__notifier_free (notifier);
  g_array_unref (remote.listener.seen);
  g_main_context_unref (remote.context);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_notifier__boxed_events_reach_each_listener_once_in_order_and_are_freed_once),
  ZKR_TEST_CASE (test_notifier__removal_inside_the_listener_stops_its_queued_events),
  ZKR_TEST_CASE (test_notifier__close_stops_queued_and_later_deliveries),
  ZKR_TEST_CASE (test_notifier__a_dying_source_is_never_handed_out),
  ZKR_TEST_CASE (test_notifier__each_listener_hears_in_its_own_context),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "notifier", NULL, NULL, tests);
}
