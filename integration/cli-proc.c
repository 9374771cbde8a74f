/* zkr integration: the zkr tool run as a subprocess for the cli suites
 * (test-cli.c, test-cli-node.c): spawning it with its output in files,
 * waiting for its exit or for a line of its output, and text searches. */

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <glib/gstdio.h>

#include "cli-proc.h"
#include "itest.h"

const char *
zkr_path (void)
{
  const char *path = g_getenv ("ZKR_CLI");

  CU_ASSERT_PTR_NOT_NULL (path);
  return path != NULL ? path : "zkr";
}

void
proc_free (Proc *proc)
{
  if (proc == NULL)
    return;
  if (!proc->exited)
    {
      kill (proc->pid, SIGKILL);
      waitpid (proc->pid, NULL, 0);
    }
  g_unlink (proc->out_path);
  g_unlink (proc->err_path);
  g_free (proc->out_path);
  g_free (proc->err_path);
  g_free (proc);
}

/* In the child before exec: if the test program dies (a FATAL assertion
 * skips every proc_free), the zkr it started dies too instead of holding
 * its lock node for ever. */
static void
proc_child_setup (gpointer data)
{
  (void) data;
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

Proc *
proc_spawn (const char *const *argv, const char *const *env)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  Proc *proc = g_new0 (Proc, 1);
  int out_fd = g_file_open_tmp ("zkr-cli-out-XXXXXX", &proc->out_path, NULL);
  int err_fd = g_file_open_tmp ("zkr-cli-err-XXXXXX", &proc->err_path, NULL);
  gboolean ok;

  envp = g_environ_setenv (envp, "ZKR_HOSTS", itest_hosts (), TRUE);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (env[i], strcspn (env[i], "="));

      envp = g_environ_setenv (envp, name, env[i] + strlen (name) + 1, TRUE);
    }
  ok = out_fd >= 0 && err_fd >= 0
       && g_spawn_async_with_fds (NULL, (char **) argv, envp,
                                  G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                  proc_child_setup, NULL,
                                  &proc->pid, -1, out_fd, err_fd, &error);
  close (out_fd);
  close (err_fd);
  CU_ASSERT_TRUE (ok);
  if (!ok)
    {
      proc->exited = TRUE;
      proc_free (proc);
      return NULL;
    }
  return proc;
}

void
proc_signal (Proc *proc, int signo)
{
  if (proc != NULL && !proc->exited)
    kill (proc->pid, signo);
}

static gboolean
proc_poll_exited (gpointer data)
{
  Proc *proc = data;

  if (!proc->exited && waitpid (proc->pid, &proc->wait_status, WNOHANG) == proc->pid)
    proc->exited = TRUE;
  return proc->exited;
}

int
proc_finish (Proc *proc, int timeout_ms, char **out, char **err)
{
  g_autofree char *err_text = NULL;

  if (!itest_wait_for (proc_poll_exited, proc, timeout_ms))
    return -1;
  if (out != NULL)
    g_file_get_contents (proc->out_path, out, NULL, NULL);
  /* A sanitizer's report in zkr's stderr (a leak found at exit turns the
   * status into 1) goes into the test's log whole, whatever the test then
   * asserts: the status alone would not tell what happened. */
  if (g_file_get_contents (proc->err_path, &err_text, NULL, NULL)
      && strstr (err_text, "Sanitizer") != NULL)
    {
      g_printerr ("zkr (pid %d) printed a sanitizer report:\n%s\n", (int) proc->pid, err_text);
      CU_FAIL ("a sanitizer reported on zkr's stderr");
    }
  if (err != NULL)
    *err = g_steal_pointer (&err_text);
  if (WIFSIGNALED (proc->wait_status))
    return 128 + WTERMSIG (proc->wait_status);
  return WEXITSTATUS (proc->wait_status);
}

Proc *
zkr_spawn_v (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) zkr_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return proc_spawn ((const char *const *) argv->pdata, NULL);
}

int
zkr_run_v (const char *const *args, char **out, char **err)
{
  g_autoptr (Proc) proc = zkr_spawn_v (args);

  return proc != NULL ? proc_finish (proc, CLI_WAIT_MS, out, err) : -1;
}

gssize
text_index (const char *haystack, const char *needle)
{
  const char *at = haystack != NULL && needle != NULL ? strstr (haystack, needle) : NULL;

  return at != NULL ? at - haystack : -1;
}

guint
text_count (const char *haystack, const char *needle)
{
  guint count = 0;

  for (const char *at = haystack; at != NULL && (at = strstr (at, needle)) != NULL; at++)
    count++;
  return count;
}

char *
scratch_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("zkr-cli-XXXXXX", &error);

  CU_ASSERT_PTR_NOT_NULL (dir);
  return dir;
}

void
scratch_dir_remove (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      g_remove (file);
    }
  g_rmdir (dir);
}

typedef struct {
  const char *file;
  const char *needle;
  guint count;
} FileWait;

static gboolean
file_has (gpointer data)
{
  FileWait *wait = data;
  g_autofree char *text = NULL;

  return g_file_get_contents (wait->file, &text, NULL, NULL)
         && text_count (text, wait->needle) >= wait->count;
}

gboolean
wait_output (const char *file, const char *needle, guint count)
{
  FileWait wait = { file, needle, count };

  return itest_wait_for (file_has, &wait, CLI_WAIT_MS);
}
