/* zkr internal: ZooKeeper's client log routed into GLib's log, "zkr"
 * domain, debug level (silent unless G_MESSAGES_DEBUG=zkr). */
#pragma once

#include <glib.h>

/* A log_callback_fn for zookeeper_init2(). ZooKeeper calls it from any of
 * its threads; it only formats and calls g_log, which is thread-safe. */
void zkr__log_zookeeper_message (const char *message);

/* Sets libzookeeper's global log level once per process (idempotent). */
void zkr__log_init (void);

/* TRUE when GLib's default writer would show a g_debug() of the "zkr"
 * domain (G_MESSAGES_DEBUG names it or "all", or g_log_set_debug_enabled()),
 * the documented way to see zkr's debug log. G_MESSAGES_DEBUG is read at
 * the first check (set it before the first zkr call); the GLib switch is
 * read every time. For the debug lines of hot
 * paths (every step of a node call or of an atomic long's try, asked once
 * as the call starts): g_debug()
 * formats its message before any writer drops it, and unguarded those
 * lines cost a node call a fifth of its instructions. Any thread. */
gboolean zkr__log_debug_enabled (void);

/* g_debug() for zkr's own lines: the message is formatted only when the
 * debug log is on (zkr__log_debug_enabled()). Every debug line of core/ and
 * recipes/ goes through it: unguarded, the lock's step lines alone cost a
 * contended acquisition 14 allocations and about 23,000 instructions
 * (docs/performance.md, "Allocations and instructions per acquisition"). */
#define zkr__debug(...)                   \
  G_STMT_START                            \
  {                                       \
    if (zkr__log_debug_enabled ())        \
      g_debug (__VA_ARGS__);              \
  }                                       \
  G_STMT_END
