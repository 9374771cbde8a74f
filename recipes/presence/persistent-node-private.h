/* zkr internal: the persistent node's parts: the core both halves share
 * (persistent-node.c: the public object, its waiters and listeners;
 * persistent-node-thread.c: the node's own thread, which keeps the node). */
#pragma once

#include <gio/gio.h>

#include "notifier.h"

#include <zkr/persistent-node.h>

G_BEGIN_DECLS

/* The object's life, under the core's lock. */
typedef enum {
  LIFE_LATENT,
  LIFE_STARTED,
  LIFE_CLOSED,
} Life;

/* What the node's thread is doing. */
typedef enum {
  PHASE_IDLE,      /* nothing out; the next decision is due */
  PHASE_OFFLINE,   /* the session is not connected, or a pause after a failure */
  PHASE_CREATING,  /* a create is out */
  PHASE_CHECKING,  /* a watched read of our path is out */
  PHASE_WRITING,   /* a set of our data is out */
  PHASE_LIVE,      /* ours, watched, with our data */
  PHASE_BLOCKED,   /* our plain path is held by another session's node: watched */
  PHASE_CLOSING,   /* the final delete is out */
  PHASE_DONE,      /* closed: the thread ends once nothing is out */
} Phase;

typedef struct _CloseReply CloseReply;

typedef struct {
  gatomicrefcount ref;
  ZkrSession *session;        /* (owned) */
  char *base_path;            /* as given */
  ZkrCreateMode mode;
  gboolean protection;
  GMainContext *context;      /* (owned) the node's thread's */

  GMutex lock;
  Life life;                  /* lock */
  GBytes *data;               /* (owned) lock */
  guint64 data_serial;        /* lock: bumped by every set_data */
  char *path;                 /* (owned) (nullable) lock; written on the thread */
  gboolean initialized;       /* lock */
  GError *init_failure;       /* (owned) (nullable) lock: why waiters can never pass */
  GList *waiters;             /* lock: Waiter, not yet answered */
  ZkrNotifier *notifier;      /* lock; NULL once the object goes */

  /* the node's thread only */
  Phase phase;
  GMainLoop *loop;            /* (owned) */
  guint listener_id;
  guint watch_id;
  guint retry_source;
  guint outstanding;          /* requests out, the background ones too */
  gboolean busy;              /* the phase's request is out */
  gboolean gone;              /* our path is known not to exist */
  gboolean checked;           /* our path was read (and watched) since the last event */
  gboolean path_unique;       /* the path is one we made (protected or sequential) */
  gboolean ours;              /* the node at our path is known to be ours (we made it,
                               * or a read found it ours) */
  guint64 written_serial;     /* the serial of the data known to be on the node */
  CloseReply *closing;        /* (owned) (nullable) set by close */
} ZkrPersistentCore;

struct _ZkrPersistentNode {
  gatomicrefcount ref;
  ZkrPersistentCore *core;                 /* (owned) */
};

/* A close's answer, shared by the closing thread and the node's thread. */
struct _CloseReply {
  gatomicrefcount ref;
  GMutex lock;
  GCond cond;
  gboolean done;
  GError *error;
  int timeout_ms;
};


/* Set once by a close (any thread), read on the node's thread. */
static inline gboolean
zkr__persistent_node_closing_requested (ZkrPersistentCore *core)
{
  return g_atomic_pointer_get (&core->closing) != NULL;
}

ZkrPersistentCore *zkr__persistent_node_core_ref (ZkrPersistentCore *core);
void zkr__persistent_node_core_unref (ZkrPersistentCore *core);
void zkr__persistent_node_close_reply_unref (CloseReply *reply);
/* Answers every waiter of the initial create with @error (NULL: created;
 * copied for each), in its context. Any thread. */
void zkr__persistent_node_answer_waiters (ZkrPersistentCore *core, const GError *error);
/* Queues a creation event for the listeners (while the object lives and
 * is started). Any thread. */
void zkr__persistent_node_emit_created (ZkrPersistentCore *core);
/* The node was first made: waiters pass. Any thread. */
void zkr__persistent_node_mark_initialized (ZkrPersistentCore *core);

/* The node's thread (g_thread_new: takes a core reference). */
gpointer zkr__persistent_node_thread_run (gpointer core);
/* Any thread but the node's: the node's thread closes the node and ends;
 * @reply (nullable) gets the delete's outcome. */
void zkr__persistent_node_thread_close_core (ZkrPersistentCore *core, CloseReply *reply);
/* A zkr__context_post() function: the data changed, decide again. */
gboolean zkr__persistent_node_thread_wake (gpointer core);

G_END_DECLS
