/* zkr unit tests: a log of lettered steps, for the tests of posts and
 * timers (test-executor.c, test-context.c). Each step run appends its
 * letter, so a test compares the running order with a string. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What the steps of one test record. The lock and cond are for the tests
 * whose checks run on another thread than the steps. A test that needs
 * more makes this its struct's first member and records the rest itself. */
typedef struct {
  GMutex lock;
  GCond cond;
  GString *order;      /* one letter per run, in running order */
  guint destroyed;     /* step_destroy() calls */
  GThread *ran_on;     /* the thread the last run was on */
} StepLog;

/* One post or timer's data: which log, which letter. */
typedef struct {
  StepLog *log;
  char letter;
} Step;

void step_log_init (StepLog *log);
void step_log_clear (StepLog *log);

/* Records a run of @letter on this thread, and wakes the waiters. */
void step_log_append (StepLog *log, char letter);

/* The number of runs recorded. */
gsize step_log_count (StepLog *log);

/* Waits (up to 10 s) until @count runs were recorded; returns whether
 * they were. */
gboolean step_log_wait_count (StepLog *log, gsize count);

/* Returns: (transfer full): the letters recorded so far. */
char *step_log_dup_order (StepLog *log);

/* Returns: (transfer full): a step of @letter into @log, for step_destroy()
 * to free. */
Step *step_new (StepLog *log, char letter);

/* A GDestroyNotify: counts the destroy in the step's log, then frees
 * @step (a Step, or a struct that begins with one). */
void step_destroy (gpointer step);

G_END_DECLS
