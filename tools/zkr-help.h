/* zkr CLI: the help pages. Their text is generated at build time from the
 * sources in docs/man/ (docs/man/zkr-man.py writes zkr-help-pages.c and
 * the manual pages from the same files), so `zkr help COMMAND`, `zkr
 * COMMAND --help` and zkr-COMMAND(1) say the same thing. */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

/* An option as its page documents it: "-t, --timeout=SECONDS". */
typedef struct {
  const char *long_name;  /* "timeout" */
  char short_name;        /* 't', or 0 for none */
  const char *arg;        /* "SECONDS", or NULL for a flag */
} ZkrHelpOption;

typedef struct {
  const char *command;             /* "lock"; NULL for zkr's own page */
  const char *summary;             /* "Run a command while holding a distributed lock" */
  const char *const *synopsis;     /* the usage lines, "zkr lock [OPTION…] PATH -- CMD [ARG…]";
                                    * NULL-terminated */
  const ZkrHelpOption *options;    /* the OPTIONS section, up to a NULL long_name;
                                    * NULL for zkr's own page */
  const char *text;                /* the whole page as plain text */
} ZkrHelpPage;

/* zkr(1), and one page per command in the order `zkr help` lists them,
 * up to a NULL command (generated: zkr-help-pages.c). */
extern const ZkrHelpPage zkr_help_main;
extern const ZkrHelpPage zkr_help_commands[];

/* The page of @command, or NULL if there is none. */
const ZkrHelpPage *zkr_help_lookup (const char *command);

/* Prints @page's text on @out and flushes it. Returns FALSE when the
 * text could not be written. */
gboolean zkr_help_print (const ZkrHelpPage *page, FILE *out);

/* Compares the options a parser accepts, as GOption lists them in its
 * help (@option_listing: g_option_context_get_help() of the parser's
 * context; one "  -x, --long" or "  --long" line per option), with those
 * @page documents. Returns NULL when every accepted option is documented
 * with the same short name and every documented one is accepted, else a
 * message naming each difference. (transfer full) */
char *zkr_help_check_options (const ZkrHelpPage *page, const char *option_listing);

G_END_DECLS
