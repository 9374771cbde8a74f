/* zkr: ZooKeeper recipes for C. Include this one header. */
#pragma once

#include <zkr/version.h>
#include <zkr/macros.h>
#include <zkr/error.h>
#include <zkr/retry.h>
#include <zkr/session.h>
#include <zkr/node.h>
#include <zkr/watch.h>
#include <zkr/txn.h>
#include <zkr/node-cache.h>
#include <zkr/tree-cache.h>
#include <zkr/persistent-node.h>
#include <zkr/group-member.h>
#include <zkr/lock.h>
#include <zkr/mutex.h>
#include <zkr/reentrant-mutex.h>
#include <zkr/semaphore.h>
#include <zkr/multi-lock.h>
#include <zkr/rwlock.h>
#include <zkr/leader-latch.h>
#include <zkr/leader-selector.h>
#include <zkr/barrier.h>
#include <zkr/double-barrier.h>
#include <zkr/shared-count.h>
#include <zkr/atomic-long.h>
#include <zkr/revocation.h>
