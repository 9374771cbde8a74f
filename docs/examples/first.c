/* The first program of README.md: connect to ZooKeeper, take a mutex, print
 * its fencing token, release it. Built against an installed zkr with
 *   cc first.c $(pkg-config --cflags --libs zkr) -o first
 * and run as `./first [HOSTS [LOCK_PATH]]`; `./run deb` builds and runs it
 * against the Debian packages. */
#include <stdlib.h>

#include <zkr/zkr.h>

/* Says what failed, closes the session (its lock node goes with it) and
 * gives the exit status. */
static int
fail (ZkrSession *session, const char *what, const GError *error)
{
  g_printerr ("first: %s: %s\n", what, error->message);
  if (session != NULL)
    zkr_session_close (session);
  return EXIT_FAILURE;
}

int
main (int argc, char **argv)
{
  /* HOSTS as the zkr tool takes it: the argument, else $ZKR_HOSTS. */
  const char *hosts = argc > 1 ? argv[1] : g_getenv ("ZKR_HOSTS");
  const char *lock_path = argc > 2 ? argv[2] : "/locks/first";
  g_autoptr (ZkrSessionOptions) options = zkr_session_options_new ();
  g_autoptr (GError) error = NULL;

  zkr_session_options_set_hosts (options, hosts != NULL ? hosts : "127.0.0.1:2181");
  g_autoptr (ZkrSession) session = zkr_session_connect (options, &error);
  if (session == NULL)
    return fail (NULL, "connect", error);

  g_autoptr (ZkrMutex) mutex = zkr_mutex_new (session, lock_path, &error);
  if (mutex == NULL)
    return fail (session, lock_path, error);
  if (!zkr_mutex_acquire (mutex, 10000 /* ms */, NULL, &error))
    return fail (session, "acquire", error);
  /* The czxid of our lock node: higher for every later holder. Hand it to
   * whatever the lock protects, so that it can refuse a stale holder. */
  g_print ("fencing token %" G_GINT64_FORMAT "\n", zkr_mutex_get_fencing_token (mutex));
  if (!zkr_mutex_release (mutex, &error))
    return fail (session, "release", error);

  zkr_session_close (session);
  return EXIT_SUCCESS;
}
