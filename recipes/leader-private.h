/* zkr internal: what the leader latch and the leader selector share: the
 * check of a participant id and the leader's id from a listing. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Curator writes ids of any length; we bound them to keep nodes small. */
#define ZKR_LEADER_ID_MAX_BYTES 4096

/* A participant id is non-empty UTF-8 without control characters, at
 * most ZKR_LEADER_ID_MAX_BYTES. Errors: ZKR_ERROR_INVALID_ARGUMENT naming
 * it. */
gboolean zkr__leader_validate_id (const char *id, const char *kind, GError **error);

/* The leader's id from a participant listing (the first one is the
 * leader, as Curator's getLeader() says). NULL when @participants is NULL
 * (the error is already set) or empty. (transfer full) */
char *zkr__leader_id_from_participants (GPtrArray *participants);

G_END_DECLS
