/* zkr test proxy: one thread polls the listening socket, every forwarded
 * connection and a wakeup pipe. Control calls change the shared state under
 * the one mutex, wake the thread and wait until it has applied the change, so
 * "no byte passes after blackhole() returns" holds without sleeps. A delay
 * holds every chunk read for a while before it may be written on: each read
 * is stamped with the time it may leave, and the poll sleeps until the
 * earliest such time. */

#include "proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DIRECTION_BUFFER_SIZE 16384
#define LISTEN_BACKLOG 128

G_DEFINE_QUARK (zkr-test-proxy-error-quark, zkr_test_proxy_error)

typedef struct
{
  struct sockaddr_storage address;
  socklen_t address_len;
  char *name; /* "HOST:PORT" as given, for messages */
} Upstream;

/* One read's bytes: they end at @end in the buffer and may be written on
 * from @due (monotonic µs) on. */
typedef struct
{
  gsize end;
  gint64 due;
} Chunk;

/* Bytes read from one socket and not yet written to the other. */
typedef struct
{
  char data[DIRECTION_BUFFER_SIZE];
  gsize len;
  GArray *chunks;           /* of Chunk, in buffer order (so in due order) */
  gboolean source_eof;      /* the reading side sent FIN */
  gboolean destination_shut; /* FIN passed on with shutdown (SHUT_WR) */
} Direction;

typedef enum
{
  LINK_CONNECTING, /* upstream connect() in progress */
  LINK_OPEN,
} LinkState;

typedef struct
{
  int client_fd;
  int upstream_fd;
  LinkState state;
  guint first_upstream; /* where this link's connect attempts started */
  guint attempts;       /* upstreams tried so far */
  Direction to_upstream;
  Direction to_client;
} Link;

struct _ZkrTestProxy
{
  /* Fixed before the thread starts. */
  int listen_fd;
  guint16 port;
  GArray *upstreams; /* of Upstream */
  int wake_read_fd;
  int wake_write_fd;
  GThread *thread;

  pthread_mutex_t lock;
  pthread_cond_t applied_cond;
  /* Under lock. A control call bumps requested_generation and waits until
   * the thread has copied it to applied_generation. */
  gboolean blackholed;
  gboolean quitting;
  guint64 requested_generation;
  guint64 reset_generation; /* requested_generation of the latest reset */
  guint64 applied_generation;
  guint connection_count;
  gint64 delay_us;           /* one way, for every byte read from now on */

  /* Proxy thread only (and the freeing thread after the join). */
  GPtrArray *links; /* of Link */
  guint next_upstream;
  guint64 reset_done_generation;
  gint64 applied_delay_us;
};

/* The lock is a pthread mutex, not a GMutex: Debian's GLib 2.74 builds
 * GMutex and GCond on futexes inside the library, which ThreadSanitizer does
 * not instrument, so it would see no ordering and report every access made
 * under the lock as a race. pthread calls are intercepted by every tool. */
static void
proxy_lock (ZkrTestProxy *proxy)
{
  pthread_mutex_lock (&proxy->lock);
}

static void
proxy_unlock (ZkrTestProxy *proxy)
{
  pthread_mutex_unlock (&proxy->lock);
}

static void
set_errno_error (GError **error, int saved_errno, const char *what)
{
  g_set_error (error, ZKR_TEST_PROXY_ERROR, saved_errno, "%s: %s", what,
               g_strerror (saved_errno));
}

static void
set_nodelay (int fd)
{
  int on = 1;

  /* ZooKeeper's packets are small; Nagle plus delayed ACKs would add
   * tens of milliseconds per hop that the client never sees without us. */
  (void) setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

/* ---- upstream list ---------------------------------------------------- */

static gboolean
split_host_port (const char *entry, char **host, char **port, GError **error)
{
  const char *colon;

  if (entry[0] == '[')
    {
      const char *end = strchr (entry, ']');

      if (end == NULL || end[1] != ':')
        goto bad;
      *host = g_strndup (entry + 1, end - entry - 1);
      *port = g_strdup (end + 2);
      return TRUE;
    }
  colon = strrchr (entry, ':');
  if (colon == NULL || colon == entry || colon[1] == '\0')
    goto bad;
  *host = g_strndup (entry, colon - entry);
  *port = g_strdup (colon + 1);
  return TRUE;

bad:
  g_set_error (error, ZKR_TEST_PROXY_ERROR, EINVAL,
               "upstream '%s' is not HOST:PORT", entry);
  return FALSE;
}

static gboolean
resolve_upstream (const char *entry, Upstream *upstream, GError **error)
{
  g_autofree char *host = NULL;
  g_autofree char *port = NULL;
  struct addrinfo hints = { 0 };
  struct addrinfo *result = NULL;
  int rc;

  if (!split_host_port (entry, &host, &port, error))
    return FALSE;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  rc = getaddrinfo (host, port, &hints, &result);
  if (rc != 0)
    {
      g_set_error (error, ZKR_TEST_PROXY_ERROR, EINVAL,
                   "upstream '%s': %s", entry, gai_strerror (rc));
      return FALSE;
    }
  memcpy (&upstream->address, result->ai_addr, result->ai_addrlen);
  upstream->address_len = result->ai_addrlen;
  upstream->name = g_strdup (entry);
  freeaddrinfo (result);
  return TRUE;
}

static void
upstream_clear (gpointer data)
{
  Upstream *upstream = data;

  g_free (upstream->name);
}

static GArray *
parse_upstreams (const char *upstreams, GError **error)
{
  g_auto (GStrv) entries = g_strsplit (upstreams, ",", -1);
  g_autoptr (GArray) result = g_array_new (FALSE, TRUE, sizeof (Upstream));

  g_array_set_clear_func (result, upstream_clear);
  for (guint i = 0; entries[i] != NULL; i++)
    {
      Upstream upstream = { 0 };
      char *entry = g_strstrip (entries[i]);

      if (*entry == '\0')
        continue;
      if (!resolve_upstream (entry, &upstream, error))
        return NULL;
      g_array_append_val (result, upstream);
    }
  if (result->len == 0)
    {
      g_set_error (error, ZKR_TEST_PROXY_ERROR, EINVAL,
                   "no upstream in '%s'", upstreams);
      return NULL;
    }
  return g_steal_pointer (&result);
}

/* ---- links ------------------------------------------------------------ */

static void
close_abortively (int fd)
{
  struct linger linger = { .l_onoff = 1, .l_linger = 0 };

  if (fd < 0)
    return;
  /* SO_LINGER 0 turns close() into a RST: the peer sees ECONNRESET at
   * once, as when a NAT box or a crashed host forgets the connection. */
  (void) setsockopt (fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
  close (fd);
}

static void
link_free (Link *link)
{
  g_array_unref (link->to_upstream.chunks);
  g_array_unref (link->to_client.chunks);
  if (link->client_fd >= 0)
    close (link->client_fd);
  if (link->upstream_fd >= 0)
    close (link->upstream_fd);
  g_free (link);
}

static void
reset_links (ZkrTestProxy *proxy)
{
  for (guint i = 0; i < proxy->links->len; i++)
    {
      Link *link = g_ptr_array_index (proxy->links, i);

      close_abortively (link->client_fd);
      close_abortively (link->upstream_fd);
      link->client_fd = -1;
      link->upstream_fd = -1;
    }
  g_ptr_array_set_size (proxy->links, 0);
}

/* Starts a connect to the next untried upstream. FALSE when every upstream
 * has been tried. */
static gboolean
link_connect_next (ZkrTestProxy *proxy, Link *link)
{
  while (link->attempts < proxy->upstreams->len)
    {
      guint index = (link->first_upstream + link->attempts) % proxy->upstreams->len;
      Upstream *upstream = &g_array_index (proxy->upstreams, Upstream, index);
      int fd;

      link->attempts++;
      fd = socket (upstream->address.ss_family,
                   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0)
        continue;
      set_nodelay (fd);
      link->upstream_fd = fd;
      if (connect (fd, (struct sockaddr *) &upstream->address,
                   upstream->address_len) == 0)
        {
          link->state = LINK_OPEN;
          return TRUE;
        }
      if (errno == EINPROGRESS)
        {
          link->state = LINK_CONNECTING;
          return TRUE;
        }
      close (fd);
      link->upstream_fd = -1;
    }
  return FALSE;
}

/* The upstream connect finished (or failed): open the link or move on. */
static gboolean
link_finish_connect (ZkrTestProxy *proxy, Link *link)
{
  int socket_error = 0;
  socklen_t len = sizeof socket_error;

  if (getsockopt (link->upstream_fd, SOL_SOCKET, SO_ERROR, &socket_error, &len) == 0
      && socket_error == 0)
    {
      link->state = LINK_OPEN;
      return TRUE;
    }
  close (link->upstream_fd);
  link->upstream_fd = -1;
  return link_connect_next (proxy, link);
}

static gboolean
direction_read (Direction *direction, int fd, short revents, gint64 delay_us)
{
  gssize n;

  if (!(revents & (POLLIN | POLLHUP)) || direction->source_eof
      || direction->len == DIRECTION_BUFFER_SIZE)
    return TRUE;
  n = recv (fd, direction->data + direction->len,
            DIRECTION_BUFFER_SIZE - direction->len, 0);
  if (n > 0)
    {
      Chunk chunk = { .end = direction->len + n, .due = g_get_monotonic_time () + delay_us };

      /* Bytes never overtake earlier ones, even when the delay shrank. */
      if (direction->chunks->len > 0)
        chunk.due = MAX (chunk.due, g_array_index (direction->chunks, Chunk,
                                                   direction->chunks->len - 1).due);
      direction->len += n;
      g_array_append_val (direction->chunks, chunk);
    }
  else if (n == 0)
    direction->source_eof = TRUE;
  else if (errno != EAGAIN && errno != EINTR)
    return FALSE;
  return TRUE;
}

/* How many of the buffered bytes are due at @now. */
static gsize
direction_due (const Direction *direction, gint64 now)
{
  gsize due = 0;

  for (guint i = 0; i < direction->chunks->len; i++)
    {
      const Chunk *chunk = &g_array_index (direction->chunks, Chunk, i);

      if (chunk->due > now)
        break;
      due = chunk->end;
    }
  return due;
}

/* The bytes written on leave the buffer, and the chunks they ended. */
static void
direction_consume (Direction *direction, gsize n)
{
  guint done = 0;

  memmove (direction->data, direction->data + n, direction->len - n);
  direction->len -= n;
  for (guint i = 0; i < direction->chunks->len; i++)
    {
      Chunk *chunk = &g_array_index (direction->chunks, Chunk, i);

      if (chunk->end <= n)
        done++;
      else
        chunk->end -= n;
    }
  g_array_remove_range (direction->chunks, 0, done);
}

/* Writes what is buffered and due (without waiting for POLLOUT: the
 * sockets are non-blocking) and passes a FIN on once the buffer is empty. */
static gboolean
direction_write (Direction *direction, int fd, gint64 now)
{
  gsize due = direction_due (direction, now);

  if (due > 0)
    {
      gssize n = send (fd, direction->data, due, MSG_NOSIGNAL);

      if (n > 0)
        direction_consume (direction, (gsize) n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        return FALSE;
    }
  if (direction->source_eof && direction->len == 0 && !direction->destination_shut)
    {
      (void) shutdown (fd, SHUT_WR);
      direction->destination_shut = TRUE;
    }
  return TRUE;
}

/* Moves bytes both ways. FALSE when the link is finished (both FINs passed
 * on) or broken. */
static gboolean
link_pump (Link *link, short client_revents, short upstream_revents, gint64 delay_us)
{
  gint64 now;

  if ((client_revents | upstream_revents) & (POLLERR | POLLNVAL))
    return FALSE;
  if (!direction_read (&link->to_upstream, link->client_fd, client_revents, delay_us)
      || !direction_read (&link->to_client, link->upstream_fd, upstream_revents, delay_us))
    return FALSE;
  now = g_get_monotonic_time ();
  if (!direction_write (&link->to_upstream, link->upstream_fd, now)
      || !direction_write (&link->to_client, link->client_fd, now))
    return FALSE;
  return !(link->to_upstream.destination_shut && link->to_client.destination_shut);
}

static short
direction_wants_read (const Direction *direction)
{
  return (!direction->source_eof && direction->len < DIRECTION_BUFFER_SIZE) ? POLLIN : 0;
}

/* POLLOUT when bytes are due; else lowers *@wake_at to when the next are. */
static short
direction_wants_write (const Direction *direction, gint64 now, gint64 *wake_at)
{
  if (direction->chunks->len == 0)
    return 0;
  if (direction_due (direction, now) > 0)
    return POLLOUT;
  *wake_at = MIN (*wake_at, g_array_index (direction->chunks, Chunk, 0).due);
  return 0;
}

/* ---- the proxy thread ------------------------------------------------- */

static void
accept_connections (ZkrTestProxy *proxy)
{
  for (;;)
    {
      int fd = accept4 (proxy->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      Link *link;

      if (fd < 0)
        return; /* EAGAIN, or a connection that died in the backlog */
      set_nodelay (fd);
      link = g_new0 (Link, 1);
      link->to_upstream.chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
      link->to_client.chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
      link->client_fd = fd;
      link->upstream_fd = -1;
      /* Rotate the first upstream so a reconnecting client does not land
       * on the same server every time. */
      link->first_upstream = proxy->next_upstream++ % proxy->upstreams->len;
      if (link_connect_next (proxy, link))
        g_ptr_array_add (proxy->links, link);
      else
        link_free (link); /* nowhere to go: the client sees EOF */
    }
}

static void
drain_wakeups (ZkrTestProxy *proxy)
{
  char buffer[64];

  while (read (proxy->wake_read_fd, buffer, sizeof buffer) > 0)
    ;
}

static void
wake (ZkrTestProxy *proxy)
{
  char byte = 1;

  /* A full pipe (EAGAIN) already wakes the thread. */
  (void) !write (proxy->wake_write_fd, &byte, 1);
}

/* Applies the control calls made since the last time: takes the black-hole
 * flag, performs a requested reset, publishes the connection count and
 * releases the waiting callers. FALSE when the proxy is being freed. */
static gboolean
apply_control (ZkrTestProxy *proxy, gboolean *blackholed)
{
  guint64 generation;
  guint64 reset_generation;
  gboolean quitting;

  proxy_lock (proxy);
  *blackholed = proxy->blackholed;
  quitting = proxy->quitting;
  proxy->applied_delay_us = proxy->delay_us;
  generation = proxy->requested_generation;
  reset_generation = proxy->reset_generation;
  proxy_unlock (proxy);

  if (reset_generation > proxy->reset_done_generation)
    {
      reset_links (proxy);
      proxy->reset_done_generation = reset_generation;
    }

  proxy_lock (proxy);
  proxy->applied_generation = generation;
  proxy->connection_count = proxy->links->len;
  pthread_cond_broadcast (&proxy->applied_cond);
  proxy_unlock (proxy);
  return !quitting;
}

/* pollfds: [0] wakeup pipe, [1] listening socket, then client and upstream
 * socket of each link in order. An fd of -1 is ignored by poll(). Returns
 * when delayed bytes are next due (monotonic µs), G_MAXINT64 for never. */
static gint64
build_pollfds (ZkrTestProxy *proxy, GArray *pollfds, gboolean blackholed)
{
  gint64 now = g_get_monotonic_time ();
  gint64 wake_at = G_MAXINT64;
  struct pollfd wake_pfd = { .fd = proxy->wake_read_fd, .events = POLLIN };
  struct pollfd listen_pfd = { .fd = blackholed ? -1 : proxy->listen_fd, .events = POLLIN };

  g_array_set_size (pollfds, 0);
  g_array_append_val (pollfds, wake_pfd);
  g_array_append_val (pollfds, listen_pfd);
  for (guint i = 0; i < proxy->links->len; i++)
    {
      Link *link = g_ptr_array_index (proxy->links, i);
      struct pollfd client = { .fd = -1 };
      struct pollfd upstream = { .fd = -1 };

      if (!blackholed && link->state == LINK_CONNECTING)
        {
          upstream.fd = link->upstream_fd;
          upstream.events = POLLOUT;
        }
      else if (!blackholed)
        {
          client.fd = link->client_fd;
          client.events = direction_wants_read (&link->to_upstream)
                          | direction_wants_write (&link->to_client, now, &wake_at);
          upstream.fd = link->upstream_fd;
          upstream.events = direction_wants_read (&link->to_client)
                            | direction_wants_write (&link->to_upstream, now, &wake_at);
          /* Nothing to wait for on a socket: leave it out, or a hangup it
           * reports would spin the loop while the other side catches up. */
          if (client.events == 0)
            client.fd = -1;
          if (upstream.events == 0)
            upstream.fd = -1;
        }
      g_array_append_val (pollfds, client);
      g_array_append_val (pollfds, upstream);
    }
  return wake_at;
}

static void
service_links (ZkrTestProxy *proxy, const struct pollfd *pfds)
{
  /* Walk backwards so removing a link keeps the earlier indexes valid. */
  for (guint i = proxy->links->len; i-- > 0;)
    {
      Link *link = g_ptr_array_index (proxy->links, i);
      short client_revents = pfds[2 + 2 * i].revents;
      short upstream_revents = pfds[3 + 2 * i].revents;
      gboolean keep;

      if (link->state == LINK_CONNECTING)
        keep = upstream_revents == 0 || link_finish_connect (proxy, link);
      else
        keep = link_pump (link, client_revents, upstream_revents, proxy->applied_delay_us);
      if (!keep)
        g_ptr_array_remove_index_fast (proxy->links, i);
    }
}

static gpointer
proxy_thread (gpointer data)
{
  ZkrTestProxy *proxy = data;
  g_autoptr (GArray) pollfds = g_array_new (FALSE, TRUE, sizeof (struct pollfd));
  gboolean blackholed;

  while (apply_control (proxy, &blackholed))
    {
      gint64 wake_at = build_pollfds (proxy, pollfds, blackholed);
      gint64 wait_us = wake_at == G_MAXINT64 ? -1 : MAX (wake_at - g_get_monotonic_time (), 0);
      /* ppoll: poll()'s milliseconds would round a short delay up to a
       * whole one at every hop. */
      struct timespec timeout = { .tv_sec = wait_us / G_USEC_PER_SEC,
                                  .tv_nsec = (wait_us % G_USEC_PER_SEC) * 1000 };

      if (ppoll ((struct pollfd *) pollfds->data, pollfds->len, wait_us < 0 ? NULL : &timeout,
                 NULL) < 0)
        {
          if (errno != EINTR)
            g_error ("zkr test proxy: poll: %s", g_strerror (errno));
          continue;
        }
      /* The pollfds were built for the old state; a control call that
       * woke us must win before any byte moves. */
      if (g_array_index (pollfds, struct pollfd, 0).revents)
        {
          drain_wakeups (proxy);
          continue;
        }
      if (blackholed)
        continue;
      /* Links first: accepting appends links that have no pollfd yet. */
      service_links (proxy, (struct pollfd *) pollfds->data);
      if (g_array_index (pollfds, struct pollfd, 1).revents)
        accept_connections (proxy);
    }
  return NULL;
}

/* ---- public API ------------------------------------------------------- */

static int
open_listener (guint16 port, guint16 *bound_port, GError **error)
{
  struct sockaddr_in address = { .sin_family = AF_INET };
  socklen_t len = sizeof address;
  int on = 1;
  int fd;

  fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      set_errno_error (error, errno, "socket");
      return -1;
    }
  (void) setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  address.sin_port = htons (port);
  if (bind (fd, (struct sockaddr *) &address, sizeof address) < 0
      || listen (fd, LISTEN_BACKLOG) < 0
      || getsockname (fd, (struct sockaddr *) &address, &len) < 0)
    {
      int saved_errno = errno;
      g_autofree char *what = g_strdup_printf ("listening on 127.0.0.1:%u", port);

      close (fd);
      set_errno_error (error, saved_errno, what);
      return -1;
    }
  *bound_port = ntohs (address.sin_port);
  return fd;
}

ZkrTestProxy *
zkr_test_proxy_new_full (const char *upstreams, guint16 listen_port, GError **error)
{
  ZkrTestProxy *proxy;
  GArray *parsed;
  int wake_fds[2];

  g_return_val_if_fail (upstreams != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parsed = parse_upstreams (upstreams, error);
  if (parsed == NULL)
    return NULL;
  if (pipe2 (wake_fds, O_CLOEXEC | O_NONBLOCK) < 0)
    {
      set_errno_error (error, errno, "pipe2");
      g_array_unref (parsed);
      return NULL;
    }
  proxy = g_new0 (ZkrTestProxy, 1);
  proxy->upstreams = parsed;
  proxy->wake_read_fd = wake_fds[0];
  proxy->wake_write_fd = wake_fds[1];
  proxy->links = g_ptr_array_new_with_free_func ((GDestroyNotify) link_free);
  pthread_mutex_init (&proxy->lock, NULL);
  pthread_cond_init (&proxy->applied_cond, NULL);
  proxy->listen_fd = open_listener (listen_port, &proxy->port, error);
  if (proxy->listen_fd < 0)
    {
      zkr_test_proxy_free (proxy);
      return NULL;
    }
  proxy->thread = g_thread_new ("zkr-test-proxy", proxy_thread, proxy);
  return proxy;
}

ZkrTestProxy *
zkr_test_proxy_new (const char *upstreams, GError **error)
{
  return zkr_test_proxy_new_full (upstreams, 0, error);
}

guint16
zkr_test_proxy_get_port (ZkrTestProxy *proxy)
{
  g_return_val_if_fail (proxy != NULL, 0);
  return proxy->port;
}

char *
zkr_test_proxy_dup_address (ZkrTestProxy *proxy)
{
  g_return_val_if_fail (proxy != NULL, NULL);
  return g_strdup_printf ("127.0.0.1:%u", proxy->port);
}

typedef enum
{
  CONTROL_BLACKHOLE,
  CONTROL_HEAL,
  CONTROL_RESET,
  CONTROL_DELAY,
} Control;

/* Hands a change to the proxy thread and waits until it has applied it. */
static void
request_control (ZkrTestProxy *proxy, Control control, gint64 delay_us)
{
  guint64 generation;

  proxy_lock (proxy);
  generation = ++proxy->requested_generation;
  switch (control)
    {
    case CONTROL_BLACKHOLE:
      proxy->blackholed = TRUE;
      break;
    case CONTROL_HEAL:
      proxy->blackholed = FALSE;
      break;
    case CONTROL_RESET:
      proxy->reset_generation = generation;
      break;
    case CONTROL_DELAY:
      proxy->delay_us = delay_us;
      break;
    }
  wake (proxy);
  while (proxy->applied_generation < generation)
    pthread_cond_wait (&proxy->applied_cond, &proxy->lock);
  proxy_unlock (proxy);
}

void
zkr_test_proxy_blackhole (ZkrTestProxy *proxy)
{
  g_return_if_fail (proxy != NULL);
  request_control (proxy, CONTROL_BLACKHOLE, 0);
}

void
zkr_test_proxy_heal (ZkrTestProxy *proxy)
{
  g_return_if_fail (proxy != NULL);
  request_control (proxy, CONTROL_HEAL, 0);
}

void
zkr_test_proxy_reset (ZkrTestProxy *proxy)
{
  g_return_if_fail (proxy != NULL);
  request_control (proxy, CONTROL_RESET, 0);
}

void
zkr_test_proxy_set_delay (ZkrTestProxy *proxy, guint delay_us)
{
  g_return_if_fail (proxy != NULL);
  request_control (proxy, CONTROL_DELAY, delay_us);
}

guint
zkr_test_proxy_get_connection_count (ZkrTestProxy *proxy)
{
  guint count;

  g_return_val_if_fail (proxy != NULL, 0);
  proxy_lock (proxy);
  count = proxy->connection_count;
  proxy_unlock (proxy);
  return count;
}

void
zkr_test_proxy_free (ZkrTestProxy *proxy)
{
  if (proxy == NULL)
    return;
  if (proxy->thread != NULL)
    {
      proxy_lock (proxy);
      proxy->quitting = TRUE;
      wake (proxy);
      proxy_unlock (proxy);
      g_thread_join (proxy->thread);
    }
  g_ptr_array_unref (proxy->links);
  if (proxy->listen_fd >= 0)
    close (proxy->listen_fd);
  close (proxy->wake_read_fd);
  close (proxy->wake_write_fd);
  g_array_unref (proxy->upstreams);
  pthread_mutex_destroy (&proxy->lock);
  pthread_cond_destroy (&proxy->applied_cond);
  g_free (proxy);
}
