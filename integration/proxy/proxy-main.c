/* zkr-test-proxy: the test proxy as a program for shell-driven tests.
 * Prints "listening 127.0.0.1:PORT", then obeys one command per stdin line
 * (blackhole, heal, reset, delay US, count, quit) and answers each on
 * stdout. */

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy.h"

static gboolean
run_command (ZkrTestProxy *proxy, const char *command)
{
  if (g_str_equal (command, "blackhole"))
    zkr_test_proxy_blackhole (proxy);
  else if (g_str_equal (command, "heal"))
    zkr_test_proxy_heal (proxy);
  else if (g_str_equal (command, "reset"))
    zkr_test_proxy_reset (proxy);
  else if (g_str_equal (command, "count"))
    {
      printf ("%u\n", zkr_test_proxy_get_connection_count (proxy));
      return TRUE;
    }
  else if (g_str_has_prefix (command, "delay "))
    {
      guint64 delay_us;

      if (!g_ascii_string_to_unsigned (command + 6, 10, 0, G_MAXUINT, &delay_us, NULL))
        {
          printf ("error bad delay '%s'\n", command + 6);
          return TRUE;
        }
      zkr_test_proxy_set_delay (proxy, (guint) delay_us);
    }
  else if (g_str_equal (command, "quit"))
    return FALSE;
  else if (*command == '\0')
    return TRUE;
  else
    {
      printf ("error unknown command '%s'\n", command);
      return TRUE;
    }
  printf ("ok\n");
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autofree char *upstreams = NULL;
  int listen_port = 0;
  int delay_us = 0;
  GOptionEntry entries[] = {
    { "upstreams", 'u', 0, G_OPTION_ARG_STRING, &upstreams,
      "Servers to forward to", "HOST:PORT,HOST:PORT" },
    { "listen-port", 'p', 0, G_OPTION_ARG_INT, &listen_port,
      "Port to listen on at 127.0.0.1 (default: ephemeral)", "PORT" },
    { "delay-us", 'd', 0, G_OPTION_ARG_INT, &delay_us,
      "Hold every byte this long each way (a round trip takes twice that longer)", "US" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- loopback TCP proxy for zkr tests");
  g_autoptr (GError) error = NULL;
  g_autoptr (ZkrTestProxy) proxy = NULL;
  g_autofree char *address = NULL;
  char line[256];

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("zkr-test-proxy: %s\n", error->message);
      return 2;
    }
  if (upstreams == NULL || listen_port < 0 || listen_port > 65535 || delay_us < 0)
    {
      g_printerr ("zkr-test-proxy: --upstreams is required, --listen-port must be 0..65535, "
                  "--delay-us >= 0\n");
      return 2;
    }
  proxy = zkr_test_proxy_new_full (upstreams, (guint16) listen_port, &error);
  if (proxy == NULL)
    {
      g_printerr ("zkr-test-proxy: %s\n", error->message);
      return 1;
    }
  zkr_test_proxy_set_delay (proxy, (guint) delay_us);
  address = zkr_test_proxy_dup_address (proxy);
  printf ("listening %s\n", address);
  fflush (stdout);
  while (fgets (line, sizeof line, stdin) != NULL)
    {
      if (!run_command (proxy, g_strstrip (line)))
        break;
      fflush (stdout);
    }
  return 0;
}
