/* zkr internal: connect strings ("host:port[,host:port...][/chroot]"),
 * parsed and checked before they reach zookeeper_init(), which accepts
 * almost anything and fails later, far from the mistake. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *hosts;    /* (owned) "h:p,h:p", the host part as given, no chroot */
  char *chroot;   /* (owned) (nullable) "/x/y"; NULL for none or "/" */
  guint n_hosts;
} ZkrHosts;

/**
 * zkr__hosts_parse:
 * @connect_string: "host:port[,host:port...][/chroot]"
 * @out: (out caller-allocates): filled on success; on failure all NULL/0.
 *   Whatever it held before is overwritten, not freed.
 *
 * Rules: not empty; no whitespace or control characters; comma-separated
 * entries, none empty; each entry is "name:port", "a.b.c.d:port" or
 * "[ipv6]:port", a name made of [A-Za-z0-9.-]; the port decimal 1..65535
 * and required. Everything from the first '/' is the chroot, checked with
 * zkr__path_validate(); "/" alone means no chroot.
 *
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the connect string and the bad
 * entry, e.g. `invalid connect string "a:1,,b:2": empty host entry 2`.
 */
gboolean zkr__hosts_parse (const char *connect_string, ZkrHosts *out, GError **error);

/* Frees the members and zeroes @hosts; safe on a zeroed or cleared one. */
void zkr__hosts_clear (ZkrHosts *hosts);

G_END_DECLS
