/* libFuzzer target: path validation (core/path.c). Not a "does it crash"
 * target only: every input is checked against properties a valid path
 * must have, and every refusal against what an error must look like. */

#include <string.h>

#include "error-private.h"
#include "path.h"

#define CHECK(cond) ((cond) ? (void) 0 : __builtin_trap ())

/* What ZooKeeper's rules imply for a path zkr accepted. */
static void
check_valid (const char *path, gsize len)
{
  CHECK (len >= 1 && len <= ZKR_PATH_MAX);
  CHECK (path[0] == '/');
  CHECK (memchr (path, '\0', len) == NULL);
  CHECK (g_utf8_validate (path, (gssize) len, NULL));
  CHECK (strstr (path, "//") == NULL);
  CHECK (len == 1 || path[len - 1] != '/');
  CHECK (strstr (path, "/./") == NULL && !g_str_has_suffix (path, "/."));
  CHECK (strstr (path, "/../") == NULL && !g_str_has_suffix (path, "/.."));
  /* The NUL-terminated entry point agrees. */
  CHECK (zkr__path_validate (path, NULL));

  if (len > 1)
    {
      /* parent + basename gives the path back, and both halves are valid. */
      g_autofree char *parent = zkr__path_parent (path);
      const char *base = zkr__path_basename (path);
      g_autofree char *joined = NULL;

      CHECK (parent != NULL);
      CHECK (zkr__path_validate (parent, NULL));
      CHECK (base[0] != '\0' && strchr (base, '/') == NULL);
      joined = zkr__path_join (parent, base);
      CHECK (strcmp (joined, path) == 0);
    }
  else
    CHECK (zkr__path_parent (path) == NULL);

  /* Under a namespace it stays valid (short enough paths only: the
   * namespace adds bytes). */
  if (len + 4 <= ZKR_PATH_MAX)
    {
      g_autofree char *prefixed = zkr__path_prefix_namespace ("ns", path);

      CHECK (g_str_has_prefix (prefixed, "/ns"));
      CHECK (zkr__path_validate (prefixed, NULL));
    }
}

/* What a refusal must look like: our domain and code, a readable message
 * (ASCII: the value is escaped) of bounded length. */
static void
check_error (const GError *error)
{
  CHECK (error != NULL);
  CHECK (error->domain == ZKR_ERROR && error->code == ZKR_ERROR_INVALID_ARGUMENT);
  CHECK (error->message != NULL && error->message[0] != '\0');
  for (const char *c = error->message; *c != '\0'; c++)
    CHECK ((unsigned char) *c < 0x80);
  CHECK (strlen (error->message) < 1024);
}

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const char *bytes = (const char *) data;
  g_autoptr (GError) error = NULL;
  g_autofree char *quoted = zkr__path_quote_value (bytes, (gssize) size);

  /* The quoting of any value is ASCII and bounded. */
  for (const char *c = quoted; *c != '\0'; c++)
    CHECK ((unsigned char) *c < 0x80);
  CHECK (strlen (quoted) < 512);

  if (zkr__path_validate_len (bytes, size, &error))
    {
      g_autofree char *path = g_strndup (bytes, size);

      CHECK (error == NULL);
      check_valid (path, size);
    }
  else
    {
      check_error (error);
      /* The NUL-terminated entry point refuses it too, unless the refusal
       * was the embedded NUL that it cannot see. */
      if (memchr (bytes, '\0', size) == NULL)
        {
          g_autofree char *path = g_strndup (bytes, size);
          g_autoptr (GError) again = NULL;

          CHECK (!zkr__path_validate (path, &again));
          check_error (again);
        }
    }

  /* The namespace rule: valid exactly when "/" + namespace is a valid path
   * (for inputs without NUL, which a C string cannot carry). */
  if (size > 0 && memchr (bytes, '\0', size) == NULL && size < ZKR_PATH_MAX)
    {
      g_autofree char *name_space = g_strndup (bytes, size);
      g_autofree char *as_path = g_strconcat ("/", name_space, NULL);
      g_autoptr (GError) ns_error = NULL;
      gboolean ok = zkr__path_validate_namespace (name_space, &ns_error);

      CHECK (ok == zkr__path_validate (as_path, NULL));
      if (!ok)
        check_error (ns_error);
    }
  return 0;
}
