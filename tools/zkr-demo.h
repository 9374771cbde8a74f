/* zkr-demo internals: act two (zkr-demo-workers.c). */
#pragma once

/* The worker process: runs until SIGTERM. */
int zkr_demo_worker_main (const char *hosts, const char *base, int index);
/* The parent of act two: spawns @self --worker ..., scripts the faults,
 * prints the summary; 0 when every check held. */
int zkr_demo_workers_run (const char *self, const char *hosts);
