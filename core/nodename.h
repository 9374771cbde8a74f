/* zkr internal: node names of the queue recipes, byte-compatible with
 * Curator: the protected prefix "_c_<uuid>-", ZooKeeper's sequence suffix,
 * and the sort order of a lock's children (the text after the last
 * occurrence of the lock name). Pure functions, any thread. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Curator's protected prefix: "_c_" + 36-character uuid + "-". */
#define ZKR_NODE_PROTECTED_MARK "_c_"
#define ZKR_NODE_PROTECTED_PREFIX_LEN 40

/* ZooKeeper appends String.format("%010d", parent cversion). */
#define ZKR_NODE_SEQUENCE_DIGITS 10

/* The lock names of Curator's recipes. The two rwlock names have the same
 * length on purpose: Curator's sort depends on it. */
#define ZKR_NODE_LOCK_NAME "lock-"
#define ZKR_NODE_READ_LOCK_NAME "__READ__"
#define ZKR_NODE_WRITE_LOCK_NAME "__WRIT__"

/* "_c_" + @uuid + "-". @uuid is a canonical lowercase uuid (8-4-4-4-12
 * hex digits), e.g. from zkr__nodename_new_protected_id(); anything else is a
 * programming error (a critical, NULL). (transfer full) */
char *zkr__nodename_protected_prefix (const char *uuid);

/* TRUE when @name starts with a well-formed protected prefix ("_c_", a
 * canonical uuid, "-") and has at least one character after it, as
 * Curator's ProtectedUtils.isProtectedZNode decides. Like Java's
 * UUID.fromString, the uuid's hex digits may be of either case. */
gboolean zkr__nodename_is_protected (const char *name);

/* TRUE when @name is protected and its uuid is exactly @uuid (bytes). */
gboolean zkr__nodename_has_protected_id (const char *name, const char *uuid);

/* The length of a protected id (a uuid's text), without its NUL. */
#define ZKR_NODE_PROTECTED_ID_LEN 36

/* A fresh random (version 4) uuid, lowercase 8-4-4-4-12, as Java's
 * UUID.randomUUID().toString() writes it. (transfer full) */
char *zkr__nodename_new_protected_id (void);
/* The same, written to @out: ZKR_NODE_PROTECTED_ID_LEN bytes and a NUL
 * (for an id kept inside a larger block). */
void zkr__nodename_write_protected_id (char *out);

/* zkr__nodename_protected_prefix() of a fresh zkr__nodename_new_protected_id(),
 * which goes to @id. (transfer full) both */
char *zkr__nodename_new_protected_prefix (char **id);

/**
 * zkr__nodename_parse_sequence:
 * @name: a node name
 * @sequence: (out) (optional): the sequence number
 *
 * Reads the suffix ZooKeeper appends to a sequential node: the parent's
 * cversion formatted with "%010d", a signed 32-bit int. So:
 * - the last 10 bytes are decimal digits with a value <= 2147483647: that
 *   value;
 * - after the cversion overflowed, the suffix is negative: "-" + 9 digits
 *   (-1 to -999999999) is read as that negative value (so "lock-000000003"
 *   is "lock" + -3: no positive suffix has 9 digits); "-" + 10 digits
 *   (-1000000000 to -2147483648) cannot be told apart from a positive
 *   suffix behind a '-' separator ("lock-2147483647"), so the positive
 *   reading wins, except for "-2147483648" whose digits exceed the
 *   positive range and which reads as G_MININT32.
 * Anything else (fewer than 10 trailing digits, a value ZooKeeper cannot
 * produce) returns FALSE and leaves @sequence untouched.
 */
gboolean zkr__nodename_parse_sequence (const char *name, gint64 *sequence);

/* Curator's fixForSorting: the text after the LAST occurrence of
 * @lock_name in @name; the whole @name when it does not contain
 * @lock_name or @lock_name is NULL or "". A pointer into @name.
 * (transfer none) */
const char *zkr__nodename_sort_key (const char *name, const char *lock_name);

/* Sorts @names (of char *; the array's order changes, the strings do not)
 * by zkr__nodename_sort_key() compared as bytes, ties broken by the whole name,
 * so that every client sees the same order. Stable, O(n log n). Byte order
 * is Curator's String.compareTo order for every name ZooKeeper accepts (all
 * of them are below U+FFF0, where UTF-8 and UTF-16 order agree). */
void zkr__nodename_sort (GPtrArray *names, const char *lock_name);

/* The read-write lock's key: fixForSorting with "__READ__", then with
 * "__WRIT__", as Curator's InterProcessReadWriteLock does, so read and
 * write nodes sort together by sequence. (transfer none) */
const char *zkr__nodename_rwlock_sort_key (const char *name);

/* zkr__nodename_sort() with zkr__nodename_rwlock_sort_key(). */
void zkr__nodename_sort_rwlock (GPtrArray *names);

/* What a queue's predicate needs of a listing, for less than a whole sort:
 * the names that zkr__nodename_sort() puts before @ours, in that order, then
 * @ours (its first copy), then the others in no particular order. Returns
 * the index of @ours, or -1 when it is not in @names (the names before it
 * are still first and sorted). With @ours NULL: zkr__nodename_sort(), and -1.
 * @ours is compared by content; the array's order changes, the strings do
 * not. */
gint zkr__nodename_sort_up_to (GPtrArray *names, const char *lock_name, const char *ours);

/* zkr__nodename_sort_up_to() in zkr__nodename_sort_rwlock()'s order. */
gint zkr__nodename_sort_rwlock_up_to (GPtrArray *names, const char *ours);

G_END_DECLS
