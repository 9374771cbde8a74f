/* zkr: connect-string parsing. libzookeeper takes "h:p,h:p/chroot" as it
 * is and only fails when it resolves or connects; checking here turns a
 * typo into an INVALID_ARGUMENT error that names the bad entry. */

#include <arpa/inet.h>
#include <string.h>

#include <zkr/error.h>

#include "hosts.h"
#include "path.h"

/* Sets `invalid connect string "CS": PROBLEM`. Takes @problem. */
static gboolean
set_invalid (GError **error, const char *connect_string, char *problem)
{
  g_autofree char *quoted = zkr__path_quote_value (connect_string, -1);

  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "invalid connect string %s: %s", quoted, problem);
  g_free (problem);
  return FALSE;
}

static char *
port_problem (const char *port)
{
  gsize len = strlen (port);
  guint value = 0;
  gsize i;

  if (len == 0)
    return g_strdup ("missing port");
  for (i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (port[i]))
        return g_strdup ("port is not a decimal number");
      /* Saturate instead of overflowing; anything past 65535 is refused. */
      value = MIN (value * 10 + (guint) (port[i] - '0'), 100000u);
    }
  if (value < 1 || value > 65535)
    return g_strdup ("port out of range 1..65535");
  return NULL;
}

static gboolean
is_dotted_numbers (const char *host)
{
  return host[strspn (host, "0123456789.")] == '\0';
}

static char *
host_name_problem (const char *host)
{
  const char *p;

  if (host[0] == '\0')
    return g_strdup ("empty host name");
  for (p = host; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '-')
      return g_strdup_printf ("invalid character 0x%02x in host name", (guchar) *p);
  if (host[0] == '.' || strstr (host, "..") != NULL)
    return g_strdup ("empty label in host name");
  /* All digits and dots is meant as an address: "10.0.0.300" must not be
   * sent to the resolver as a name. */
  if (is_dotted_numbers (host))
    {
      struct in_addr addr;

      if (inet_pton (AF_INET, host, &addr) != 1)
        return g_strdup ("invalid IPv4 address");
    }
  return NULL;
}

/* "[addr]:port" */
static char *
bracketed_entry_problem (const char *entry)
{
  const char *close = strchr (entry, ']');
  g_autofree char *address = NULL;
  struct in6_addr addr;

  if (close == NULL)
    return g_strdup ("'[' without ']'");
  address = g_strndup (entry + 1, (gsize) (close - entry - 1));
  if (inet_pton (AF_INET6, address, &addr) != 1)
    return g_strdup ("invalid IPv6 address");
  if (close[1] == '\0')
    return g_strdup ("missing port");
  if (close[1] != ':')
    return g_strdup ("expected ':' after ']'");
  return port_problem (close + 2);
}

static char *
entry_problem (const char *entry)
{
  const char *colon;
  g_autofree char *host = NULL;
  char *problem;

  if (entry[0] == '[')
    return bracketed_entry_problem (entry);
  colon = strrchr (entry, ':');
  if (colon == NULL)
    return g_strdup ("missing port");
  if (strchr (entry, ':') != colon)
    return g_strdup ("an IPv6 address must be written in brackets");
  host = g_strndup (entry, (gsize) (colon - entry));
  problem = host_name_problem (host);
  if (problem != NULL)
    return problem;
  return port_problem (colon + 1);
}

/* Whitespace and control characters in the host part: ", " is the typo
 * people make. (The chroot follows the path rules, where a space is legal.) */
static char *
host_part_problem (const char *host_part, gsize len)
{
  gsize i;

  for (i = 0; i < len; i++)
    {
      guchar c = (guchar) host_part[i];

      if (g_ascii_isspace (c))
        return g_strdup_printf ("whitespace at offset %" G_GSIZE_FORMAT, i);
      if (g_ascii_iscntrl (c))
        return g_strdup_printf ("control character 0x%02x at offset %" G_GSIZE_FORMAT, c, i);
    }
  return NULL;
}

/* Checks every entry; the count in @n_entries. */
static char *
entries_problem (const char *host_part, guint *n_entries)
{
  g_auto (GStrv) entries = NULL;
  guint i;

  /* g_strsplit() makes no entry at all of "". */
  if (host_part[0] == '\0')
    return g_strdup ("empty host entry 1");
  entries = g_strsplit (host_part, ",", -1);
  *n_entries = g_strv_length (entries);
  for (i = 0; entries[i] != NULL; i++)
    {
      g_autofree char *problem = NULL;
      g_autofree char *quoted = NULL;

      if (entries[i][0] == '\0')
        return g_strdup_printf ("empty host entry %u", i + 1);
      problem = entry_problem (entries[i]);
      if (problem == NULL)
        continue;
      quoted = zkr__path_quote_value (entries[i], -1);
      return g_strdup_printf ("host entry %u %s: %s", i + 1, quoted, problem);
    }
  return NULL;
}

static char *
chroot_problem (const char *chroot)
{
  g_autoptr (GError) local_error = NULL;

  if (zkr__path_validate (chroot, &local_error))
    return NULL;
  return g_strdup_printf ("chroot: %s", local_error->message);
}

gboolean
zkr__hosts_parse (const char *connect_string, ZkrHosts *out, GError **error)
{
  const char *slash;
  gsize host_len;
  g_autofree char *host_part = NULL;
  guint n_entries = 0;
  char *problem;

  g_return_val_if_fail (connect_string != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (connect_string[0] == '\0')
    return set_invalid (error, connect_string, g_strdup ("empty"));
  slash = strchr (connect_string, '/');
  host_len = slash != NULL ? (gsize) (slash - connect_string) : strlen (connect_string);
  host_part = g_strndup (connect_string, host_len);

  problem = host_part_problem (host_part, host_len);
  if (problem == NULL)
    problem = entries_problem (host_part, &n_entries);
  if (problem == NULL && slash != NULL)
    problem = chroot_problem (slash);
  if (problem != NULL)
    return set_invalid (error, connect_string, problem);

  out->hosts = g_steal_pointer (&host_part);
  out->chroot = slash != NULL && slash[1] != '\0' ? g_strdup (slash) : NULL;
  out->n_hosts = n_entries;
  return TRUE;
}

void
zkr__hosts_clear (ZkrHosts *hosts)
{
  g_return_if_fail (hosts != NULL);

  g_clear_pointer (&hosts->hosts, g_free);
  g_clear_pointer (&hosts->chroot, g_free);
  hosts->n_hosts = 0;
}
