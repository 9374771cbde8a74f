/* zkr CLI: finding and printing a help page (the pages themselves are
 * generated from docs/man/ into zkr-help-pages.c), and checking a page's
 * options against what the command's parser accepts. */

#include <string.h>

#include "zkr-help.h"

const ZkrHelpPage *
zkr_help_lookup (const char *command)
{
  g_return_val_if_fail (command != NULL, NULL);

  for (const ZkrHelpPage *page = zkr_help_commands; page->command != NULL; page++)
    if (strcmp (page->command, command) == 0)
      return page;
  return NULL;
}

gboolean
zkr_help_print (const ZkrHelpPage *page, FILE *out)
{
  g_return_val_if_fail (page != NULL, FALSE);

  return fputs (page->text, out) >= 0 && fflush (out) == 0;
}

static const ZkrHelpOption *
page_option (const ZkrHelpPage *page, const char *long_name)
{
  for (const ZkrHelpOption *option = page->options; option->long_name != NULL; option++)
    if (strcmp (option->long_name, long_name) == 0)
      return option;
  return NULL;
}

/* One line of GOption's listing: "  -t, --timeout=SECONDS  Give up..."
 * or "  --semaphore" gives "timeout" and 't' (0 for none); any other line
 * (the usage, a group's title) gives NULL. (transfer full) */
static char *
listing_option (const char *line, char *short_name)
{
  *short_name = 0;
  while (*line == ' ')
    line++;
  if (line[0] == '-' && line[1] != '-' && line[1] != '\0' && g_str_has_prefix (line + 2, ", --"))
    {
      *short_name = line[1];
      line += 4;
    }
  if (!g_str_has_prefix (line, "--"))
    return NULL;
  line += 2;
  return g_strndup (line, strcspn (line, "= "));
}

static char *
short_name_text (char short_name)
{
  return short_name != 0 ? g_strdup_printf ("-%c", short_name) : g_strdup ("none");
}

/* Every option the parser lists is documented, with its short name. */
static void
check_accepted (const ZkrHelpPage *page, char **lines, GHashTable *accepted, GString *problems)
{
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char short_name;
      char *long_name = listing_option (lines[i], &short_name);
      const ZkrHelpOption *option;

      if (long_name == NULL)
        continue;
      g_hash_table_add (accepted, long_name);
      option = page_option (page, long_name);
      if (option == NULL)
        g_string_append_printf (problems, "; --%s is accepted but not documented", long_name);
      else if (option->short_name != short_name)
        {
          g_autofree char *documented = short_name_text (option->short_name);
          g_autofree char *parsed = short_name_text (short_name);

          g_string_append_printf (problems, "; --%s has the short name %s in its page but %s "
                                  "in the parser", long_name, documented, parsed);
        }
    }
}

char *
zkr_help_check_options (const ZkrHelpPage *page, const char *option_listing)
{
  g_autoptr (GHashTable) accepted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) lines = NULL;
  GString *problems = g_string_new (NULL);

  g_return_val_if_fail (page != NULL && page->options != NULL, NULL);
  g_return_val_if_fail (option_listing != NULL, NULL);

  lines = g_strsplit (option_listing, "\n", -1);
  check_accepted (page, lines, accepted, problems);
  for (const ZkrHelpOption *option = page->options; option->long_name != NULL; option++)
    if (!g_hash_table_contains (accepted, option->long_name))
      g_string_append_printf (problems, "; --%s is documented but not accepted",
                              option->long_name);
  if (problems->len == 0)
    return g_string_free (problems, TRUE);
  /* Without the leading "; ". */
  g_string_erase (problems, 0, 2);
  return g_string_free (problems, FALSE);
}
