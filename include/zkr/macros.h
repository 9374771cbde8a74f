/* zkr: export and compiler macros shared by every public header.
 * ZKR_API marks the symbols of the public API; the library is built with
 * hidden visibility, so everything else stays internal. */
#pragma once

#if defined(__GNUC__) && __GNUC__ >= 4
#define ZKR_API __attribute__ ((visibility ("default")))
#else
#define ZKR_API
#endif
