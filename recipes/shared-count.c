/* zkr: placeholder, being written. */
#include <glib.h>

typedef int ZkrPlaceholdersharedcount;
