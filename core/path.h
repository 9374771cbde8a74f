/* zkr internal: ZooKeeper path rules and path arithmetic. Validation follows
 * ZooKeeper's own PathUtils.validatePath so that a path zkr accepts is one
 * the server accepts; joining and splitting assume already valid paths. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest path zkr accepts, in bytes (without the terminating NUL).
 * ZooKeeper itself only bounds a request by jute.maxbuffer; 4096 keeps
 * every request far below that and every error message readable. */
#define ZKR_PATH_MAX 4096

/**
 * zkr__path_validate:
 * @path: a NUL-terminated path (not NULL: NULL is a programming error)
 *
 * Checks ZooKeeper's rules: absolute; "/" alone is the root; no empty
 * segment ("//"); no trailing '/' except the root; no "." or ".." segment;
 * valid UTF-8; none of the code points ZooKeeper refuses (U+0001-U+001F,
 * U+007F-U+009F, U+D800-U+F8FF, U+FFF0-U+FFFF, and everything above U+FFFF,
 * which Java sees as surrogates); at most ZKR_PATH_MAX bytes.
 *
 * Errors: ZKR_ERROR_INVALID_ARGUMENT, e.g.
 * `invalid path "/a//b": empty segment at offset 2` (the value escaped and
 * cut after ~100 bytes; offsets are byte offsets; a segment's offset is
 * that of the '/' that opens it).
 */
gboolean zkr__path_validate (const char *path, GError **error);

/* zkr__path_validate() for a buffer of @len bytes that need not be
 * NUL-terminated, so that a NUL inside it is reported ("embedded NUL"). */
gboolean zkr__path_validate_len (const char *path, gsize len, GError **error);

/* "/" + "a" -> "/a"; "/x" + "a" -> "/x/a". @parent is a valid path, @child
 * one non-empty node name without '/' (anything else: a critical and NULL).
 * (transfer full) */
char *zkr__path_join (const char *parent, const char *child);

/* "/a/b" -> "/a"; "/a" -> "/"; "/" -> NULL. @path is absolute.
 * (transfer full) (nullable) */
char *zkr__path_parent (const char *path);

/* The last segment: "/a/b" -> "b"; "/" -> "". A pointer into @path.
 * (transfer none) */
const char *zkr__path_basename (const char *path);

/* Applies a Curator-style namespace: ("ns", "/a") -> "/ns/a",
 * ("ns", "/") -> "/ns"; with @name_space NULL or "" a copy of @path.
 * @name_space has been checked by zkr__path_validate_namespace(). (transfer full) */
char *zkr__path_prefix_namespace (const char *name_space, const char *path);
/* strlen (zkr__path_prefix_namespace (@name_space, @path)), without making
 * the string. */
gsize zkr__path_prefix_namespace_len (const char *name_space, const char *path);

/* NULL and "" (no namespace) are valid; otherwise "/" + @name_space must be
 * a valid path: "a" and "a/b" are valid, "/a", "a/" and "a//b" are not.
 * Errors: ZKR_ERROR_INVALID_ARGUMENT naming the namespace. */
gboolean zkr__path_validate_namespace (const char *name_space, GError **error);

/* Quotes a user-supplied value for an error message: "\"...\"", escaped
 * with g_strescape() (so the text is ASCII), NULs shown as \000, cut after
 * ~100 bytes with "..." appended. @len -1 means NUL-terminated.
 * (transfer full) */
char *zkr__path_quote_value (const char *value, gssize len);

G_END_DECLS
