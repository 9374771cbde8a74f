/* zkr-demo, test-only: the expiry of a worker's session from outside, the
 * one thing the demo cannot do through the public API (no public call
 * gives a session's password, on purpose). The only file of tools/ that
 * includes an internal header; it is why zkr-demo links the internal
 * library (with the session's test hooks) and is never installed. */

#include "session-private.h"
#include "zkr-demo.h"

gboolean
zkr_demo_expire_session (ZkrSession *session, const char *hosts)
{
  return zkr__session_test_expire_once (session, hosts);
}
