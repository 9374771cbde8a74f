/* zkr: a service instance's JSON in the layout of Curator's
 * JsonInstanceSerializer, read and written with json-glib, bounded (size,
 * nesting) before it is parsed (docs/design.md, "Service discovery"). */
#include <math.h>
#include <string.h>

#include "discovery-private.h"
#include "path.h"

#include <zkr/error.h>

static const char *const type_names[] = { "DYNAMIC", "STATIC", "PERMANENT",
                                          "DYNAMIC_SEQUENTIAL" };
G_STATIC_ASSERT (G_N_ELEMENTS (type_names) == ZKR_SERVICE_DYNAMIC_SEQUENTIAL + 1);

/* ---- bounds --------------------------------------------------------------------- */

/* A byte JSON has outside its strings: whitespace, structure, the quote
 * that opens a string, and what numbers and true/false/null are made of. */
static gboolean
json_byte_outside_strings (char c)
{
  return c != '\0' && (g_ascii_isalnum (c) || strchr (" \t\r\n[]{},:\"+-.", c) != NULL);
}

/* The deepest nesting of arrays and objects in @data, counted outside
 * strings (an escaped quote does not end one), into *@deepest. json-glib's
 * parser recurses once per level: this scan, flat and linear, runs before
 * it so that no text it would overflow its stack on ever reaches it. For
 * the count to be json-glib's, the text must be plain JSON: json-glib also
 * takes comments and single-quoted strings, whose quotes would hide
 * brackets from the count, so a byte JSON has not outside strings ends
 * the scan (FALSE, its offset in *@stray); Jackson, Curator's reader,
 * refuses both too. */
static gboolean
json_text_scan (const char *data, gsize len, gsize *deepest, gsize *stray)
{
  gsize depth = 0;
  gboolean in_string = FALSE;

  *deepest = 0;
  for (gsize i = 0; i < len; i++)
    if (in_string)
      {
        if (data[i] == '\\')
          i++;
        else if (data[i] == '"')
          in_string = FALSE;
      }
    else if (!json_byte_outside_strings (data[i]))
      return *stray = i, FALSE;
    else if (data[i] == '"')
      in_string = TRUE;
    else if (data[i] == '[' || data[i] == '{')
      *deepest = MAX (*deepest, depth + 1), depth++;
    else if ((data[i] == ']' || data[i] == '}') && depth > 0)
      depth--;
  return TRUE;
}

/* Foreign text (@what: "not a service instance", "invalid payload") held
 * to the limits before anything parses it: not empty, at most
 * ZKR_SERVICE_INSTANCE_MAX_SIZE bytes, plain JSON nested at most
 * ZKR_SERVICE_INSTANCE_MAX_DEPTH levels, UTF-8. */
static gboolean
json_text_check_bounds (const char *what, const char *data, gsize len, GError **error)
{
  gsize depth = 0, stray = 0;

  if (len == 0)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: empty (no JSON)", what);
  else if (len > ZKR_SERVICE_INSTANCE_MAX_SIZE)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "%s: %" G_GSIZE_FORMAT " bytes, more than ZKR_SERVICE_INSTANCE_MAX_SIZE (%d)",
                 what, len, ZKR_SERVICE_INSTANCE_MAX_SIZE);
  else if (!g_utf8_validate (data, (gssize) len, NULL))
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: not UTF-8 text", what);
  else if (!json_text_scan (data, len, &depth, &stray))
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "%s: not JSON: byte %" G_GSIZE_FORMAT " (0x%02x) is outside strings (JSON has "
                 "no comments nor single-quoted strings)", what, stray, (guchar) data[stray]);
  else if (depth > ZKR_SERVICE_INSTANCE_MAX_DEPTH)
    g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                 "%s: nested %" G_GSIZE_FORMAT " levels deep, more than "
                 "ZKR_SERVICE_INSTANCE_MAX_DEPTH (%d)", what, depth,
                 ZKR_SERVICE_INSTANCE_MAX_DEPTH);
  else
    return TRUE;
  return FALSE;
}

/* @pointer (a JSON pointer, RFC 6901) with @member appended. */
static void
pointer_append_member (GString *pointer, const char *member)
{
  g_string_append_c (pointer, '/');
  for (const char *p = member; *p != '\0'; p++)
    if (*p == '~')
      g_string_append (pointer, "~0");
    else if (*p == '/')
      g_string_append (pointer, "~1");
    else
      g_string_append_c (pointer, *p);
}

static gboolean
json_value_refuse (const char *what, GString *pointer, const char *problem, GError **error)
{
  g_autofree char *quoted = zkr__path_quote_value (pointer->str, (gssize) pointer->len);

  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: at %s, %s", what, quoted,
               problem);
  return FALSE;
}

static gboolean json_value_check (JsonNode *node, guint levels_left, GString *pointer,
                                  const char *what, GError **error);

static gboolean
json_members_check (JsonObject *object, guint levels_left, GString *pointer, const char *what,
                    GError **error)
{
  gsize mark = pointer->len;
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &member, &value))
    {
      pointer_append_member (pointer, member);
      if (!g_utf8_validate (member, -1, NULL))
        return json_value_refuse (what, pointer, "a member name that is not UTF-8", error);
      if (!json_value_check (value, levels_left, pointer, what, error))
        return FALSE;
      g_string_truncate (pointer, mark);
    }
  return TRUE;
}

/* Whether @node is what JSON text can hold and zkr reads back: every
 * member name and string UTF-8, every number finite (JSON has no NaN or
 * infinity; Jackson writes none either), nesting at most @levels_left
 * more levels. Read text was bounded before it was parsed; a value built
 * by the caller may be anything, hence the depth check here too, which
 * also bounds this recursion. json-glib takes escapes JSON does not have
 * (an octal "\\333" is one byte, 0xDB), so even read text may decode to
 * strings that are not UTF-8. On failure @pointer names the value. */
static gboolean
json_value_check (JsonNode *node, guint levels_left, GString *pointer, const char *what,
                  GError **error)
{
  gsize mark = pointer->len;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
    case JSON_NODE_ARRAY:
      if (levels_left == 0)
        {
          g_autofree char *problem = g_strdup_printf (
            "nested more than ZKR_SERVICE_INSTANCE_MAX_DEPTH (%d) levels in the instance's "
            "JSON", ZKR_SERVICE_INSTANCE_MAX_DEPTH);

          return json_value_refuse (what, pointer, problem, error);
        }
      if (JSON_NODE_HOLDS_OBJECT (node))
        return json_members_check (json_node_get_object (node), levels_left - 1, pointer, what,
                                   error);
      for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
        {
          g_string_append_printf (pointer, "/%u", i);
          if (!json_value_check (json_array_get_element (json_node_get_array (node), i),
                                 levels_left - 1, pointer, what, error))
            return FALSE;
          g_string_truncate (pointer, mark);
        }
      return TRUE;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING
          && !g_utf8_validate (json_node_get_string (node), -1, NULL))
        return json_value_refuse (what, pointer, "a string that is not UTF-8", error);
      if (json_node_get_value_type (node) == G_TYPE_DOUBLE
          && !isfinite (json_node_get_double (node)))
        return json_value_refuse (what, pointer,
                                  isnan (json_node_get_double (node))
                                    ? "NaN, which is no JSON number"
                                    : "an infinity, which is no JSON number (or out of range)",
                                  error);
      return TRUE;
    case JSON_NODE_NULL:
    default:
      return TRUE;
    }
}

/* The levels the instance's JSON has above @payload as written: the
 * instance's object, and for a list Curator's [class, list] wrapper. */
static guint
payload_levels_left (JsonNode *payload)
{
  return ZKR_SERVICE_INSTANCE_MAX_DEPTH - 1 - (JSON_NODE_HOLDS_ARRAY (payload) ? 1 : 0);
}

/* ---- a payload from JSON ------------------------------------------------------ */

gboolean
zkr_service_instance_set_payload_from_json (ZkrServiceInstance *instance, const char *json,
                                            gssize len, GError **error)
{
  static const char what[] = "invalid payload";
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GString) pointer = g_string_new (NULL);
  gsize size;
  JsonNode *root;

  g_return_val_if_fail (instance != NULL, FALSE);
  g_return_val_if_fail (json != NULL || len == 0, FALSE);
  size = len < 0 ? strlen (json) : (gsize) len;
  if (!json_text_check_bounds (what, json, size, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, json, (gssize) size, &parse_error))
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: not JSON: %s", what,
                   parse_error != NULL ? parse_error->message : "json-glib refused it");
      return FALSE;
    }
  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: empty (no JSON)", what);
      return FALSE;
    }
  if (!json_value_check (root, payload_levels_left (root), pointer, what, error))
    return FALSE;
  zkr_service_instance_set_payload (instance, root);
  return TRUE;
}


/* ---- writing --------------------------------------------------------------------- */

static void
add_nullable_int (JsonBuilder *builder, const char *member, int value)
{
  json_builder_set_member_name (builder, member);
  if (value < 0)
    json_builder_add_null_value (builder);
  else
    json_builder_add_int_value (builder, value);
}

/* Jackson's tagging of a payload declared as Object (see above); scalars
 * go as they are. */
static void
add_payload (JsonBuilder *builder, JsonNode *payload)
{
  json_builder_set_member_name (builder, "payload");
  if (payload == NULL)
    json_builder_add_null_value (builder);
  else if (JSON_NODE_HOLDS_OBJECT (payload))
    {
      JsonObject *object = json_node_get_object (payload);
      GList *members = json_object_get_members (object);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, ZKR_JACKSON_CLASS_MEMBER);
      json_builder_add_string_value (builder, ZKR_JACKSON_MAP_CLASS);
      for (GList *m = members; m != NULL; m = m->next)
        {
          json_builder_set_member_name (builder, m->data);
          json_builder_add_value (builder, json_node_copy (json_object_get_member (object,
                                                                                   m->data)));
        }
      json_builder_end_object (builder);
      g_list_free (members);
    }
  else if (JSON_NODE_HOLDS_ARRAY (payload))
    {
      json_builder_begin_array (builder);
      json_builder_add_string_value (builder, ZKR_JACKSON_LIST_CLASS);
      json_builder_add_value (builder, json_node_copy (payload));
      json_builder_end_array (builder);
    }
  else
    json_builder_add_value (builder, json_node_copy (payload));
}

static void
add_uri_part (JsonBuilder *builder, const char *value, gboolean variable)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "value");
  json_builder_add_string_value (builder, value);
  json_builder_set_member_name (builder, "variable");
  json_builder_add_boolean_value (builder, variable);
  json_builder_end_object (builder);
}

/* Curator writes the parsed spec: its parts in order, a variable's name
 * without its braces. An empty piece is no part (Java's StringTokenizer
 * skips them), and the literals on both sides of an empty variable are one
 * part, as a second read of what we write would make them. */
static void
add_uri_spec (JsonBuilder *builder, const char *spec)
{
  g_auto (GStrv) tokens = NULL;
  g_autoptr (GString) literal = g_string_new (NULL);
  gboolean inside = FALSE;

  json_builder_set_member_name (builder, "uriSpec");
  if (spec == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "parts");
  json_builder_begin_array (builder);
  tokens = g_strsplit_set (spec, "{}", -1);
  for (const char *p = spec, *const *token = (const char *const *) tokens; *token != NULL;
       token++)
    {
      g_autofree char *value = inside ? g_strstrip (g_strdup (*token)) : g_strdup (*token);

      p += strlen (*token);
      if (!inside)
        g_string_append (literal, value);
      else if (*value != '\0')
        {
          if (literal->len > 0)
            add_uri_part (builder, literal->str, FALSE);
          g_string_truncate (literal, 0);
          add_uri_part (builder, value, TRUE);
        }
      if (*p != '\0')
        inside = (*p++ == '{');
    }
  if (literal->len > 0)
    add_uri_part (builder, literal->str, FALSE);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

/* json-glib 1.6 (Debian 12) writes a double as g_ascii_dtostr() gives it
 * and appends ".0" when that has no '.': "1e+234" comes out "1e+234.0",
 * which is not JSON. Outside strings, such a number loses the ".0" (NaN
 * and infinities never get here: refused before writing). Takes @json
 * (transfer full); returns the mended text, its length in *@length. */
static char *
json_mend_numbers (char *json, gsize *length)
{
  GString *out = g_string_sized_new (strlen (json));
  gboolean in_string = FALSE;
  const char *p = json;

  while (*p != '\0')
    {
      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            g_string_append_c (out, *p++);
          else if (*p == '"')
            in_string = FALSE;
          g_string_append_c (out, *p++);
        }
      else if (*p == '"')
        {
          in_string = TRUE;
          g_string_append_c (out, *p++);
        }
      else if (*p == '-' || g_ascii_isdigit (*p) || *p == 'i' || *p == 'n')
        {
          /* A number, or a word (null). */
          gsize len = strspn (p, "0123456789+-.eEinfatyul");
          g_autofree char *token = g_strndup (p, len);
          gsize keep = len;

          if (len > 2 && g_str_has_suffix (token, ".0"))
            {
              token[len - 2] = '\0';
              if (strpbrk (token, "eE") != NULL)
                keep = len - 2;
              else
                token[len - 2] = '.';
            }
          token[keep] = '\0';
          g_string_append (out, token);
          p += len;
        }
      else
        g_string_append_c (out, *p++);
    }
  g_free (json);
  if (length != NULL)
    *length = out->len;
  return g_string_free (out, FALSE);
}

/* Whether @instance can be written as JSON that zkr and Curator read
 * back: the setters take any address and payload; what text cannot hold
 * is refused here, naming the field, rather than written wrong. */
static gboolean
instance_check_writable (const ZkrServiceInstance *instance, GError **error)
{
  g_autoptr (GString) pointer = g_string_new (NULL);

  if (instance->address != NULL && !g_utf8_validate (instance->address, -1, NULL))
    {
      g_autofree char *quoted = zkr__path_quote_value (instance->address, -1);

      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid address %s: it is not UTF-8", quoted);
      return FALSE;
    }
  return instance->payload == NULL
         || json_value_check (instance->payload, payload_levels_left (instance->payload),
                              pointer, "invalid payload", error);
}

char *
zkr_service_instance_to_json (const ZkrServiceInstance *instance, gsize *length,
                              GError **error)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *json = NULL;
  gsize len = 0;

  g_return_val_if_fail (instance != NULL, NULL);
  if (!instance_check_writable (instance, error))
    return NULL;
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, instance->name);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, instance->id);
  json_builder_set_member_name (builder, "address");
  if (instance->address == NULL)
    json_builder_add_null_value (builder);
  else
    json_builder_add_string_value (builder, instance->address);
  add_nullable_int (builder, "port", instance->port);
  add_nullable_int (builder, "sslPort", instance->ssl_port);
  add_payload (builder, instance->payload);
  json_builder_set_member_name (builder, "registrationTimeUTC");
  json_builder_add_int_value (builder, instance->registration_time);
  json_builder_set_member_name (builder, "serviceType");
  json_builder_add_string_value (builder, type_names[instance->type]);
  add_uri_spec (builder, instance->uri_spec);
  /* Curator's default serializer leaves "enabled" out and its reader
   * takes a missing one as TRUE: written only when it says something. */
  if (!instance->enabled)
    {
      json_builder_set_member_name (builder, "enabled");
      json_builder_add_boolean_value (builder, FALSE);
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json = json_mend_numbers (json_generator_to_data (generator, NULL), &len);
  /* What no reader takes is not written either. */
  if (len > ZKR_SERVICE_INSTANCE_MAX_SIZE)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid instance: its JSON is %" G_GSIZE_FORMAT " bytes, more than "
                   "ZKR_SERVICE_INSTANCE_MAX_SIZE (%d)", len, ZKR_SERVICE_INSTANCE_MAX_SIZE);
      return NULL;
    }
  if (length != NULL)
    *length = len;
  return g_steal_pointer (&json);
}

/* ---- reading ------------------------------------------------------------------------ */

/* Each reader takes the member @name of @object (missing or null: the
 * default, already in place) and fails on a value of the wrong type. */
static gboolean
wrong_type (const char *name, const char *expected, GError **error)
{
  g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
               "not a service instance: \"%s\" is not %s", name, expected);
  return FALSE;
}

static JsonNode *
member_or_null (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
}

static gboolean
read_string (JsonObject *object, const char *name, char **out, GError **error)
{
  JsonNode *node = member_or_null (object, name);

  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_STRING)
    return wrong_type (name, "a string", error);
  g_free (*out);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
read_int (JsonObject *object, const char *name, gint64 min, gint64 max, gint64 *out,
          GError **error)
{
  JsonNode *node = member_or_null (object, name);

  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < min
      || json_node_get_int (node) > max)
    return wrong_type (name, "an integer in range", error);
  *out = json_node_get_int (node);
  return TRUE;
}

static gboolean
read_port (JsonObject *object, const char *name, int *out, GError **error)
{
  gint64 port = -1;

  if (!read_int (object, name, 0, 65535, &port, error))
    return FALSE;
  *out = (int) port;
  return TRUE;
}

static gboolean
read_service_type (JsonObject *object, ZkrServiceType *out, GError **error)
{
  g_autofree char *name = NULL;

  if (!read_string (object, "serviceType", &name, error))
    return FALSE;
  if (name == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (strcmp (name, type_names[i]) == 0)
      {
        *out = (ZkrServiceType) i;
        return TRUE;
      }
  return wrong_type ("serviceType", "a service type", error);
}

static gboolean
read_boolean (JsonObject *object, const char *name, gboolean *out, GError **error)
{
  JsonNode *node = member_or_null (object, name);

  if (node == NULL)
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return wrong_type (name, "a boolean", error);
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Jackson's list wrapper [class, list] unwrapped; an object's tag is
 * dropped by zkr_service_instance_set_payload(). A bare array is what
 * Jackson refuses for a payload declared as Object: so do we. */
static gboolean
read_payload (JsonObject *object, ZkrServiceInstance *instance, GError **error)
{
  JsonNode *node = member_or_null (object, "payload");
  JsonArray *wrapper;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      zkr_service_instance_set_payload (instance, node);
      return TRUE;
    }
  wrapper = json_node_get_array (node);
  if (json_array_get_length (wrapper) != 2
      || json_node_get_value_type (json_array_get_element (wrapper, 0)) != G_TYPE_STRING
      || !JSON_NODE_HOLDS_ARRAY (json_array_get_element (wrapper, 1)))
    return wrong_type ("payload", "a typed list [class, list]", error);
  zkr_service_instance_set_payload (instance, json_array_get_element (wrapper, 1));
  return TRUE;
}

/* {"parts": [{"value": V, "variable": B}, ...]} back to the template. */
static gboolean
read_uri_spec (JsonObject *object, ZkrServiceInstance *instance, GError **error)
{
  JsonNode *node = member_or_null (object, "uriSpec");
  JsonNode *parts_node;
  g_autoptr (GString) spec = NULL;
  JsonArray *parts;

  if (node == NULL)
    return TRUE;
  parts_node = JSON_NODE_HOLDS_OBJECT (node)
                   ? member_or_null (json_node_get_object (node), "parts") : NULL;
  if (parts_node == NULL || !JSON_NODE_HOLDS_ARRAY (parts_node))
    return wrong_type ("uriSpec", "an object with a list \"parts\"", error);
  parts = json_node_get_array (parts_node);
  spec = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      g_autofree char *value = NULL;
      gboolean variable = FALSE;

      if (!JSON_NODE_HOLDS_OBJECT (part))
        return wrong_type ("uriSpec", "an object with a list of parts", error);
      if (!read_string (json_node_get_object (part), "value", &value, error)
          || !read_boolean (json_node_get_object (part), "variable", &variable, error))
        return FALSE;
      if (variable && value != NULL)
        g_strstrip (value);
      /* An empty part is no part (as the writer makes none): "{}" in the
       * template would part two literals that a second read joins. */
      if (value == NULL || *value == '\0')
        continue;
      g_string_append_printf (spec, variable ? "{%s}" : "%s", value);
    }
  return zkr_service_instance_set_uri_spec (instance, spec->str, error);
}

static gboolean
read_fields (JsonObject *object, ZkrServiceInstance *instance, GError **error)
{
  gint64 time = 0;

  if (!read_string (object, "address", &instance->address, error)
      || !read_port (object, "port", &instance->port, error)
      || !read_port (object, "sslPort", &instance->ssl_port, error)
      || !read_payload (object, instance, error)
      || !read_int (object, "registrationTimeUTC", G_MININT64, G_MAXINT64, &time, error)
      || !read_service_type (object, &instance->type, error)
      || !read_uri_spec (object, instance, error)
      || !read_boolean (object, "enabled", &instance->enabled, error))
    return FALSE;
  instance->registration_time = time;
  return TRUE;
}

ZkrServiceInstance *
zkr_service_instance_from_json (const void *data, gsize len, GError **error)
{
  static const char what[] = "not a service instance";
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GString) pointer = g_string_new (NULL);
  g_autofree char *name = NULL;
  g_autofree char *id = NULL;
  ZkrServiceInstance *instance;
  JsonObject *object;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  /* An empty node's data is (NULL, 0): foreign data like any other. */
  if (!json_text_check_bounds (what, data, len, error))
    return NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) len, &parse_error))
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: %s", what,
                   parse_error != NULL ? parse_error->message : "json-glib refused it");
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "%s: not a JSON object", what);
      return NULL;
    }
  /* What could not be written back as text that reads again is refused
   * here already: an instance zkr reads, it can write. */
  if (!json_value_check (root, ZKR_SERVICE_INSTANCE_MAX_DEPTH, pointer, what, error))
    return NULL;
  object = json_node_get_object (root);
  /* Curator refuses an instance without a name or an id. */
  if (!read_string (object, "name", &name, error) || !read_string (object, "id", &id, error))
    return NULL;
  if (name == NULL || id == NULL)
    {
      wrong_type (name == NULL ? "name" : "id", "there", error);
      return NULL;
    }
  instance = g_new0 (ZkrServiceInstance, 1);
  instance->name = g_steal_pointer (&name);
  instance->id = g_steal_pointer (&id);
  instance->port = instance->ssl_port = -1;
  instance->enabled = TRUE;
  if (!read_fields (object, instance, error))
    {
      zkr_service_instance_free (instance);
      return NULL;
    }
  return instance;
}
