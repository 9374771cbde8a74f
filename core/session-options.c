/* zkr: the options a session is made from. A plain value object: setters
 * store, zkr_session_new() validates (zkr__session_options_validate, at the
 * end: so that one error names the bad value, whatever setter it came
 * through). */

#include <string.h>
#include <unistd.h>

#include "error-private.h"
#include "path.h"
#include "session-internal.h"

/* "user:password" at most (the CLI's --auth-file line has the same bound). */
#define DIGEST_AUTH_MAX 4096

ZkrSessionOptions *
zkr_session_options_new (void)
{
  ZkrSessionOptions *options = g_new0 (ZkrSessionOptions, 1);

  options->hosts = g_strdup ("127.0.0.1:2181");
  options->session_timeout_ms = 10000;
  options->connection_timeout_ms = 15000;
  options->retry = zkr_retry_policy_exponential_new (100, 5000, 10);
  options->acl = ZKR_ACL_OPEN;
  options->client_id = g_strdup_printf ("%s/%d", g_get_host_name (), (int) getpid ());
  options->drift = 0.02;
  options->margin_ms = -1;
  return options;
}

ZkrSessionOptions *
zkr_session_options_copy (const ZkrSessionOptions *options)
{
  ZkrSessionOptions *copy;

  g_return_val_if_fail (options != NULL, NULL);
  copy = g_memdup2 (options, sizeof *options);
  copy->hosts = g_strdup (options->hosts);
  copy->retry = zkr_retry_policy_ref (options->retry);
  copy->name_space = g_strdup (options->name_space);
  copy->auth_user = g_strdup (options->auth_user);
  copy->auth_password = g_strdup (options->auth_password);
  copy->client_id = g_strdup (options->client_id);
  return copy;
}

static void
clear_secret (char **secret)
{
  if (*secret != NULL)
    memset (*secret, 0, strlen (*secret));
  g_clear_pointer (secret, g_free);
}

void
zkr_session_options_free (ZkrSessionOptions *options)
{
  if (options == NULL)
    return;
  g_free (options->hosts);
  zkr_retry_policy_unref (options->retry);
  g_free (options->name_space);
  g_free (options->auth_user);
  clear_secret (&options->auth_password);
  g_free (options->client_id);
  g_free (options);
}

void
zkr_session_options_set_hosts (ZkrSessionOptions *options, const char *hosts)
{
  g_return_if_fail (options != NULL);
  g_free (options->hosts);
  options->hosts = g_strdup (hosts);
}

void
zkr_session_options_set_session_timeout_ms (ZkrSessionOptions *options, int timeout_ms)
{
  g_return_if_fail (options != NULL);
  options->session_timeout_ms = timeout_ms;
}

void
zkr_session_options_set_connection_timeout_ms (ZkrSessionOptions *options, int timeout_ms)
{
  g_return_if_fail (options != NULL);
  options->connection_timeout_ms = timeout_ms;
}

void
zkr_session_options_set_retry_policy (ZkrSessionOptions *options, ZkrRetryPolicy *policy)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (policy != NULL);
  zkr_retry_policy_ref (policy);
  zkr_retry_policy_unref (options->retry);
  options->retry = policy;
}

void
zkr_session_options_set_namespace (ZkrSessionOptions *options, const char *name_space)
{
  g_return_if_fail (options != NULL);
  g_free (options->name_space);
  options->name_space = (name_space != NULL && *name_space != '\0') ? g_strdup (name_space) : NULL;
}

void
zkr_session_options_set_digest_auth (ZkrSessionOptions *options,
                                     const char *user,
                                     const char *password)
{
  g_return_if_fail (options != NULL);
  g_free (options->auth_user);
  clear_secret (&options->auth_password);
  options->auth_user = g_strdup (user);
  options->auth_password = g_strdup (password);
}

void
zkr_session_options_set_acl (ZkrSessionOptions *options, ZkrAclMode mode)
{
  g_return_if_fail (options != NULL);
  options->acl = mode;
}

void
zkr_session_options_set_client_id (ZkrSessionOptions *options, const char *client_id)
{
  g_return_if_fail (options != NULL);
  g_free (options->client_id);
  options->client_id = g_strdup (client_id);
}

void
zkr_session_options_set_liveness (ZkrSessionOptions *options, double drift, int margin_ms)
{
  g_return_if_fail (options != NULL);
  options->drift = drift;
  options->margin_ms = margin_ms;
}

gboolean
zkr__session_options_validate (const ZkrSessionOptions *options, ZkrHosts *hosts, GError **error)
{
  if (options->hosts == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT, "no connect string given");
      return FALSE;
    }
  if (!zkr__hosts_parse (options->hosts, hosts, error))
    return FALSE;
  if (options->session_timeout_ms <= 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid session timeout %d ms: must be > 0", options->session_timeout_ms);
      return FALSE;
    }
  if (options->connection_timeout_ms <= 0)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid connection timeout %d ms: must be > 0", options->connection_timeout_ms);
      return FALSE;
    }
  if (!zkr__path_validate_namespace (options->name_space, error))
    return FALSE;
  if (options->auth_user != NULL &&
      (*options->auth_user == '\0' || strchr (options->auth_user, ':') != NULL ||
       options->auth_password == NULL))
    {
      /* The user name may be shown; the password never is. */
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid digest user \"%s\": must be non-empty, without ':', with a password",
                   options->auth_user);
      return FALSE;
    }
  /* The auth packet goes out on every (re)connect, outside the request
   * door: bounded here, so that a server never closes the connection for
   * it. The password's own length is not shown either. */
  if (options->auth_user != NULL &&
      strlen (options->auth_user) + 1 + strlen (options->auth_password) > DIGEST_AUTH_MAX)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid digest credentials: user and password longer than %d bytes together",
                   DIGEST_AUTH_MAX);
      return FALSE;
    }
  if (options->acl != ZKR_ACL_OPEN && options->auth_user == NULL)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "ACL mode %d needs digest auth: set it with zkr_session_options_set_digest_auth()",
                   (int) options->acl);
      return FALSE;
    }
  if ((int) options->acl < ZKR_ACL_OPEN || options->acl > ZKR_ACL_CREATOR_ALL_WORLD_READ)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid ACL mode %d", (int) options->acl);
      return FALSE;
    }
  if (options->client_id == NULL || !g_utf8_validate (options->client_id, -1, NULL) ||
      strlen (options->client_id) > 1024)
    {
      g_autofree char *quoted = zkr__path_quote_value (options->client_id, -1);

      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid client id %s: must be UTF-8 text of at most 1024 bytes", quoted);
      return FALSE;
    }
  if (!(options->drift >= 0.0 && options->drift < 0.5) || options->margin_ms < -1)
    {
      g_set_error (error, ZKR_ERROR, ZKR_ERROR_INVALID_ARGUMENT,
                   "invalid liveness settings drift %g margin %d ms: need 0 <= drift < 0.5, margin >= 0 (or -1)",
                   options->drift, options->margin_ms);
      return FALSE;
    }
  return TRUE;
}
