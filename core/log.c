/* zkr: ZooKeeper's own log goes to g_debug in the "zkr" domain, so a
 * library user sees nothing unless they ask with G_MESSAGES_DEBUG=zkr. */

#include <string.h>

#include <glib.h>
#include <zookeeper/zookeeper.h>

#include "log.h"

void
zkr__log_zookeeper_message (const char *message)
{
  gsize len;

  if (message == NULL)
    return;
  len = strlen (message);
  while (len > 0 && (message[len - 1] == '\n' || message[len - 1] == '\r'))
    len--;
  g_debug ("zookeeper: %.*s", (int) len, message);
}

void
zkr__log_init (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      /* INFO keeps connection events (useful when debugging a partition)
       * without the per-request chatter of DEBUG. */
      zoo_set_debug_level (ZOO_LOG_LEVEL_INFO);
      g_once_init_leave (&initialized, 1);
    }
}

/* What G_MESSAGES_DEBUG says of our domain, read once (GLib's own check
 * reads the environment every time, a few hundred instructions per call
 * on the node calls' path): 0 not read yet, 1 silent, 2 on. */
static gint env_debug;

gboolean
zkr__log_debug_enabled (void)
{
  gint env = g_atomic_int_get (&env_debug);

  if (g_log_get_debug_enabled ())
    return TRUE;
  if (env == 0)
    {
      gboolean on = !g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN);

      /* Turned on meanwhile: this reading says nothing of the variable. */
      if (g_log_get_debug_enabled ())
        return TRUE;
      env = on ? 2 : 1;
      g_atomic_int_set (&env_debug, env);
    }
  return env == 2;
}
