/* zkr holders: the queue of a lock, latch or semaphore path, holder(s)
 * first, then the waiters, each with its client id, session, fencing token
 * and age; as a table or as JSON for scripts. The kind of recipe is told
 * from the node names (Curator's layouts) and listed with the recipes' own
 * participant listings, so the holder marks follow each recipe's rule. */

#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "zkr-cli.h"

typedef struct {
  ZkrParticipant *participant;  /* (owned) */
  const char *type;             /* "lock", "read", "write", "lease", "latch" */
  const char *queue;            /* "" or "locks" (a semaphore's waiters) */
} HolderRow;

typedef struct {
  ZkrCli cli;
  const char *path;
  gboolean json;
  int max_leases;
  ZkrSession *session;   /* (owned) */
  const char *kind;      /* "mutex", "rwlock", "semaphore", "latch", "none" */
  GPtrArray *rows;       /* (owned) of HolderRow */
} Holders;

static void
row_free (gpointer data)
{
  HolderRow *row = data;

  zkr_participant_free (row->participant);
  g_free (row);
}

static void
rows_take (Holders *holders, GPtrArray *participants, const char *type, const char *queue)
{
  while (participants->len > 0)
    {
      HolderRow *row = g_new0 (HolderRow, 1);

      row->participant = g_ptr_array_steal_index (participants, 0);
      row->type = type;
      row->queue = queue;
      g_ptr_array_add (holders->rows, row);
    }
}

static gboolean
name_has (GPtrArray *participants, const char *part)
{
  for (guint i = 0; i < participants->len; i++)
    if (strstr (((ZkrParticipant *) participants->pdata[i])->node, part) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
name_is (GPtrArray *participants, const char *name)
{
  for (guint i = 0; i < participants->len; i++)
    if (strcmp (((ZkrParticipant *) participants->pdata[i])->node, name) == 0)
      return TRUE;
  return FALSE;
}

/* ---- listing each kind ------------------------------------------------ */

static GPtrArray *
list_mutex (Holders *holders, const char *path, GError **error)
{
  g_autoptr (ZkrMutex) mutex = zkr_mutex_new (holders->session, path, error);

  return mutex != NULL ? zkr_mutex_list_participants (mutex, NULL, error) : NULL;
}

static gboolean
list_rwlock (Holders *holders, GError **error)
{
  g_autoptr (ZkrRwlock) rwlock = zkr_rwlock_new (holders->session, holders->path, error);
  g_autoptr (GPtrArray) participants = NULL;

  if (rwlock == NULL || (participants = zkr_rwlock_list_participants (rwlock, NULL, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < participants->len; i++)
    {
      ZkrParticipant *participant = g_steal_pointer (&participants->pdata[i]);
      HolderRow *row = g_new0 (HolderRow, 1);

      row->participant = participant;
      row->type = strstr (participant->node, "__WRIT__") != NULL ? "write" : "read";
      row->queue = "";
      g_ptr_array_add (holders->rows, row);
    }
  return TRUE;
}

/* The leader latch: leader iff first by the sequence after "latch-". */
static int
compare_latch (gconstpointer a, gconstpointer b)
{
  const ZkrParticipant *x = *(ZkrParticipant *const *) a, *y = *(ZkrParticipant *const *) b;
  const char *sx = g_strrstr (x->node, "latch-"), *sy = g_strrstr (y->node, "latch-");

  if (sx == NULL || sy == NULL)
    return (sx == NULL) - (sy == NULL);
  return strcmp (sx, sy);
}

static void
list_latch (Holders *holders, GPtrArray *participants)
{
  g_ptr_array_sort (participants, compare_latch);
  for (guint i = participants->len; i-- > 0;)
    {
      ZkrParticipant *participant = participants->pdata[i];

      if (strstr (participant->node, "latch-") == NULL)
        g_ptr_array_remove_index (participants, i);
      else
        participant->is_holder = i == 0;
    }
  rows_take (holders, participants, "latch", "");
}

/* Only "lock-" nodes take part (Curator's getParticipantNodes): the
 * first of them in queue order holds. */
static void
list_mutex_nodes (Holders *holders, GPtrArray *participants)
{
  for (guint i = participants->len; i-- > 0;)
    if (strstr (((ZkrParticipant *) participants->pdata[i])->node, "lock-") == NULL)
      g_ptr_array_remove_index (participants, i);
  for (guint i = 0; i < participants->len; i++)
    ((ZkrParticipant *) participants->pdata[i])->is_holder = i == 0;
  rows_take (holders, participants, "lock", "");
}

/* Without the limit: every lease node is held, except the newest one of
 * the client that holds PATH/locks, which is being admitted (SemaphoreV2
 * keeps the locks mutex until its lease is through). */
static void
semaphore_mark_admitting (GPtrArray *leases, GPtrArray *locks)
{
  gint64 admitting = 0;

  for (guint i = 0; i < locks->len; i++)
    if (((ZkrParticipant *) locks->pdata[i])->is_holder)
      admitting = ((ZkrParticipant *) locks->pdata[i])->session_id;
  for (guint i = leases->len; admitting != 0 && i-- > 0;)
    if (((ZkrParticipant *) leases->pdata[i])->session_id == admitting)
      {
        ((ZkrParticipant *) leases->pdata[i])->is_holder = FALSE;
        break;
      }
}

static gboolean
list_semaphore (Holders *holders, GError **error)
{
  g_autofree char *locks_path = g_strconcat (holders->path, "/locks", NULL);
  g_autoptr (ZkrSemaphore) semaphore = NULL;
  g_autoptr (GPtrArray) leases = NULL;
  g_autoptr (GPtrArray) locks = NULL;

  semaphore = zkr_semaphore_new (holders->session, holders->path,
                                 holders->max_leases > 0 ? (guint) holders->max_leases : G_MAXINT,
                                 error);
  if (semaphore == NULL
      || (leases = zkr_semaphore_list_participants (semaphore, NULL, error)) == NULL
      || (locks = list_mutex (holders, locks_path, error)) == NULL)
    return FALSE;
  if (holders->max_leases == 0)
    semaphore_mark_admitting (leases, locks);
  rows_take (holders, leases, "lease", "leases");
  /* Behind the leases: who waits for PATH/locks to be admitted. */
  for (guint i = locks->len; i-- > 0;)
    if (((ZkrParticipant *) locks->pdata[i])->is_holder)
      g_ptr_array_remove_index (locks, i);
  rows_take (holders, locks, "lock", "locks");
  return TRUE;
}

static gboolean
holders_list (Holders *holders, GError **error)
{
  g_autoptr (GPtrArray) children = list_mutex (holders, holders->path, error);

  if (children == NULL)
    return FALSE;
  if (children->len == 0)
    holders->kind = "none";
  else if (name_is (children, "leases") || name_is (children, "locks"))
    holders->kind = "semaphore";
  else if (name_has (children, "__READ__") || name_has (children, "__WRIT__"))
    holders->kind = "rwlock";
  else if (name_has (children, "latch-"))
    holders->kind = "latch";
  else if (name_has (children, "lock-"))
    holders->kind = "mutex";
  else
    holders->kind = "none";
  if (g_str_equal (holders->kind, "semaphore"))
    return list_semaphore (holders, error);
  if (g_str_equal (holders->kind, "rwlock"))
    return list_rwlock (holders, error);
  if (g_str_equal (holders->kind, "latch"))
    list_latch (holders, children);
  else if (g_str_equal (holders->kind, "mutex"))
    list_mutex_nodes (holders, children);
  return TRUE;
}

/* ---- output -------------------------------------------------------------- */

/* A string member: json-glib escapes quotes, backslashes and control
 * characters but writes the bytes of invalid UTF-8 as they are, so such
 * text (none expected: the listing replaces a client id that is not UTF-8
 * by "<binary>", and paths are checked) gets U+FFFD in their place. */
static void
json_add_text (JsonBuilder *builder, const char *name, const char *text)
{
  g_autofree char *valid = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);

  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, valid != NULL ? valid : text);
}

static void
json_add_int (JsonBuilder *builder, const char *name, gint64 value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static gint64
row_age_ms (const HolderRow *row)
{
  return MAX (g_get_real_time () / 1000 - row->participant->created_ms, 0);
}

static void
json_add_row (JsonBuilder *builder, const HolderRow *row)
{
  const ZkrParticipant *p = row->participant;
  g_autofree char *session_id = g_strdup_printf ("0x%016" G_GINT64_MODIFIER "x", p->session_id);

  json_builder_begin_object (builder);
  json_add_text (builder, "role", p->is_holder ? "holder" : "waiter");
  json_add_text (builder, "type", row->type);
  json_add_text (builder, "node", p->node);
  json_add_text (builder, "client_id", p->client_id);
  json_add_text (builder, "session_id", session_id);
  json_add_int (builder, "token", p->token);
  json_add_int (builder, "age_ms", row_age_ms (row));
  if (*row->queue != '\0')
    json_add_text (builder, "queue", row->queue);
  json_builder_end_object (builder);
}

static void
print_json (Holders *holders)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_add_text (builder, "path", holders->path);
  json_add_text (builder, "kind", holders->kind);
  json_builder_set_member_name (builder, "participants");
  json_builder_begin_array (builder);
  for (guint i = 0; i < holders->rows->len; i++)
    json_add_row (builder, holders->rows->pdata[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

static void
print_table (Holders *holders)
{
  guint held = 0;

  for (guint i = 0; i < holders->rows->len; i++)
    held += ((HolderRow *) holders->rows->pdata[i])->participant->is_holder;
  printf ("%s: %s, %u holding, %u waiting\n", holders->path, holders->kind, held,
          holders->rows->len - held);
  if (holders->rows->len == 0)
    return;
  printf ("%-7s %-6s %-20s %-18s %9s  %-24s %s\n", "ROLE", "TYPE", "TOKEN", "SESSION", "AGE",
          "CLIENT", "NODE");
  for (guint i = 0; i < holders->rows->len; i++)
    {
      const HolderRow *row = holders->rows->pdata[i];
      const ZkrParticipant *p = row->participant;
      g_autofree char *node = *row->queue != '\0' ? g_strconcat (row->queue, "/", p->node, NULL)
                                                  : g_strdup (p->node);

      printf ("%-7s %-6s %-20" G_GINT64_FORMAT " 0x%016" G_GINT64_MODIFIER "x %8.1fs  %-24s %s\n",
              p->is_holder ? "holder" : "waiter", row->type, p->token, p->session_id,
              row_age_ms (row) / 1000.0, p->client_id, node);
    }
}

int
zkr_cmd_holders (int argc, char **argv)
{
  Holders holders = { .cli = { .command = "holders" } };
  GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &holders.json, NULL, NULL },
    { "semaphore", 0, 0, G_OPTION_ARG_INT, &holders.max_leases, NULL, NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = ZKR_EXIT_USAGE;

  context = zkr_cli_context_new (&holders.cli, entries);
  if (!zkr_cli_parse (&holders.cli, context, &argc, &argv))
    ;
  else if (argc < 2)
    zkr_cli_usage_error (&holders.cli, "missing PATH");
  else if (argc > 2)
    zkr_cli_usage_error (&holders.cli, "unexpected argument '%s'", argv[2]);
  else if (holders.max_leases < 0)
    zkr_cli_usage_error (&holders.cli, "bad --semaphore %d: need N >= 1", holders.max_leases);
  else if ((holders.session = zkr_cli_connect (&holders.cli, &status)) != NULL)
    {
      holders.path = argv[1];
      holders.rows = g_ptr_array_new_with_free_func (row_free);
      if (holders_list (&holders, &error))
        {
          holders.json ? print_json (&holders) : print_table (&holders);
          status = 0;
        }
      else
        status = zkr_cli_report (&holders.cli, error);
      g_ptr_array_unref (holders.rows);
      zkr_session_close (holders.session);
      zkr_session_unref (holders.session);
    }
  zkr_cli_clear (&holders.cli);
  return status;
}
