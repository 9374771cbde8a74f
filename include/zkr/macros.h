/**
 * SECTION:macros
 * @title: Macros
 * @short_description: export and compiler macros shared by every public
 *   header
 * @include: zkr/zkr.h
 *
 * ZKR_API marks the symbols of the public API; the library is built with
 * hidden visibility, so everything else stays internal.
 */
#pragma once

/**
 * ZKR_API:
 *
 * Marks a function of the public API: exported from the shared library
 * (default visibility), which is built with hidden visibility, so that
 * every function without it stays internal. Every public function's
 * declaration starts with it; applications have no use for it.
 *
 * Since: 0.1
 */
#if defined(__GNUC__) && __GNUC__ >= 4
#define ZKR_API __attribute__ ((visibility ("default")))
#else
#define ZKR_API
#endif

/**
 * ZKR_DEPRECATED_ENUMERATOR_FOR:
 * @replacement: what to use instead
 *
 * Marks an enumerator that stays for the ABI but is no longer produced:
 * each use warns (GCC >= 6, clang). Define ZKR_DISABLE_DEPRECATION_WARNINGS
 * before including zkr to silence it.
 *
 * Since: 0.1
 */
#if !defined(ZKR_DISABLE_DEPRECATION_WARNINGS) && \
    (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
#define ZKR_DEPRECATED_ENUMERATOR_FOR(replacement) \
  __attribute__ ((__deprecated__ ("use " #replacement " instead")))
#else
#define ZKR_DEPRECATED_ENUMERATOR_FOR(replacement)
#endif
