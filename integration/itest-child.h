/* zkr integration: a child process (a Java peer, a zkr process of the
 * test's own) spoken to by lines on its stdin and stdout, every read with
 * a deadline. Plain fds, no GSubprocess: its pipe threads trip
 * ThreadSanitizer inside GIO, and a blocking line read could not keep a
 * deadline. Shared by the interop suites. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *name;          /* for messages */
  GPid pid;
  int in_fd;
  int out_fd;
  GString *pending;          /* bytes read, not yet a whole line */
  const char *skip_prefix;   /* (nullable) lines the answers pass over
                              * (a listener's reports) */
} ItestChild;

/* Starts @argv (searched in PATH); the child dies with the test program. A
 * CUnit fatal failure if it cannot start. */
ItestChild *itest_child_spawn (const char *name, const char *const *argv);
/* The next line @child prints, by @deadline_us (monotonic); NULL at its
 * end of output or the deadline. (transfer full) */
char *itest_child_read_line (ItestChild *child, gint64 deadline_us);
/* The next line not starting with @child->skip_prefix; says so on stderr
 * when none came in time. (transfer full) (nullable) */
char *itest_child_answer (ItestChild *child, gint64 deadline_us);
/* Writes @command and a newline to @child's stdin. */
void itest_child_send (ItestChild *child, const char *command);
/* The next answer (within ITEST_WAIT_MS) is @expected: a CUnit assertion. */
void itest_child_expect (ItestChild *child, const char *expected);
/* Closes @child's stdin (its cue to end), waits for its exit (within
 * ITEST_WAIT_MS, draining its output), kills it if it did not come, and
 * frees @child. Returns its exit status, -1 if killed. */
int itest_child_finish (ItestChild *child);

G_END_DECLS
