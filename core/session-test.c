/* zkr tests: the session's test hooks (session-private.h declares them):
 * faults injected into a session's requests, counters of where its posts
 * ran, and expiring a session from outside. Built into a library of its
 * own that only the tests and the demo link (zkr_internal_dep), never into
 * libzkr; the hooks' state, and the calls that consult it from op.c,
 * stay in the library (session-internal.h). */

#include "log.h"
#include "session-internal.h"

void
zkr__session_test_drop_next_create_reply (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  session->drop_next_create_reply = TRUE;
  g_mutex_unlock (&session->lock);
}

void
zkr__session_test_stall_next_close (ZkrSession *session, guint ms)
{
  g_mutex_lock (&session->lock);
  session->close_stall_ms = ms;
  g_mutex_unlock (&session->lock);
}

void
zkr__session_test_drop_next_set_reply (ZkrSession *session)
{
  g_mutex_lock (&session->lock);
  session->drop_next_set_reply = TRUE;
  g_mutex_unlock (&session->lock);
}

gboolean
zkr__session_test_drop_set_reply_armed (ZkrSession *session)
{
  gboolean armed;

  g_mutex_lock (&session->lock);
  armed = session->drop_next_set_reply;
  g_mutex_unlock (&session->lock);
  return armed;
}

void
zkr__session_test_rewrite_answers_under (ZkrSession *session, const char *prefix, int rc,
                                         int count)
{
  g_atomic_int_set (&session->rewrite_left, 0);
  g_mutex_lock (&session->lock);
  g_free (session->rewrite_prefix);
  session->rewrite_prefix = g_strdup (prefix);
  g_mutex_unlock (&session->lock);
  g_atomic_int_set (&session->rewrite_rc, rc);
  g_atomic_int_set (&session->rewrite_left, count);
}

void
zkr__session_test_rewrite_answers (ZkrSession *session, int rc, int count)
{
  zkr__session_test_rewrite_answers_under (session, NULL, rc, count);
}

guint
zkr__session_test_count_rewritten (ZkrSession *session)
{
  return (guint) g_atomic_int_get (&session->rewritten);
}

guint
zkr__session_test_count_stand_in_posts (ZkrSession *session)
{
  return zkr__executor_count_stand_in_posts (session->executor);
}

guint
zkr__session_test_count_in_place_posts (ZkrSession *session)
{
  return zkr__executor_count_in_place_posts (session->executor);
}

gboolean
zkr__session_test_copy_client_id (ZkrSession *session, clientid_t *out)
{
  gboolean ok = FALSE;

  g_mutex_lock (&session->lock);
  if (session->zh != NULL && zkr__session_state_is_connected (session->state))
    {
      *out = *zoo_client_id (session->zh);
      ok = TRUE;
    }
  g_mutex_unlock (&session->lock);
  return ok;
}

/* ---- expiry from outside (tests and the demo) ------------------------ */

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean connected;
} Expirer;

static void
expirer_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
  Expirer *expirer = ctx;

  (void) zh;
  (void) path;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE)
    {
      g_mutex_lock (&expirer->lock);
      expirer->connected = TRUE;
      g_cond_broadcast (&expirer->cond);
      g_mutex_unlock (&expirer->lock);
    }
}

gboolean
zkr__session_test_expire_once (ZkrSession *session, const char *hosts)
{
  Expirer expirer = { 0 };
  clientid_t client;
  zhandle_t *zh;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gboolean connected;

  if (!zkr__session_test_copy_client_id (session, &client))
    return FALSE;
  g_mutex_init (&expirer.lock);
  g_cond_init (&expirer.cond);
  zh = zookeeper_init2 (hosts, expirer_watcher, 10000, &client, &expirer, 0,
                        zkr__log_zookeeper_message);
  g_mutex_lock (&expirer.lock);
  while (!expirer.connected && g_cond_wait_until (&expirer.cond, &expirer.lock, deadline))
    ;
  connected = expirer.connected;
  g_mutex_unlock (&expirer.lock);
  if (zh != NULL)
    zookeeper_close (zh);
  g_mutex_clear (&expirer.lock);
  g_cond_clear (&expirer.cond);
  return connected;
}
