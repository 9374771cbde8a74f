/* zkr integration: a child process spoken to by lines
 * (integration/itest-child.h). */
#include "itest-child.h"
#include "itest.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void
child_setup (gpointer data)
{
  (void) data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

ItestChild *
itest_child_spawn (const char *name, const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  ItestChild *child = g_new0 (ItestChild, 1);
  gboolean ok;

  child->name = name;
  child->pending = g_string_new (NULL);
  ok = g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, child_setup,
                                 NULL, &child->pid, &child->in_fd, &child->out_fd, NULL, &error);
  if (!ok)
    g_printerr ("%s: cannot start: %s\n", name, error->message);
  CU_ASSERT_TRUE_FATAL (ok);
  return child;
}

/* The next line @child prints, by @deadline_us (monotonic); NULL at its
 * end of output or the deadline. (transfer full) */
char *
itest_child_read_line (ItestChild *child, gint64 deadline_us)
{
  for (;;)
    {
      const char *newline = memchr (child->pending->str, '\n', child->pending->len);
      struct pollfd pfd = { .fd = child->out_fd, .events = POLLIN };
      gint64 left_ms = (deadline_us - g_get_monotonic_time ()) / 1000;
      char buffer[4096];
      ssize_t got;

      if (newline != NULL)
        {
          gsize len = (gsize) (newline - child->pending->str);
          char *line = g_strndup (child->pending->str, len);

          g_string_erase (child->pending, 0, (gssize) len + 1);
          return line;
        }
      if (left_ms <= 0)
        return NULL;
      if (poll (&pfd, 1, (int) MIN (left_ms, G_MAXINT)) < 0 && errno != EINTR)
        return NULL;
      if (pfd.revents == 0)
        continue;
      got = read (child->out_fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return NULL;
      g_string_append_len (child->pending, buffer, got);
    }
}

/* The next answer line, skipping the peer's CHANGED lines (its listener
 * prints them whenever it hears a change). (transfer full) (nullable) */
char *
itest_child_answer (ItestChild *child, gint64 deadline_us)
{
  char *line;

  while ((line = itest_child_read_line (child, deadline_us)) != NULL &&
         child->skip_prefix != NULL && g_str_has_prefix (line, child->skip_prefix))
    g_free (line);
  if (line == NULL)
    g_printerr ("%s: no answer in time\n", child->name);
  return line;
}

void
itest_child_send (ItestChild *child, const char *command)
{
  g_autofree char *line = g_strdup_printf ("%s\n", command);
  gsize len = strlen (line);

  CU_ASSERT_EQUAL (write (child->in_fd, line, len), (ssize_t) len);
}

void
itest_child_expect (ItestChild *child, const char *expected)
{
  g_autofree char *line = itest_child_answer (child, g_get_monotonic_time () +
                                                       (gint64) ITEST_WAIT_MS * 1000);

  if (g_strcmp0 (line, expected) != 0)
    g_printerr ("%s answered '%s', expected '%s'\n", child->name,
                line != NULL ? line : "(nothing)", expected);
  CU_ASSERT_STRING_EQUAL (line != NULL ? line : "", expected);
}

/* Closes @child's stdin (its cue to end), waits for its exit by the
 * deadline, kills it if it did not come. Returns its exit status, -1 if
 * killed. */
int
itest_child_finish (ItestChild *child)
{
  gint64 end = g_get_monotonic_time () + (gint64) ITEST_WAIT_MS * 1000;
  int status = 0;
  pid_t done = 0;

  close (child->in_fd);
  while ((done = waitpid (child->pid, &status, WNOHANG)) == 0 && g_get_monotonic_time () < end)
    {
      struct pollfd pfd = { .fd = child->out_fd, .events = POLLIN };
      char buffer[4096];

      /* Drain its output so a full pipe cannot hold its exit. */
      if (poll (&pfd, 1, 20) > 0 && read (child->out_fd, buffer, sizeof buffer) <= 0)
        g_usleep (20000);
    }
  if (done == 0)
    {
      kill (child->pid, SIGKILL);
      waitpid (child->pid, &status, 0);
      status = -1;
    }
  else
    status = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  close (child->out_fd);
  g_string_free (child->pending, TRUE);
  g_free (child);
  return status;
}

