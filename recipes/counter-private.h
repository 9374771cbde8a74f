/* zkr: what the shared count's two halves share: the core that outlives
 * the public object (value, version, listeners, the watch on the worker)
 * and the 4-byte layout; shared-count.c keeps the value, -calls.c writes. */
#pragma once

#include <gio/gio.h>
#include <zkr/shared-count.h>

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
  GMutex lock;                 /* guards what follows */
  gint value;
  int version;
  gboolean started;
  gboolean stopped;            /* the last unref came: nothing more is armed */
  GPtrArray *listeners;        /* (element-type Listener) */
  guint next_listener_id;
  guint state_listener_id;
  guint watch_id;              /* worker only */
} ZkrCountCore;

struct _ZkrSharedCount {
  gatomicrefcount ref;
  ZkrCountCore *core;                  /* (owned) */
};

ZkrCountCore *zkr__count_core_ref (ZkrCountCore *core);
void zkr__count_core_unref (ZkrCountCore *core);

/* Curator's SharedCount bytes: exactly 4, big-endian; anything else is
 * ZKR_ERROR_INVALID_ARGUMENT naming @path and the length. */
gboolean zkr__count_decode (GBytes *data, const char *path, gint *value, GError **error);
void zkr__count_encode (gint value, guint8 out[4]);
/* Keeps the newest version only (any thread): readings and our own writes
 * may come in any order (Curator's updateValue). TRUE if it moved. */
gboolean zkr__count_update (ZkrCountCore *count, gint value, int version);
/* Worker: the session's internal listener, re-reads after a reconnection. */
void zkr__count_state (ZkrSession *session, ZkrSessionState state, gpointer user_data);
/* Worker (a post): reads the node and arms its watch, once started. */
gboolean zkr__count_arm_in_worker (gpointer data);

G_END_DECLS
