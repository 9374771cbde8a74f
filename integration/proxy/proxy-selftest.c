/* Self-test of the zkr test proxy against an echo server in a thread: bytes
 * pass both ways, a black-hole holds them without closing anything, heal
 * releases them, reset delivers a RST, failed upstreams are skipped.
 * Every wait is a poll() with a deadline; silence is asserted over a window. */

#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

/* Generous: the suite also runs under valgrind and tsan. */
#define DEADLINE_MS 10000
/* How long "nothing arrives" is watched for during a black-hole. */
#define SILENCE_MS 300

/* ---- echo server ------------------------------------------------------ */

typedef struct
{
  int listen_fd;
  int stop_fds[2];
  guint16 port;
  GThread *thread;
} EchoServer;

static EchoServer echo;

static void
echo_client (GArray *clients, guint index)
{
  int fd = g_array_index (clients, int, index);
  char buffer[8192];
  gssize n = recv (fd, buffer, sizeof buffer, 0);
  gssize sent = 0;

  while (n > 0 && sent < n)
    {
      gssize w = send (fd, buffer + sent, n - sent, MSG_NOSIGNAL);

      if (w < 0)
        break;
      sent += w;
    }
  if (n <= 0 || sent < n)
    {
      close (fd);
      g_array_remove_index_fast (clients, index);
    }
}

static gpointer
echo_thread (gpointer data)
{
  EchoServer *server = data;
  g_autoptr (GArray) clients = g_array_new (FALSE, FALSE, sizeof (int));

  for (;;)
    {
      g_autofree struct pollfd *pfds = g_new0 (struct pollfd, clients->len + 2);

      pfds[0] = (struct pollfd) { .fd = server->stop_fds[0], .events = POLLIN };
      pfds[1] = (struct pollfd) { .fd = server->listen_fd, .events = POLLIN };
      for (guint i = 0; i < clients->len; i++)
        pfds[i + 2] = (struct pollfd) { .fd = g_array_index (clients, int, i), .events = POLLIN };
      if (poll (pfds, clients->len + 2, -1) < 0)
        continue;
      if (pfds[0].revents)
        break;
      for (guint i = clients->len; i-- > 0;)
        if (pfds[i + 2].revents)
          echo_client (clients, i);
      if (pfds[1].revents)
        {
          int fd = accept4 (server->listen_fd, NULL, NULL, SOCK_CLOEXEC);

          if (fd >= 0)
            g_array_append_val (clients, fd);
        }
    }
  for (guint i = 0; i < clients->len; i++)
    close (g_array_index (clients, int, i));
  return NULL;
}

/* A bound socket that is not listening: connecting to its port is refused,
 * and nobody else can take the port while it is held. */
static int
bind_loopback (guint16 *port)
{
  struct sockaddr_in address = { .sin_family = AF_INET };
  socklen_t len = sizeof address;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert (fd >= 0);
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert (bind (fd, (struct sockaddr *) &address, sizeof address) == 0);
  g_assert (getsockname (fd, (struct sockaddr *) &address, &len) == 0);
  *port = ntohs (address.sin_port);
  return fd;
}

static int
suite_init (void)
{
  echo.listen_fd = bind_loopback (&echo.port);
  if (listen (echo.listen_fd, 64) < 0 || pipe2 (echo.stop_fds, O_CLOEXEC) < 0)
    return -1;
  echo.thread = g_thread_new ("echo", echo_thread, &echo);
  return 0;
}

static int
suite_cleanup (void)
{
  (void) !write (echo.stop_fds[1], "x", 1);
  g_thread_join (echo.thread);
  close (echo.listen_fd);
  close (echo.stop_fds[0]);
  close (echo.stop_fds[1]);
  return 0;
}

/* ---- helpers ---------------------------------------------------------- */

static ZkrTestProxy *
proxy_new_checked (const char *upstreams)
{
  g_autoptr (GError) error = NULL;
  ZkrTestProxy *proxy = zkr_test_proxy_new (upstreams, &error);

  if (error != NULL)
    g_printerr ("zkr_test_proxy_new: %s\n", error->message);
  return proxy;
}

/* A proxy in front of the echo server. */
static ZkrTestProxy *
echo_proxy_new (void)
{
  g_autofree char *upstreams = g_strdup_printf ("127.0.0.1:%u", echo.port);

  return proxy_new_checked (upstreams);
}

/* A client connection to @proxy, or -1. */
static int
proxy_connect (ZkrTestProxy *proxy)
{
  struct sockaddr_in address = { .sin_family = AF_INET };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  address.sin_port = htons (zkr_test_proxy_get_port (proxy));
  if (fd >= 0 && connect (fd, (struct sockaddr *) &address, sizeof address) < 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static gboolean
send_text (int fd, const char *text)
{
  return send (fd, text, strlen (text), MSG_NOSIGNAL) == (gssize) strlen (text);
}

/* Reads until @len bytes came, EOF, an error or the deadline. Returns the
 * byte count; *last_errno is 0 on EOF/success, errno on error, ETIMEDOUT. */
static gsize
read_within (int fd, char *buffer, gsize len, int timeout_ms, int *last_errno)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;
  gsize got = 0;

  *last_errno = 0;
  while (got < len)
    {
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / G_TIME_SPAN_MILLISECOND;
      gssize n;

      if (left_ms <= 0 || poll (&pfd, 1, (int) left_ms) == 0)
        {
          *last_errno = ETIMEDOUT;
          break;
        }
      n = recv (fd, buffer + got, len - got, 0);
      if (n == 0)
        break;
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *last_errno = errno;
          break;
        }
      got += n;
    }
  return got;
}

/* TRUE when @text comes back on @fd before the deadline. */
static gboolean
expect_text (int fd, const char *text)
{
  gsize len = strlen (text);
  g_autofree char *buffer = g_malloc0 (len + 1);
  int last_errno;

  return read_within (fd, buffer, len, DEADLINE_MS, &last_errno) == len
         && memcmp (buffer, text, len) == 0;
}

static gboolean
round_trip (int fd, const char *text)
{
  return send_text (fd, text) && expect_text (fd, text);
}

/* TRUE when for SILENCE_MS nothing happens on @fd: no byte, no EOF, no
 * error. That is all a black-holed peer can observe. */
static gboolean
stays_silent (int fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };

  return poll (&pfd, 1, SILENCE_MS) == 0;
}

static gboolean
wait_for_count (ZkrTestProxy *proxy, guint expected)
{
  gint64 deadline = g_get_monotonic_time () + DEADLINE_MS * G_TIME_SPAN_MILLISECOND;

  while (zkr_test_proxy_get_connection_count (proxy) != expected)
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_usleep (5 * G_TIME_SPAN_MILLISECOND);
    }
  return TRUE;
}

/* ---- tests ------------------------------------------------------------ */

static void
test_proxy__passes_bytes_both_ways (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  g_autofree char *address = NULL;
  g_autofree char *expected_address = NULL;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  address = zkr_test_proxy_dup_address (proxy);
  expected_address = g_strdup_printf ("127.0.0.1:%u", zkr_test_proxy_get_port (proxy));
  CU_ASSERT_STRING_EQUAL (address, expected_address);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (round_trip (fd, "hello"));
  CU_ASSERT (round_trip (fd, "again"));
  CU_ASSERT (wait_for_count (proxy, 1));
  close (fd);
  CU_ASSERT (wait_for_count (proxy, 0));
}

static void
test_proxy__blackhole_holds_bytes_and_keeps_socket_open (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (round_trip (fd, "before"));

  zkr_test_proxy_blackhole (proxy);
  CU_ASSERT (send_text (fd, "during"));
  CU_ASSERT (stays_silent (fd));
  CU_ASSERT (send_text (fd, "+more"));
  CU_ASSERT (stays_silent (fd));
  CU_ASSERT_EQUAL (zkr_test_proxy_get_connection_count (proxy), 1);

  zkr_test_proxy_heal (proxy);
  CU_ASSERT (expect_text (fd, "during+more"));
  CU_ASSERT (round_trip (fd, "after"));
  close (fd);
}

/* A delay holds bytes at least that long each way (a bound that load can
 * only lengthen, never break), keeps them in order, and goes with 0. */
static void
test_proxy__delay_holds_bytes_both_ways_in_order (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  gint64 sent;
  gint64 took_us;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (round_trip (fd, "before"));
  zkr_test_proxy_set_delay (proxy, 50 * 1000);
  sent = g_get_monotonic_time ();
  CU_ASSERT (send_text (fd, "one,"));
  CU_ASSERT (send_text (fd, "two,"));
  CU_ASSERT (send_text (fd, "three"));
  CU_ASSERT (expect_text (fd, "one,two,three"));
  took_us = g_get_monotonic_time () - sent;
  /* Out through the delay and back through it again. */
  CU_ASSERT (took_us >= 2 * 50 * 1000);
  zkr_test_proxy_set_delay (proxy, 0);
  CU_ASSERT (round_trip (fd, "after"));
  close (fd);
}

static void
test_proxy__blackhole_leaves_new_connections_waiting (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  zkr_test_proxy_blackhole (proxy);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (send_text (fd, "knock"));
  CU_ASSERT (stays_silent (fd));
  CU_ASSERT_EQUAL (zkr_test_proxy_get_connection_count (proxy), 0);

  zkr_test_proxy_heal (proxy);
  CU_ASSERT (expect_text (fd, "knock"));
  CU_ASSERT_EQUAL (zkr_test_proxy_get_connection_count (proxy), 1);
  close (fd);
}

static void
test_proxy__reset_sends_rst_to_every_connection (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  int fds[2];
  char byte;
  int last_errno;

  CU_ASSERT_FATAL (proxy != NULL);
  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    {
      fds[i] = proxy_connect (proxy);
      CU_ASSERT_FATAL (fds[i] >= 0);
      CU_ASSERT (round_trip (fds[i], "ping"));
    }
  CU_ASSERT (wait_for_count (proxy, 2));

  zkr_test_proxy_reset (proxy);
  CU_ASSERT_EQUAL (zkr_test_proxy_get_connection_count (proxy), 0);
  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    {
      CU_ASSERT_EQUAL (read_within (fds[i], &byte, 1, DEADLINE_MS, &last_errno), 0);
      CU_ASSERT_EQUAL (last_errno, ECONNRESET);
      close (fds[i]);
    }

  /* The proxy keeps accepting after a reset. */
  fds[0] = proxy_connect (proxy);
  CU_ASSERT_FATAL (fds[0] >= 0);
  CU_ASSERT (round_trip (fds[0], "again"));
  close (fds[0]);
}

static void
test_proxy__reset_during_blackhole_closes_held_connections (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  char byte;
  int last_errno;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (round_trip (fd, "ping"));
  zkr_test_proxy_blackhole (proxy);
  zkr_test_proxy_reset (proxy);
  CU_ASSERT_EQUAL (read_within (fd, &byte, 1, DEADLINE_MS, &last_errno), 0);
  CU_ASSERT_EQUAL (last_errno, ECONNRESET);
  close (fd);
}

static void
test_proxy__skips_refusing_upstreams (void)
{
  guint16 dead_port;
  int dead_fd = bind_loopback (&dead_port);
  g_autofree char *upstreams = g_strdup_printf ("127.0.0.1:%u, 127.0.0.1:%u", dead_port, echo.port);
  g_autoptr (ZkrTestProxy) proxy = proxy_new_checked (upstreams);

  CU_ASSERT_FATAL (proxy != NULL);
  /* The first upstream tried rotates, so both orders are exercised. */
  for (guint i = 0; i < 4; i++)
    {
      int fd = proxy_connect (proxy);

      CU_ASSERT_FATAL (fd >= 0);
      CU_ASSERT (round_trip (fd, "through"));
      close (fd);
    }
  close (dead_fd);
}

static void
test_proxy__closes_client_when_no_upstream_accepts (void)
{
  guint16 dead_port;
  int dead_fd = bind_loopback (&dead_port);
  g_autofree char *upstreams = g_strdup_printf ("127.0.0.1:%u", dead_port);
  g_autoptr (ZkrTestProxy) proxy = proxy_new_checked (upstreams);
  char byte;
  int last_errno;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT_EQUAL (read_within (fd, &byte, 1, DEADLINE_MS, &last_errno), 0);
  CU_ASSERT_EQUAL (last_errno, 0); /* EOF */
  close (fd);
  close (dead_fd);
}

static void
test_proxy__passes_eof_and_forgets_the_link (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  char buffer[8];
  int last_errno;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (round_trip (fd, "bye"));
  CU_ASSERT_EQUAL (shutdown (fd, SHUT_WR), 0);
  /* The echo server closes on EOF; the proxy passes that back. */
  CU_ASSERT_EQUAL (read_within (fd, buffer, sizeof buffer, DEADLINE_MS, &last_errno), 0);
  CU_ASSERT_EQUAL (last_errno, 0);
  CU_ASSERT (wait_for_count (proxy, 0));
  close (fd);
}

static void
test_proxy__moves_a_megabyte_intact (void)
{
  g_autoptr (ZkrTestProxy) proxy = echo_proxy_new ();
  const gsize total = 1024 * 1024;
  g_autofree guint8 *out = g_malloc (total);
  g_autofree guint8 *in = g_malloc0 (total);
  gint64 deadline = g_get_monotonic_time () + DEADLINE_MS * G_TIME_SPAN_MILLISECOND;
  gsize sent = 0, received = 0;
  int fd;

  CU_ASSERT_FATAL (proxy != NULL);
  for (gsize i = 0; i < total; i++)
    out[i] = (guint8) (i * 7 + i / 251);
  fd = proxy_connect (proxy);
  CU_ASSERT_FATAL (fd >= 0);
  /* Write and read at once from one thread: the buffers along the way are
   * far smaller than a megabyte, so this exercises the proxy's backpressure. */
  while (received < total && g_get_monotonic_time () < deadline)
    {
      struct pollfd pfd = { .fd = fd, .events = POLLIN | (sent < total ? POLLOUT : 0) };
      gssize n;

      if (poll (&pfd, 1, 100) <= 0)
        continue;
      if ((pfd.revents & POLLOUT)
          && (n = send (fd, out + sent, MIN (total - sent, 65536), MSG_NOSIGNAL | MSG_DONTWAIT)) > 0)
        sent += n;
      if ((pfd.revents & POLLIN)
          && (n = recv (fd, in + received, total - received, MSG_DONTWAIT)) > 0)
        received += n;
    }
  CU_ASSERT_EQUAL (received, total);
  CU_ASSERT (memcmp (in, out, total) == 0);
  close (fd);
}

static void
test_proxy__rejects_malformed_upstreams (void)
{
  const char *bad[] = { "", " , ", "no-port", "127.0.0.1:", ":2181", "[::1]2181" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      ZkrTestProxy *proxy = zkr_test_proxy_new (bad[i], &error);

      CU_ASSERT_PTR_NULL (proxy);
      CU_ASSERT (g_error_matches (error, ZKR_TEST_PROXY_ERROR, EINVAL));
      zkr_test_proxy_free (proxy);
    }
}

int
main (void)
{
  static const struct
  {
    const char *name;
    CU_TestFunc func;
  } tests[] = {
#define TEST(f) { #f, f }
    TEST (test_proxy__passes_bytes_both_ways),
    TEST (test_proxy__blackhole_holds_bytes_and_keeps_socket_open),
    TEST (test_proxy__blackhole_leaves_new_connections_waiting),
    TEST (test_proxy__delay_holds_bytes_both_ways_in_order),
    TEST (test_proxy__reset_sends_rst_to_every_connection),
    TEST (test_proxy__reset_during_blackhole_closes_held_connections),
    TEST (test_proxy__skips_refusing_upstreams),
    TEST (test_proxy__closes_client_when_no_upstream_accepts),
    TEST (test_proxy__passes_eof_and_forgets_the_link),
    TEST (test_proxy__moves_a_megabyte_intact),
    TEST (test_proxy__rejects_malformed_upstreams),
#undef TEST
  };
  CU_pSuite suite;
  unsigned int failed;

  if (CU_initialize_registry () != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite ("proxy", suite_init, suite_cleanup);
  for (guint i = 0; suite != NULL && i < G_N_ELEMENTS (tests); i++)
    CU_add_test (suite, tests[i].name, tests[i].func);
  if (CU_get_error () != CUE_SUCCESS)
    {
      CU_cleanup_registry ();
      return 1;
    }
  CU_basic_set_mode (CU_BRM_VERBOSE);
  CU_basic_run_tests ();
  failed = CU_get_number_of_tests_failed () + CU_get_number_of_suites_failed ();
  CU_cleanup_registry ();
  return failed == 0 ? 0 : 1;
}
