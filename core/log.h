/* zkr internal: ZooKeeper's client log routed into GLib's log, "zkr"
 * domain, debug level (silent unless G_MESSAGES_DEBUG=zkr). */
#pragma once

/* A log_callback_fn for zookeeper_init2(). ZooKeeper calls it from any of
 * its threads; it only formats and calls g_log, which is thread-safe. */
void zkr__log_zookeeper_message (const char *message);

/* Sets libzookeeper's global log level once per process (idempotent). */
void zkr__log_init (void);
