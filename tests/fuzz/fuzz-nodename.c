/* libFuzzer target: node names (core/nodename.c). The input is a list of
 * names, one per line; each is checked alone (sequence parsing, protected
 * prefixes) and the list as a whole (sorting). */

#include <stdio.h>
#include <string.h>

#include "nodename.h"

#define CHECK(cond) ((cond) ? (void) 0 : __builtin_trap ())
#define MAX_NAMES 64

static const char *const lock_names[] = {
  ZKR_NODE_LOCK_NAME, ZKR_NODE_READ_LOCK_NAME, ZKR_NODE_WRITE_LOCK_NAME, "latch-", "", NULL,
};

static void
check_name (const char *name)
{
  gint64 sequence = 0;

  /* A parsed sequence is what ZooKeeper's "%010d" of a 32-bit int wrote
   * at the end of the name. */
  if (zkr__nodename_parse_sequence (name, &sequence))
    {
      char formatted[16];

      CHECK (sequence >= G_MININT32 && sequence <= G_MAXINT32);
      g_snprintf (formatted, sizeof formatted, "%010d", (int) sequence);
      CHECK (g_str_has_suffix (name, formatted));
    }

  /* A protected prefix we build is recognised, with its own uuid only. */
  if (strlen (name) > 0 && strlen (name) < 200)
    {
      g_autofree char *uuid = zkr__nodename_new_protected_id ();
      g_autofree char *other = zkr__nodename_new_protected_id ();
      g_autofree char *prefix = zkr__nodename_protected_prefix (uuid);
      g_autofree char *protected = g_strconcat (prefix, name, NULL);

      CHECK (strlen (prefix) == ZKR_NODE_PROTECTED_PREFIX_LEN);
      CHECK (zkr__nodename_is_protected (protected));
      CHECK (zkr__nodename_has_protected_id (protected, uuid));
      CHECK (!zkr__nodename_has_protected_id (protected, other));
    }
  /* Recognising never claims more than the shape allows. */
  if (zkr__nodename_is_protected (name))
    {
      CHECK (g_str_has_prefix (name, ZKR_NODE_PROTECTED_MARK));
      CHECK (strlen (name) > ZKR_NODE_PROTECTED_PREFIX_LEN);
      CHECK (name[ZKR_NODE_PROTECTED_PREFIX_LEN - 1] == '-');
    }

  /* The sort key is a suffix of the name. */
  for (guint i = 0; lock_names[i] != NULL; i++)
    {
      const char *key = zkr__nodename_sort_key (name, lock_names[i]);

      CHECK (key >= name && key <= name + strlen (name));
    }
}

/* @sorted is in order under @key, ties broken by the whole name. */
static void
check_sorted (GPtrArray *sorted, const char *(*key) (const char *, const char *),
              const char *lock_name)
{
  for (guint i = 1; i < sorted->len; i++)
    {
      const char *a = g_ptr_array_index (sorted, i - 1);
      const char *b = g_ptr_array_index (sorted, i);
      int by_key = strcmp (key (a, lock_name), key (b, lock_name));

      CHECK (by_key < 0 || (by_key == 0 && strcmp (a, b) <= 0));
    }
}

static const char *
rwlock_key (const char *name, const char *unused)
{
  (void) unused;
  return zkr__nodename_rwlock_sort_key (name);
}

/* The same strings in the same order, whatever order they came in. */
static void
check_same (GPtrArray *a, GPtrArray *b)
{
  CHECK (a->len == b->len);
  for (guint i = 0; i < a->len; i++)
    CHECK (strcmp (g_ptr_array_index (a, i), g_ptr_array_index (b, i)) == 0);
}

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size); /* stops at a NUL */
  g_auto (GStrv) lines = g_strsplit (text, "\n", MAX_NAMES);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GPtrArray) reversed = g_ptr_array_new ();

  for (guint i = 0; lines[i] != NULL; i++)
    {
      check_name (lines[i]);
      g_ptr_array_add (names, lines[i]);
    }
  for (guint i = names->len; i > 0; i--)
    g_ptr_array_add (reversed, g_ptr_array_index (names, i - 1));

  zkr__nodename_sort (names, ZKR_NODE_LOCK_NAME);
  zkr__nodename_sort (reversed, ZKR_NODE_LOCK_NAME);
  check_sorted (names, zkr__nodename_sort_key, ZKR_NODE_LOCK_NAME);
  check_same (names, reversed);

  zkr__nodename_sort_rwlock (names);
  zkr__nodename_sort_rwlock (reversed);
  check_sorted (names, rwlock_key, NULL);
  check_same (names, reversed);
  return 0;
}
