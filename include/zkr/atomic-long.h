/* zkr: placeholder, being written (issue 23). */
#pragma once

#include <zkr/session.h>
