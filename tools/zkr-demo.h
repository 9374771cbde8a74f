/* zkr-demo internals: act two (zkr-demo-workers.c) and the one test-only
 * hook the demo needs (zkr-demo-expire.c). */
#pragma once

#include <zkr/zkr.h>

/* The worker process: runs until SIGTERM. */
int zkr_demo_worker_main (const char *hosts, const char *base, int index);
/* The parent of act two: spawns @self --worker ..., scripts the faults,
 * prints the summary; 0 when every check held. */
int zkr_demo_workers_run (const char *self, const char *hosts);

/* Test-only (zkr-demo-expire.c): expires @session on the server from
 * outside (a second handle opened with its id and password, then closed),
 * the fault the demo shows. No public call gives a session's password, on
 * purpose; this is the one internal hook the demo uses. Blocks up to 20 s;
 * TRUE once the second handle connected. */
gboolean zkr_demo_expire_session (ZkrSession *session, const char *hosts);
