/* zkr internal: ZkrWait, the one-shot hand-off that wakes a blocked
 * thread (a blocking call's caller, or a stand-in given posts to run). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A one-shot hand-off to a blocked thread. The waiter calls
 * zkr__wait_init(), hands the wait to another thread and calls
 * zkr__wait_block(), which returns (and clears the wait) once that thread
 * called zkr__wait_done(). What the other thread wrote before
 * zkr__wait_done() is visible to the waiter after zkr__wait_block(); done
 * touches nothing after its unlock, so the waiter may free the wait at once. */
typedef struct {
  GMutex lock;
  GCond cond;
  gboolean done;
  gboolean kicked;   /* zkr__session_block_standing_in(): posts to run */
  gboolean sleeping; /* the waiter is in g_cond_wait(): only then signal
                      * (GLib's signal is a system call even with no
                      * waiter, and a stand-in often completes its own wait) */
} ZkrWait;

/* Under @wait's lock: sleeps on its cond once (the caller loops). */
void zkr__wait_sleep_locked (ZkrWait *wait);
/* The same, at most until @end_time (monotonic µs; G_MAXINT64: no
 * limit); FALSE once @end_time passed. */
gboolean zkr__wait_sleep_until_locked (ZkrWait *wait, gint64 end_time);
/* Under @wait's lock: wakes the waiter if it sleeps. */
void zkr__wait_wake_locked (ZkrWait *wait);

void zkr__wait_init (ZkrWait *wait);
void zkr__wait_done (ZkrWait *wait);
void zkr__wait_block (ZkrWait *wait);

G_END_DECLS
