/* zkr: placeholder, being written. */
#pragma once

#include <zkr/session.h>
