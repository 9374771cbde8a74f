/* zkr integration: the zkr tool run as a subprocess (ZKR_CLI), shared by
 * the cli suites: a child with its output in files, its exit awaited from
 * the test's thread, and searches in what it printed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How long a zkr run or a line of its output is awaited. */
#define CLI_WAIT_MS 60000

/* A child process whose stdout and stderr go to temporary files. Plain
 * g_spawn and waitpid from the test's thread: nothing runs behind the
 * test's back (GSubprocess's pipe threads trip ThreadSanitizer inside
 * GIO). */
typedef struct {
  GPid pid;
  char *out_path;
  char *err_path;
  int wait_status;
  gboolean exited;
} Proc;

/* Kills @proc if it still runs, reaps it, removes its files. (nullable) */
void proc_free (Proc *proc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Proc, proc_free)

/* Starts @argv with zkr's environment (ZKR_HOSTS the ensemble) plus @env
 * ("NAME=VALUE", nullable); the child dies with the test program. NULL
 * (and a CUnit failure) if it cannot start. */
Proc *proc_spawn (const char *const *argv, const char *const *env);
/* Sends @signo unless @proc has exited. */
void proc_signal (Proc *proc, int signo);
/* Waits for @proc to exit and returns its exit status (128 + N if it
 * died of signal N), -1 on timeout. @out and @err (nullable) get what it
 * printed. (transfer full) */
int proc_finish (Proc *proc, int timeout_ms, char **out, char **err);

/* The zkr program under test (ZKR_CLI; a CUnit failure if unset). */
const char *zkr_path (void);
/* Starts zkr with @args (NULL-terminated). */
Proc *zkr_spawn_v (const char *const *args);
#define zkr_spawn(...) zkr_spawn_v ((const char *const[]) { __VA_ARGS__, NULL })
/* Runs zkr to completion: its exit status, -1 if it did not end within
 * CLI_WAIT_MS. */
int zkr_run_v (const char *const *args, char **out, char **err);
#define zkr_run(out, err, ...) zkr_run_v ((const char *const[]) { __VA_ARGS__, NULL }, out, err)
/* Waits until @file (a running zkr's output) holds @needle @count times. */
gboolean wait_output (const char *file, const char *needle, guint count);

/* The index of @needle in @haystack (both nullable), or -1. */
gssize text_index (const char *haystack, const char *needle);
/* How many times @needle occurs in @haystack (nullable). */
guint text_count (const char *haystack, const char *needle);

/* A new empty temporary directory. (transfer full) */
char *scratch_dir (void);
/* Removes @dir and the files in it. */
void scratch_dir_remove (const char *dir);

G_END_DECLS
