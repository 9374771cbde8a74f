/* zkr benchmarks: a malloc counter to preload (LD_PRELOAD) into a
 * benchmark. It counts the calls of malloc, calloc, realloc, the aligned
 * allocators and free in the whole process, hands each on to glibc's own
 * allocator, and writes the counts as one JSON line at exit: to the file
 * named by ZKR_MALLOC_COUNT_OUT (appended), else to stderr.
 * run-bench-alloc.sh divides the difference of two runs' counts by the
 * difference of their acquisitions (docs/performance.md). */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glibc's allocator under its own names: calling these instead of looking
 * the next malloc up with dlsym avoids dlsym's own calloc recursing here. */
extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t count, size_t size);
extern void *__libc_realloc (void *block, size_t size);
extern void __libc_free (void *block);
extern void *__libc_memalign (size_t alignment, size_t size);

/* Relaxed: each is a tally read once at exit, after the threads that
 * matter are done; nothing is ordered by them. */
static atomic_ulong count_malloc;
static atomic_ulong count_calloc;
static atomic_ulong count_realloc;
static atomic_ulong count_memalign;
static atomic_ulong count_free;

static void
tally (atomic_ulong *counter)
{
  atomic_fetch_add_explicit (counter, 1, memory_order_relaxed);
}

void *
malloc (size_t size)
{
  tally (&count_malloc);
  return __libc_malloc (size);
}

void *
calloc (size_t count, size_t size)
{
  tally (&count_calloc);
  return __libc_calloc (count, size);
}

void *
realloc (void *block, size_t size)
{
  tally (&count_realloc);
  return __libc_realloc (block, size);
}

/* glibc's reallocarray calls its realloc internally, past this file. */
void *
reallocarray (void *block, size_t count, size_t size)
{
  size_t bytes;

  if (__builtin_mul_overflow (count, size, &bytes))
    {
      errno = ENOMEM;
      return NULL;
    }
  return realloc (block, bytes);
}

void
free (void *block)
{
  if (block != NULL)
    tally (&count_free);
  __libc_free (block);
}

void *
memalign (size_t alignment, size_t size)
{
  tally (&count_memalign);
  return __libc_memalign (alignment, size);
}

void *
aligned_alloc (size_t alignment, size_t size)
{
  return memalign (alignment, size);
}

int
posix_memalign (void **out, size_t alignment, size_t size)
{
  void *block;

  if (alignment % sizeof (void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0)
    return EINVAL;
  block = memalign (alignment, size);
  if (block == NULL)
    return ENOMEM;
  *out = block;
  return 0;
}

void *
valloc (size_t size)
{
  return memalign ((size_t) sysconf (_SC_PAGESIZE), size);
}

/* One JSON line; written with write(2) from a stack buffer so that the
 * report itself allocates nothing. */
__attribute__ ((destructor)) static void
report (void)
{
  unsigned long m = atomic_load (&count_malloc), c = atomic_load (&count_calloc);
  unsigned long r = atomic_load (&count_realloc), a = atomic_load (&count_memalign);
  unsigned long f = atomic_load (&count_free);
  const char *path = getenv ("ZKR_MALLOC_COUNT_OUT");
  char line[256];
  int fd = STDERR_FILENO, length;

  length = snprintf (line, sizeof line,
                     "{\"malloc\":%lu,\"calloc\":%lu,\"realloc\":%lu,\"memalign\":%lu,"
                     "\"allocations\":%lu,\"free\":%lu}\n",
                     m, c, r, a, m + c + r + a, f);
  if (length <= 0 || (size_t) length >= sizeof line)
    return;
  if (path != NULL && path[0] != '\0')
    {
      fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd < 0)
        {
          fd = STDERR_FILENO;
          dprintf (fd, "malloc-count: cannot open '%s': %s\n", path, strerror (errno));
        }
    }
  if (write (fd, line, (size_t) length) != length)
    return;
  if (fd != STDERR_FILENO)
    close (fd);
}
