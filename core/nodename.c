/* zkr: node-name utilities of the queue recipes. Every rule here matches
 * Curator byte for byte (ProtectedUtils, StandardLockInternalsDriver's
 * fixForSorting, InterProcessReadWriteLock's driver) so that C and Java
 * clients agree on who is first in a queue. */

#include <string.h>

#include "nodename.h"

#define UUID_TEXT_LEN ZKR_NODE_PROTECTED_ID_LEN

/* 8-4-4-4-12 hex digits; lowercase only when @lowercase_only. @text need
 * not be NUL-terminated after its 36 bytes. */
static gboolean
uuid_text_is_valid (const char *text, gboolean lowercase_only)
{
  char copy[UUID_TEXT_LEN + 1];
  gsize i;

  if (strnlen (text, UUID_TEXT_LEN) < UUID_TEXT_LEN)
    return FALSE;
  memcpy (copy, text, UUID_TEXT_LEN);
  copy[UUID_TEXT_LEN] = '\0';
  if (!g_uuid_string_is_valid (copy))
    return FALSE;
  for (i = 0; lowercase_only && i < UUID_TEXT_LEN; i++)
    if (g_ascii_isupper (copy[i]))
      return FALSE;
  return TRUE;
}

char *
zkr__nodename_protected_prefix (const char *uuid)
{
  g_return_val_if_fail (uuid != NULL, NULL);
  g_return_val_if_fail (strlen (uuid) == UUID_TEXT_LEN, NULL);
  g_return_val_if_fail (uuid_text_is_valid (uuid, TRUE), NULL);

  return g_strconcat (ZKR_NODE_PROTECTED_MARK, uuid, "-", NULL);
}

char *
zkr__nodename_new_protected_prefix (char **id)
{
  g_return_val_if_fail (id != NULL, NULL);

  /* Well-formed by construction: not checked again (every acquire makes
   * one, and the check cost as much as making it). */
  *id = zkr__nodename_new_protected_id ();
  return g_strconcat (ZKR_NODE_PROTECTED_MARK, *id, "-", NULL);
}

gboolean
zkr__nodename_is_protected (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  /* Curator demands at least one character after the prefix. */
  if (strnlen (name, ZKR_NODE_PROTECTED_PREFIX_LEN + 1) <= ZKR_NODE_PROTECTED_PREFIX_LEN)
    return FALSE;
  if (strncmp (name, ZKR_NODE_PROTECTED_MARK, strlen (ZKR_NODE_PROTECTED_MARK)) != 0)
    return FALSE;
  if (name[ZKR_NODE_PROTECTED_PREFIX_LEN - 1] != '-')
    return FALSE;
  return uuid_text_is_valid (name + strlen (ZKR_NODE_PROTECTED_MARK), FALSE);
}

gboolean
zkr__nodename_has_protected_id (const char *name, const char *uuid)
{
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (uuid != NULL, FALSE);

  return strlen (uuid) == UUID_TEXT_LEN &&
         zkr__nodename_is_protected (name) &&
         memcmp (name + strlen (ZKR_NODE_PROTECTED_MARK), uuid, UUID_TEXT_LEN) == 0;
}

void
zkr__nodename_write_protected_id (char *out)
{
  static const char hex[] = "0123456789abcdef";
  guint8 bytes[16];
  char *p = out;
  gsize i;

  g_return_if_fail (out != NULL);

  /* A version 4 UUID, as Java's UUID.randomUUID() and GLib's
   * g_uuid_string_random() make, from the same generator GLib uses;
   * written out by hand because the printf-based formatting was about 7%
   * of the client's instructions per acquisition (callgrind, 4 clients).
   * Lowercase by construction: the protected prefix must be lowercase
   * forever (Java writes it so). */
  for (i = 0; i < sizeof bytes; i += 4)
    {
      guint32 r = g_random_int ();

      memcpy (bytes + i, &r, 4);
    }
  bytes[6] = (guint8) ((bytes[6] & 0x0f) | 0x40);   /* version 4 */
  bytes[8] = (guint8) ((bytes[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
  for (i = 0; i < sizeof bytes; i++)
    {
      if (i == 4 || i == 6 || i == 8 || i == 10)
        *p++ = '-';
      *p++ = hex[bytes[i] >> 4];
      *p++ = hex[bytes[i] & 0x0f];
    }
  *p = '\0';
}

char *
zkr__nodename_new_protected_id (void)
{
  char *text = g_malloc (UUID_TEXT_LEN + 1);

  zkr__nodename_write_protected_id (text);
  return text;
}

/* TRUE when @text starts with @n decimal digits; their value in @value. */
static gboolean
read_digits (const char *text, gsize n, gint64 *value)
{
  gint64 result = 0;
  gsize i;

  for (i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit (text[i]))
        return FALSE;
      result = result * 10 + (text[i] - '0');
    }
  *value = result;
  return TRUE;
}

gboolean
zkr__nodename_parse_sequence (const char *name, gint64 *sequence)
{
  const char *tail;
  gsize len;
  gint64 value;

  g_return_val_if_fail (name != NULL, FALSE);

  len = strlen (name);
  if (len < ZKR_NODE_SEQUENCE_DIGITS)
    return FALSE;
  tail = name + len - ZKR_NODE_SEQUENCE_DIGITS;
  if (read_digits (tail, ZKR_NODE_SEQUENCE_DIGITS, &value))
    {
      /* Ten digits above G_MAXINT32 come only from "%010d" of G_MININT32,
       * whose '-' must then precede them. */
      if (value > G_MAXINT32)
        {
          if (value != (gint64) G_MAXINT32 + 1 || tail == name || tail[-1] != '-')
            return FALSE;
          value = G_MININT32;
        }
    }
  else if (tail[0] == '-' && read_digits (tail + 1, ZKR_NODE_SEQUENCE_DIGITS - 1, &value) &&
           value != 0)
    value = -value;
  else
    return FALSE;

  if (sequence != NULL)
    *sequence = value;
  return TRUE;
}

/* Where @needle last occurs in @haystack, or NULL: g_strrstr(), without
 * its string compare at every position (every hand-off sorts a listing, so
 * this runs for each name in it). */
static const char *
last_occurrence (const char *haystack, const char *needle)
{
  gsize haystack_len = strlen (haystack);
  gsize needle_len = strlen (needle);
  const char *p;

  if (needle_len > haystack_len)
    return NULL;
  for (p = haystack + (haystack_len - needle_len);; p--)
    {
      if (*p == needle[0] && memcmp (p, needle, needle_len) == 0)
        return p;
      if (p == haystack)
        return NULL;
    }
}

const char *
zkr__nodename_sort_key (const char *name, const char *lock_name)
{
  const char *last;

  g_return_val_if_fail (name != NULL, NULL);

  if (lock_name == NULL || lock_name[0] == '\0')
    return name;
  last = last_occurrence (name, lock_name);
  return last != NULL ? last + strlen (lock_name) : name;
}

const char *
zkr__nodename_rwlock_sort_key (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  return zkr__nodename_sort_key (zkr__nodename_sort_key (name, ZKR_NODE_READ_LOCK_NAME),
                             ZKR_NODE_WRITE_LOCK_NAME);
}

typedef const char *(*SortKeyFunc) (const char *name, const char *lock_name);

typedef struct {
  guint64 digits;    /* the key's value when it is a whole sequence (ten
                      * digits), else SORT_KEY_TEXT */
  const char *key;   /* points into name */
  char *name;        /* (transfer none) an element of the caller's array */
} SortEntry;

#define SORT_KEY_TEXT G_MAXUINT64

/* Two keys of ten digits each compare as their values exactly as they do
 * as text (same length), so the value is a shortcut, not another order.
 * Every name of a listing is read here on each hand-off, so the first
 * eight digits are checked and combined eight at a time in one 64-bit
 * word (byte i of the word is character i on any byte order), pairs, then
 * fours, then all eight; no lane ever carries into the next. @key has at
 * least ten characters. */
static inline guint64
ten_digits (const char *key)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 high = ones * 0xf0;
  guint64 word;
  guint d8, d9;

  memcpy (&word, key, 8);
  word = GUINT64_FROM_LE (word);
  /* Each byte is 0x30..0x39: its high nibble is 3, and adding 6 keeps it
   * 3 (0x3a + 6 is 0x40). A byte above 0xf9 may carry into the next, but
   * already fails the first test. */
  if ((word & high) != ones * 0x30 || ((word + ones * 0x06) & high) != ones * 0x30)
    return SORT_KEY_TEXT;
  d8 = (guint) (guchar) key[8] - '0';
  d9 = (guint) (guchar) key[9] - '0';
  if (d8 > 9 || d9 > 9 || key[10] != '\0')
    return SORT_KEY_TEXT;
  word -= ones * 0x30;
  /* Bytes 0, 2, 4, 6: 10 * digit + next digit. */
  word = (word * 10 + (word >> 8)) & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff);
  /* 16-bit lanes 0 and 2: 100 * pair + next pair. */
  word = (word * 100 + (word >> 16)) & G_GUINT64_CONSTANT (0x0000ffff0000ffff);
  /* The low 32 bits: all eight digits. */
  word = (word * 10000 + (word >> 32)) & G_GUINT64_CONSTANT (0xffffffff);
  return word * 100 + d8 * 10 + d9;
}

static guint64
sort_key_digits (const char *key)
{
  /* ten_digits reads ten characters and the one after them. */
  return strnlen (key, ZKR_NODE_SEQUENCE_DIGITS) == ZKR_NODE_SEQUENCE_DIGITS ? ten_digits (key)
                                                                               : SORT_KEY_TEXT;
}

/* zkr__nodename_sort_key (@name, @lock_name) found from the end for the usual
 * name, @lock_name then a whole sequence: with its value in @digits; NULL
 * for any other name. The same key: were there a later occurrence of
 * @lock_name, it would end inside the ten digits, and @lock_name does not
 * end in a digit. */
static inline const char *
sequence_key (const char *name, const char *lock_name, gsize lock_len, guint64 *digits)
{
  gsize len = strlen (name);
  const char *key;

  if (len < lock_len + ZKR_NODE_SEQUENCE_DIGITS)
    return NULL;
  key = name + len - ZKR_NODE_SEQUENCE_DIGITS;
  if (memcmp (key - lock_len, lock_name, lock_len) != 0)
    return NULL;
  *digits = ten_digits (key);
  return *digits != SORT_KEY_TEXT ? key : NULL;
}

/* Inline: the insertion sort and the split around ours call it for every
 * pair they look at. */
static inline int
entry_compare (const SortEntry *x, const SortEntry *y)
{
  int by_key;

  if (x->digits != SORT_KEY_TEXT && y->digits != SORT_KEY_TEXT)
    by_key = (x->digits > y->digits) - (x->digits < y->digits);
  else
    by_key = strcmp (x->key, y->key);
  return by_key != 0 ? by_key : strcmp (x->name, y->name);
}

static gint
sort_entry_compare (gconstpointer a, gconstpointer b, gpointer user_data)
{
  (void) user_data;
  return entry_compare (a, b);
}

static const char *
rwlock_sort_key (const char *name, const char *unused)
{
  (void) unused;
  return zkr__nodename_rwlock_sort_key (name);
}

/* Up to this many entries an insertion sort (stable, no calls through a
 * pointer, no allocation) beats the merge sort: a lock's listing is
 * usually this short, and a contended lock sorts one on every hand-off. */
#define SORT_INSERTION_MAX 32

static void
sort_entries (SortEntry *entries, guint n)
{
  if (n > SORT_INSERTION_MAX)
    {
      /* g_qsort_with_data() is a stable merge sort. */
      g_qsort_with_data (entries, (gint) n, sizeof *entries, sort_entry_compare, NULL);
      return;
    }
  for (guint i = 1; i < n; i++)
    {
      SortEntry entry = entries[i];
      guint j = i;

      while (j > 0 && entry_compare (&entries[j - 1], &entry) > 0)
        {
          entries[j] = entries[j - 1];
          j--;
        }
      entries[j] = entry;
    }
}

static inline void
entry_init (SortEntry *entry, char *name, SortKeyFunc key_func, const char *lock_name,
            const char *fast_lock_name, gsize fast_len)
{
  entry->name = name;
  entry->key = fast_lock_name != NULL
                 ? sequence_key (name, fast_lock_name, fast_len, &entry->digits)
                 : NULL;
  if (entry->key == NULL)
    {
      entry->key = key_func (name, lock_name);
      entry->digits = sort_key_digits (entry->key);
    }
}

/* Each key is computed once, not once per comparison: a contended lock
 * sorts its children on every hand-off, so this is on the hot path. With
 * @fast_lock_name, names ending in it and a sequence take a shortcut.
 * With @ours, only what sorts before it is sorted (see
 * zkr__nodename_sort_up_to): the one who is through, the usual listing on a
 * hand-off, sorts nothing. */
static gint
sort_by_key (GPtrArray *names, SortKeyFunc key_func, const char *lock_name,
             const char *fast_lock_name, const char *ours)
{
  SortEntry small[SORT_INSERTION_MAX];
  SortEntry *entries;
  SortEntry mine;
  gsize fast_len = 0;
  guint i, before = 0, after = names->len;
  gboolean have_ours = FALSE;
  gint index = -1;

  for (i = 0; i < names->len; i++)
    g_return_val_if_fail (names->pdata[i] != NULL, -1);
  g_return_val_if_fail (names->len <= G_MAXINT, -1);
  if (names->len < 2 && ours == NULL)
    return index;

  /* The shortcut needs a lock name that does not end in a digit (see
   * sequence_key). */
  if (fast_lock_name != NULL)
    {
      fast_len = strlen (fast_lock_name);
      if (fast_len == 0 || g_ascii_isdigit (fast_lock_name[fast_len - 1]))
        fast_lock_name = NULL;
    }
  entries = names->len <= SORT_INSERTION_MAX ? small : g_new (SortEntry, names->len);
  if (ours == NULL)
    {
      for (i = 0; i < names->len; i++)
        entry_init (&entries[i], names->pdata[i], key_func, lock_name, fast_lock_name, fast_len);
      before = names->len;
    }
  else
    {
      /* What sorts before ours at the front, in listing order (so the sort
       * below keeps the full sort's order among them); the rest from the
       * back, in no order; ours (its first copy) aside. */
      entry_init (&mine, (char *) ours, key_func, lock_name, fast_lock_name, fast_len);
      for (i = 0; i < names->len; i++)
        {
          SortEntry entry;
          int order;

          entry_init (&entry, names->pdata[i], key_func, lock_name, fast_lock_name, fast_len);
          order = entry_compare (&entry, &mine);
          if (order < 0)
            entries[before++] = entry;
          else if (order == 0 && !have_ours)
            {
              mine = entry;
              have_ours = TRUE;
            }
          else
            entries[--after] = entry;
        }
    }
  sort_entries (entries, before);
  for (i = 0; i < before; i++)
    names->pdata[i] = entries[i].name;
  if (have_ours)
    {
      index = (gint) before;
      names->pdata[i++] = mine.name;
    }
  /* Empty unless @ours was given: then what sorts after it. */
  for (guint j = after; j < names->len; j++)
    names->pdata[i++] = entries[j].name;
  if (entries != small)
    g_free (entries);
  return index;
}

void
zkr__nodename_sort (GPtrArray *names, const char *lock_name)
{
  g_return_if_fail (names != NULL);

  (void) sort_by_key (names, zkr__nodename_sort_key, lock_name, lock_name, NULL);
}

gint
zkr__nodename_sort_up_to (GPtrArray *names, const char *lock_name, const char *ours)
{
  g_return_val_if_fail (names != NULL, -1);

  return sort_by_key (names, zkr__nodename_sort_key, lock_name, lock_name, ours);
}

gint
zkr__nodename_sort_rwlock_up_to (GPtrArray *names, const char *ours)
{
  g_return_val_if_fail (names != NULL, -1);

  return sort_by_key (names, rwlock_sort_key, NULL, NULL, ours);
}

void
zkr__nodename_sort_rwlock (GPtrArray *names)
{
  g_return_if_fail (names != NULL);

  /* No shortcut: a name such as "x__READ__WRIT__0000000001" has a key
   * other than its sequence. */
  (void) sort_by_key (names, rwlock_sort_key, NULL, NULL, NULL);
}
