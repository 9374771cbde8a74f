/* zkr: what the counters' files share: the shared count's core that
 * outlives the public object (shared-count.c keeps the value, -calls.c
 * writes), and the atomic long's operation (atomic-long.c) and its tries
 * on the worker (atomic-long-tries.c). */
#pragma once

#include <gio/gio.h>
#include <zkr/atomic-long.h>
#include <zkr/mutex.h>
#include <zkr/node.h>
#include <zkr/shared-count.h>

#include "call.h"
#include "context.h"
#include "notifier.h"
#include "session-private.h"

G_BEGIN_DECLS

/* What the worker, the deliveries and the calls under way share; it
 * outlives the public object while they hold it. */
typedef struct {
  gatomicrefcount ref;
  ZkrSharedCount *owner;       /* under lock; NULL once the last unref came */
  ZkrSession *session;         /* (owned) */
  char *path;
  char *full_path;
  gint seed;
  ZkrNotifier *listeners;      /* (owned) the user's; source: @owner */
  GMutex lock;                 /* guards what follows */
  gint value;
  int version;
  gint64 czxid;                /* the node's life the value was read from */
  gint64 mzxid;                /* the change that set it: the readings' order */
  gboolean current;            /* a watched read answered, and no event, no
                                * disconnection nor missing node since: the
                                * value is the node's, as far as the watch
                                * can tell */
  gboolean started;
  gboolean stopped;            /* the last unref came: nothing more is armed */
  guint state_listener_id;
  guint watch_id;              /* worker only */
} ZkrCountCore;

struct _ZkrSharedCount {
  gatomicrefcount ref;
  ZkrCountCore *core;                  /* (owned) */
};

ZkrCountCore *zkr__shared_count_core_ref (ZkrCountCore *core);
void zkr__shared_count_core_unref (ZkrCountCore *core);

/* Curator's SharedCount bytes: exactly 4, big-endian; anything else is
 * ZKR_ERROR_INVALID_ARGUMENT naming @path and the length. */
gboolean zkr__shared_count_decode (GBytes *data, const char *path, gint *value, GError **error);
void zkr__shared_count_encode (gint value, guint8 out[4]);
/* Keeps the newest reading only (any thread): readings and our own writes
 * may come in any order (Curator's updateValue). Newest is the change
 * with the highest mzxid, whatever the node's life and version: a node
 * created again starts over at version 0, its changes' zxids do not.
 * TRUE if it moved. */
gboolean zkr__shared_count_update (ZkrCountCore *count, gint value, const ZkrStat *stat);
/* Whether the value is known current (see ZkrCountCore.current). */
gboolean zkr__shared_count_is_current (ZkrCountCore *count);
/* Worker: the session's internal listener, re-reads after a reconnection. */
void zkr__shared_count_state (ZkrSession *session, ZkrSessionState state, gpointer user_data);
/* Worker (a post): reads the node and arms its watch, once started. */
gboolean zkr__shared_count_arm_in_worker (gpointer data);

/* ==== the atomic long (atomic-long.c, atomic-long-tries.c) ============ */

struct _ZkrAtomicLong {
  gatomicrefcount ref;
  ZkrSession *session;               /* (owned) */
  char *path;
  char *full_path;                   /* namespace applied */
  ZkrRetryPolicy *retry_policy;      /* (owned) */
  char *lock_path;                   /* (nullable): promoted mode */
  int max_lock_ms;
  ZkrRetryPolicy *lock_retry_policy; /* (owned) (nullable) */
};

typedef enum { OP_GET, OP_SET, OP_ADD, OP_CAS } ZkrAtomicOpKind;

/* What the write in flight was, for telling a lost reply's fate. */
typedef enum { WRITE_NONE, WRITE_SET, WRITE_CREATE } ZkrAtomicWrite;

/* One operation, in the caller's context: the phases (a run of tries on
 * the worker each, the mutex between them) and the one answer. */
typedef struct {
  ZkrAtomicLong *atomic;             /* (owned) */
  ZkrCall *call;                     /* (owned) until answered */
  GMainContext *context;             /* the call's */
  GCancellable *cancellable;         /* (nullable) (owned) */
  ZkrAtomicOpKind kind;
  gint64 operand;                    /* SET, CAS: the new value; ADD: delta */
  gint64 expected;                   /* CAS */
  int timeout_ms;
  gint64 deadline;                   /* monotonic µs, timeout_ms > 0 */
  ZkrAtomicLongValue value;
  gboolean promoted;
  ZkrMutex *mutex;                   /* (owned) (nullable) promoted, held */
} ZkrAtomicOp;

/* What a run hands back to the caller's context. */
typedef enum { OUTCOME_DONE, OUTCOME_GAVE_UP, OUTCOME_ERROR } ZkrAtomicOutcome;

typedef struct {
  ZkrContextPost post;
  ZkrAtomicOp *op;
  ZkrAtomicOutcome outcome;
  gboolean succeeded;
  gint64 pre_value;
  gint64 post_value;
  guint tries;
  GError *error;             /* (owned) (nullable) */
} ZkrAtomicAnswer;

/* Curator's DistributedAtomicLong bytes: none is 0, 8 are the value,
 * anything else ZKR_ERROR_INVALID_ARGUMENT naming @path and the length. */
gboolean zkr__atomic_long_decode (GBytes *data, const char *path, gint64 *value, GError **error);
void zkr__atomic_long_encode (gint64 value, guint8 out[8]);
GError *zkr__atomic_long_timeout_error (const char *path, int timeout_ms, ZkrAtomicWrite write);
/* atomic-long-tries.c: runs one phase of @op's tries on the worker; the
 * answer comes once, in @op's context, as a post of
 * zkr__atomic_long_answer_run (a ZkrAtomicAnswer, freed by
 * zkr__atomic_long_answer_free). From the caller's context. */
void zkr__atomic_long_tries_run (ZkrAtomicOp *op);
/* atomic-long.c: the answer of a phase, in the operation's context. */
gboolean zkr__atomic_long_answer_run (gpointer data);
void zkr__atomic_long_answer_free (gpointer data);

G_END_DECLS
