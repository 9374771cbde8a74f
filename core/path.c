/* zkr: ZooKeeper path validation (the server's PathUtils rules, checked on
 * the client so that bad input fails early with a message naming it) and
 * the small path arithmetic the recipes need. */

#include <string.h>

#include <zkr/error.h>

#include "path.h"

/* How much of a bad value an error message shows. */
#define QUOTE_MAX_BYTES 100

char *
zkr__path_quote_value (const char *value, gssize len)
{
  GString *out;
  gsize n, cut, i;

  if (value == NULL)
    return g_strdup ("NULL");
  n = len < 0 ? strlen (value) : (gsize) len;
  cut = MIN (n, QUOTE_MAX_BYTES);
  /* Never cut inside a UTF-8 sequence: half a character is noise. */
  while (cut > 0 && cut < n && ((guchar) value[cut] & 0xc0) == 0x80)
    cut--;

  out = g_string_new ("\"");
  /* g_strescape() stops at a NUL, so escape the pieces between NULs. */
  for (i = 0; i < cut;)
    {
      const char *nul = memchr (value + i, '\0', cut - i);
      gsize piece = nul != NULL ? (gsize) (nul - (value + i)) : cut - i;
      g_autofree char *copy = g_strndup (value + i, piece);
      g_autofree char *escaped = g_strescape (copy, NULL);

      g_string_append (out, escaped);
      i += piece;
      if (nul != NULL)
        {
          g_string_append (out, "\\000");
          i++;
        }
    }
  if (cut < n)
    g_string_append (out, "...");
  g_string_append_c (out, '"');
  return g_string_free (out, FALSE);
}

/* ZooKeeper's PathUtils tests UTF-16 units: the C0 and C1 controls, the
 * surrogates and the private use area (U+D800-U+F8FF) and the specials
 * (U+FFF0-U+FFFF). A code point above U+FFFF is a surrogate pair in Java,
 * so the server refuses those too. */
static gboolean
code_point_is_refused (gunichar c)
{
  return (c >= 0x01 && c <= 0x1f) ||
         (c >= 0x7f && c <= 0x9f) ||
         (c >= 0xd800 && c <= 0xf8ff) ||
         c >= 0xfff0;
}

/* Offsets are reported minus @bias (zkr__path_validate_namespace() checks
 * "/" + namespace and reports offsets into the namespace), never below 0. */
static gsize
unbias (gsize offset, gsize bias)
{
  return offset >= bias ? offset - bias : 0;
}

/* The segment opened by the '/' at @slash and ending before @stop. */
static char *
segment_problem (const char *path, gsize slash, gsize stop, gsize bias)
{
  const char *segment = path + slash + 1;
  gsize segment_len = stop - slash - 1;
  const char *p;

  if (segment_len == 0)
    return g_strdup_printf ("empty segment at offset %" G_GSIZE_FORMAT,
                            unbias (slash, bias));
  if (segment_len == 1 && segment[0] == '.')
    return g_strdup_printf ("\".\" segment at offset %" G_GSIZE_FORMAT,
                            unbias (slash, bias));
  if (segment_len == 2 && segment[0] == '.' && segment[1] == '.')
    return g_strdup_printf ("\"..\" segment at offset %" G_GSIZE_FORMAT,
                            unbias (slash, bias));
  for (p = segment; p < path + stop; p = g_utf8_next_char (p))
    {
      /* Most paths are ASCII: a byte below 0x80 is its own code point. */
      gunichar c = (guchar) *p < 0x80 ? (guchar) *p : g_utf8_get_char (p);

      if (code_point_is_refused (c))
        return g_strdup_printf ("forbidden character U+%04X at offset %" G_GSIZE_FORMAT,
                                c, unbias ((gsize) (p - path), bias));
    }
  return NULL;
}

/* The common case in one pass: printable ASCII in non-empty segments
 * other than "." and "..", no trailing '/'. FALSE sends a path (valid or
 * not) through the full checks below, which name the problem. */
static gboolean
path_is_plain (const char *path, gsize len)
{
  const guchar *p = (const guchar *) path + 1;
  const guchar *end = (const guchar *) path + len;
  const guchar *segment = p; /* where the current segment starts */

  if (len < 2 || len > ZKR_PATH_MAX || path[0] != '/' || end[-1] == '/')
    return FALSE;
  for (;; p++)
    {
      if (p == end || *p == '/')
        {
          gsize n = (gsize) (p - segment);

          if (n == 0 || (n <= 2 && segment[0] == '.' && (n == 1 || segment[1] == '.')))
            return FALSE;
          if (p == end)
            return TRUE;
          segment = p + 1;
        }
      else if ((guchar) (*p - 0x20) >= 0x5f) /* outside ' '..'~' */
        return FALSE;
    }
}

/* Why @path (@len bytes) is not a valid ZooKeeper path, or NULL if it is.
 * The checks run in ZooKeeper's order, so "/a/" is a trailing '/' and not
 * an empty segment. (transfer full) */
static char *
path_problem (const char *path, gsize len, gsize bias)
{
  const char *nul;
  const char *bad_utf8;
  gsize ascii, slash;

  if (path_is_plain (path, len))
    return NULL;
  if (len == 0)
    return g_strdup ("empty path");
  if (path[0] != '/')
    return g_strdup ("not absolute (must start with '/')");
  if (len > ZKR_PATH_MAX)
    return g_strdup_printf ("longer than %d bytes", ZKR_PATH_MAX);
  nul = memchr (path, '\0', len);
  if (nul != NULL)
    return g_strdup_printf ("embedded NUL at offset %" G_GSIZE_FORMAT,
                            unbias ((gsize) (nul - path), bias));
  /* The leading ASCII bytes (most paths' all) are whole characters. */
  ascii = 0;
  while (ascii < len && (guchar) path[ascii] < 0x80)
    ascii++;
  if (ascii < len && !g_utf8_validate (path + ascii, (gssize) (len - ascii), &bad_utf8))
    return g_strdup_printf ("invalid UTF-8 at offset %" G_GSIZE_FORMAT,
                            unbias ((gsize) (bad_utf8 - path), bias));
  if (len == 1)
    return NULL;
  if (path[len - 1] == '/')
    return g_strdup_printf ("trailing '/' at offset %" G_GSIZE_FORMAT,
                            unbias (len - 1, bias));

  for (slash = 0; slash < len;)
    {
      const char *next = memchr (path + slash + 1, '/', len - slash - 1);
      gsize stop = next != NULL ? (gsize) (next - path) : len;
      char *problem = segment_problem (path, slash, stop, bias);

      if (problem != NULL)
        return problem;
      slash = stop;
    }
  return NULL;
}

/* Sets the INVALID_ARGUMENT error: `invalid WHAT "VALUE": PROBLEM`.
 * Takes @problem. */
static gboolean
set_invalid (GError **error,
             const char *what,
             const char *value,
             gsize len,
             char *problem)
{
  g_autofree char *quoted = zkr__path_quote_value (value, (gssize) len);

  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "invalid %s %s: %s", what, quoted, problem);
  g_free (problem);
  return FALSE;
}

gboolean
zkr__path_validate_len (const char *path, gsize len, GError **error)
{
  char *problem;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  problem = path_problem (path, len, 0);
  if (problem != NULL)
    return set_invalid (error, "path", path, len, problem);
  return TRUE;
}

gboolean
zkr__path_validate (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);

  return zkr__path_validate_len (path, strlen (path), error);
}

char *
zkr__path_join (const char *parent, const char *child)
{
  g_return_val_if_fail (parent != NULL && parent[0] == '/', NULL);
  g_return_val_if_fail (child != NULL && child[0] != '\0', NULL);
  g_return_val_if_fail (strchr (child, '/') == NULL, NULL);

  if (parent[1] == '\0')
    return g_strconcat ("/", child, NULL);
  return g_strconcat (parent, "/", child, NULL);
}

char *
zkr__path_parent (const char *path)
{
  const char *last;

  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);

  if (path[1] == '\0')
    return NULL;
  last = strrchr (path, '/');
  if (last == path)
    return g_strdup ("/");
  return g_strndup (path, (gsize) (last - path));
}

const char *
zkr__path_basename (const char *path)
{
  const char *last;

  g_return_val_if_fail (path != NULL, NULL);

  last = strrchr (path, '/');
  return last != NULL ? last + 1 : path;
}

char *
zkr__path_prefix_namespace (const char *name_space, const char *path)
{
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);

  if (name_space == NULL || name_space[0] == '\0')
    return g_strdup (path);
  /* Curator maps the namespace's root to the namespace node itself. */
  if (path[1] == '\0')
    return g_strconcat ("/", name_space, NULL);
  return g_strconcat ("/", name_space, path, NULL);
}

gsize
zkr__path_prefix_namespace_len (const char *name_space, const char *path)
{
  g_return_val_if_fail (path != NULL && path[0] == '/', 0);

  if (name_space == NULL || name_space[0] == '\0')
    return strlen (path);
  return 1 + strlen (name_space) + (path[1] == '\0' ? 0 : strlen (path));
}

gboolean
zkr__path_validate_namespace (const char *name_space, GError **error)
{
  g_autofree char *as_path = NULL;
  gsize len;
  char *problem;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (name_space == NULL || name_space[0] == '\0')
    return TRUE;
  len = strlen (name_space);
  /* A namespace is written without its leading '/': "/a" would become the
   * path "//a", so say what is wrong instead of "empty segment". */
  if (name_space[0] == '/')
    problem = g_strdup ("must not start with '/'");
  else if (len >= ZKR_PATH_MAX)
    problem = g_strdup_printf ("longer than %d bytes", ZKR_PATH_MAX - 1);
  else
    {
      as_path = g_strconcat ("/", name_space, NULL);
      problem = path_problem (as_path, len + 1, 1);
    }
  if (problem != NULL)
    return set_invalid (error, "namespace", name_space, len, problem);
  return TRUE;
}
