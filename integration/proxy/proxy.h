/* zkr test proxy: a loopback TCP proxy between one client and the ensemble
 * that can black-hole (sockets stay open, no byte passes), heal and reset its
 * connections, so a test can partition a single client without root. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ZkrTestProxy ZkrTestProxy;

/* Creates a proxy listening on 127.0.0.1 on an ephemeral port and starts its
 * thread. @upstreams is a comma-separated list of HOST:PORT (numeric
 * addresses or names, IPv6 as [ADDR]:PORT); each accepted connection is
 * forwarded to one of them, trying the next on connect failure, and the first
 * one tried rotates per connection so reconnects spread over the ensemble.
 * Returns (transfer full) a proxy for zkr_test_proxy_free(), or NULL with
 * @error set in ZKR_TEST_PROXY_ERROR (bad upstream list, socket failure). */
ZkrTestProxy *zkr_test_proxy_new (const char *upstreams, GError **error);

/* As zkr_test_proxy_new(), listening on @listen_port (0: ephemeral). */
ZkrTestProxy *zkr_test_proxy_new_full (const char *upstreams,
                                       guint16 listen_port,
                                       GError **error);

/* The listening port on 127.0.0.1. Any thread. */
guint16 zkr_test_proxy_get_port (ZkrTestProxy *proxy);

/* "127.0.0.1:PORT", (transfer full): g_free() it. Any thread. */
char *zkr_test_proxy_dup_address (ZkrTestProxy *proxy);

/* Stops passing bytes both ways without closing anything: bytes stay in the
 * kernel's socket buffers, as in a real partition. New connections wait in
 * the listen backlog (their connect() succeeds) and get nothing. When this
 * returns, the proxy thread has seen the change: no byte passes afterwards.
 * Any thread but the proxy's. */
void zkr_test_proxy_blackhole (ZkrTestProxy *proxy);

/* Passes bytes again, including those sent during the black-hole, and
 * accepts the connections waiting in the backlog. Any thread. */
void zkr_test_proxy_heal (ZkrTestProxy *proxy);

/* Closes every current connection at once, both sides, with a RST
 * (SO_LINGER 0). Connections still in the listen backlog are not touched.
 * When this returns, the connections are closed. Any thread. */
void zkr_test_proxy_reset (ZkrTestProxy *proxy);

/* Holds every byte read from now on, either way, @delay_us microseconds
 * before passing it on (0: none), so a round trip through the proxy takes
 * twice that longer: a slower network for benchmarks. Bytes never overtake
 * each other; those already held keep their time. When this returns, the
 * proxy thread applies it. Any thread but the proxy's. */
void zkr_test_proxy_set_delay (ZkrTestProxy *proxy, guint delay_us);

/* The number of client connections the proxy currently forwards (accepted
 * and not yet closed). Any thread. */
guint zkr_test_proxy_get_connection_count (ZkrTestProxy *proxy);

/* Stops the thread and closes every socket. Not from the proxy's thread. */
void zkr_test_proxy_free (ZkrTestProxy *proxy);

/* Error domain of zkr_test_proxy_new(); codes are errno values. */
#define ZKR_TEST_PROXY_ERROR (zkr_test_proxy_error_quark ())
GQuark zkr_test_proxy_error_quark (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZkrTestProxy, zkr_test_proxy_free)

G_END_DECLS
