/* zkr tests, TSan builds only: make GLib's locks visible to ThreadSanitizer.
 *
 * GLib 2.74's GMutex and GCond are futexes inside libglib, which is not
 * built with TSan, so TSan sees neither the locking nor the happens-before
 * it creates and reports every access made under a GMutex as a race. These
 * wrappers, linked into the test programs (and so taking the calls that
 * zkr's own code makes), call the real functions and tell TSan what they
 * did through its mutex annotation API. Calls made inside libglib itself
 * stay invisible; GMainContext hand-offs are still seen through the
 * wake-up eventfd that TSan does intercept. */

#include <dlfcn.h>

#include <glib.h>

void __tsan_mutex_pre_lock (void *addr, unsigned flags);
void __tsan_mutex_post_lock (void *addr, unsigned flags, int recursion);
void __tsan_mutex_pre_unlock (void *addr, unsigned flags);
void __tsan_mutex_post_unlock (void *addr, unsigned flags);
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

#define TSAN_TRYLOCK 0x10
#define TSAN_TRYLOCK_FAILED 0x20

/* The real function named @name, found behind us in the link order. */
static gpointer
real (const char *name)
{
  gpointer function = dlsym (RTLD_NEXT, name);

  if (function == NULL)
    g_error ("tsan-glib: %s not found", name);
  return function;
}

/* Declares real_##name, the real function, looked up on first use. Two
 * threads may race to look it up: both get the same address, and the
 * atomics keep that benign race out of TSan's reports. */
#define REAL(name)                                                            \
  static __typeof__ (&name) real_##name##_cached;                             \
  __typeof__ (&name) real_##name =                                            \
    __atomic_load_n (&real_##name##_cached, __ATOMIC_ACQUIRE);                \
  if (real_##name == NULL)                                                    \
    {                                                                         \
      real_##name = (__typeof__ (&name)) real (#name);                        \
      __atomic_store_n (&real_##name##_cached, real_##name, __ATOMIC_RELEASE); \
    }

void
g_mutex_lock (GMutex *mutex)
{
  REAL (g_mutex_lock);
  __tsan_mutex_pre_lock (mutex, 0);
  real_g_mutex_lock (mutex);
  __tsan_mutex_post_lock (mutex, 0, 0);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  gboolean locked;

  REAL (g_mutex_trylock);
  __tsan_mutex_pre_lock (mutex, TSAN_TRYLOCK);
  locked = real_g_mutex_trylock (mutex);
  __tsan_mutex_post_lock (mutex, TSAN_TRYLOCK | (locked ? 0 : TSAN_TRYLOCK_FAILED), 0);
  return locked;
}

void
g_mutex_unlock (GMutex *mutex)
{
  REAL (g_mutex_unlock);
  __tsan_mutex_pre_unlock (mutex, 0);
  real_g_mutex_unlock (mutex);
  __tsan_mutex_post_unlock (mutex, 0);
}

/* A wait releases the mutex, sleeps, and takes it back. */
void
g_cond_wait (GCond *cond, GMutex *mutex)
{
  REAL (g_cond_wait);
  __tsan_mutex_pre_unlock (mutex, 0);
  __tsan_mutex_post_unlock (mutex, 0);
  real_g_cond_wait (cond, mutex);
  __tsan_mutex_pre_lock (mutex, 0);
  __tsan_mutex_post_lock (mutex, 0, 0);
  __tsan_acquire (cond);
}

gboolean
g_cond_wait_until (GCond *cond, GMutex *mutex, gint64 end_time)
{
  gboolean signalled;

  REAL (g_cond_wait_until);
  __tsan_mutex_pre_unlock (mutex, 0);
  __tsan_mutex_post_unlock (mutex, 0);
  signalled = real_g_cond_wait_until (cond, mutex, end_time);
  __tsan_mutex_pre_lock (mutex, 0);
  __tsan_mutex_post_lock (mutex, 0, 0);
  __tsan_acquire (cond);
  return signalled;
}

void
g_cond_signal (GCond *cond)
{
  REAL (g_cond_signal);
  __tsan_release (cond);
  real_g_cond_signal (cond);
}

void
g_cond_broadcast (GCond *cond)
{
  REAL (g_cond_broadcast);
  __tsan_release (cond);
  real_g_cond_broadcast (cond);
}

/* GLib's atomic reference counts are functions inside libglib, so TSan
 * does not see the release/acquire that orders a last unref before the
 * free. The same operations done here, in instrumented code. */
void
g_atomic_ref_count_init (gatomicrefcount *arc)
{
  __atomic_store_n (arc, 1, __ATOMIC_SEQ_CST);
}

void
g_atomic_ref_count_inc (gatomicrefcount *arc)
{
  __atomic_fetch_add (arc, 1, __ATOMIC_SEQ_CST);
}

gboolean
g_atomic_ref_count_dec (gatomicrefcount *arc)
{
  return __atomic_fetch_sub (arc, 1, __ATOMIC_SEQ_CST) == 1;
}

gboolean
g_atomic_ref_count_compare (gatomicrefcount *arc, gint val)
{
  return __atomic_load_n (arc, __ATOMIC_SEQ_CST) == val;
}
