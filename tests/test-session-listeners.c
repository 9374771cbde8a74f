/* Unit tests of the session's internal state listeners (core/session.c),
 * without a server: a session that never connects (its hosts refuse) is
 * closed, and CLOSED reaches exactly the listeners still registered, once
 * each, in the order they were added, after removals in any order (holes
 * left and compacted) and a removal made by an earlier listener's call. */

#include <CUnit/CUnit.h>

#include "session-private.h"
#include "zkr-test.h"

#define LISTENERS 300

typedef struct {
  ZkrSession *session;
  guint ids[LISTENERS];
  guint calls[LISTENERS];
  gboolean removed[LISTENERS];
  GArray *order;           /* indexes of the listeners called, in order */
  guint remover;           /* this one removes @victim when called */
  guint victim;
} Listeners;

typedef struct {
  Listeners *all;
  guint index;
} One;

static One ones[LISTENERS];

static void
on_state (ZkrSession *session, ZkrSessionState state, gpointer user_data)
{
  One *one = user_data;
  Listeners *all = one->all;

  (void) session;
  if (state != ZKR_SESSION_STATE_CLOSED)
    return;
  all->calls[one->index]++;
  g_array_append_val (all->order, one->index);
  if (one->index == all->remover)
    {
      zkr__session_remove_internal_listener (all->session, all->ids[all->victim]);
      all->removed[all->victim] = TRUE;
    }
}

static void
test_session_listeners__closed_reaches_exactly_those_still_added_in_order (void)
{
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;
  Listeners all = { 0 };
  guint last = 0;

  /* The discard port: refused at once, so the session stays CONNECTING. */
  zkr_session_options_set_hosts (options, "127.0.0.1:9");
  all.session = zkr_session_new (options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (all.session);
  all.order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < LISTENERS; i++)
    {
      ones[i].all = &all;
      ones[i].index = i;
      all.ids[i] = zkr__session_add_internal_listener (all.session, on_state, &ones[i]);
      CU_ASSERT_TRUE (all.ids[i] > last);
      last = all.ids[i];
    }
  /* Removed out of order, well past half (the holes are compacted on the
   * way), and twice for some (the second does nothing). */
  for (guint i = LISTENERS; i-- > 0;)
    if (i % 3 != 0)
      {
        zkr__session_remove_internal_listener (all.session, all.ids[i]);
        all.removed[i] = TRUE;
      }
  for (guint i = 0; i < LISTENERS; i += 7)
    if (!all.removed[i])
      {
        zkr__session_remove_internal_listener (all.session, all.ids[i]);
        zkr__session_remove_internal_listener (all.session, all.ids[i]);
        all.removed[i] = TRUE;
      }
  /* An id never handed out removes nothing. */
  zkr__session_remove_internal_listener (all.session, last + 1000);
  /* One still added removes a later one from inside its call. */
  all.remover = 3;
  all.victim = 297;
  CU_ASSERT_FALSE (all.removed[all.remover]);
  CU_ASSERT_FALSE (all.removed[all.victim]);

  zkr_session_close (all.session);
  CU_ASSERT_EQUAL (zkr_session_get_state (all.session), ZKR_SESSION_STATE_CLOSED);
  for (guint i = 0; i < LISTENERS; i++)
    CU_ASSERT_EQUAL (all.calls[i], (i == all.victim || all.removed[i]) ? 0 : 1);
  for (guint i = 1; i < all.order->len; i++)
    CU_ASSERT_TRUE (g_array_index (all.order, guint, i - 1) < g_array_index (all.order, guint, i));
  g_array_unref (all.order);
  zkr_session_unref (all.session);
}

static const ZkrTestCase tests[] = {
  ZKR_TEST_CASE (test_session_listeners__closed_reaches_exactly_those_still_added_in_order),
  { NULL, NULL },
};

int
main (int argc, char **argv)
{
  return zkr_test_main (argc, argv, "session_listeners", NULL, NULL, tests);
}
