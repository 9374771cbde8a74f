/*
 * zkr interop peer for service discovery: Curator's ServiceDiscovery
 * (Debian's curator-x-discovery, its default JSON serializer) driven by
 * one-line commands on stdin, one answer line per command on stdout, so
 * zkr's tests can list and register instances beside Curator's.
 * Usage: java DiscoveryPeer HOSTS BASE. Commands (fields separated by one
 * space; "-" for a missing address, port, ssl port or URI spec):
 *   register NAME ID ADDRESS PORT SSLPORT TIME TYPE ENABLED URISPEC PAYLOAD
 *                  registers an instance built with Curator's builder; the
 *                  payload (the rest of the line, JSON) is read as a
 *                  java.util.Map (a JSON object) or a String (a JSON
 *                  string): "OK" then the instance as "list" prints it
 *   list NAME      queryForInstances, sorted by id: one "INSTANCE ..." line
 *                  each (describe() below), then "OK COUNT"
 *   unregister ID  unregisters an instance this peer registered: "OK"
 *   cache NAME     starts Curator's ServiceCache for NAME: "OK"
 *   cached NAME COUNT MS
 *                  waits (MS at most) until that cache holds COUNT
 *                  instances: one "INSTANCE ..." line each, sorted by id,
 *                  then "OK COUNT"; else "ERROR timeout: N instances"
 *   quit           "OK", then exit
 * Failures answer "ERROR text".
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceInstanceBuilder;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.UriSpec;

public final class DiscoveryPeer
{
  private static final ObjectMapper plain = new ObjectMapper ();
  private final ServiceDiscovery<Object> discovery;
  private final Map<String, ServiceInstance<Object>> ours = new HashMap<> ();
  private final Map<String, ServiceCache<Object>> caches = new HashMap<> ();

  private DiscoveryPeer (ServiceDiscovery<Object> discovery)
  {
    this.discovery = discovery;
  }

  private static String orDash (Object value)
  {
    return value == null ? "-" : value.toString ();
  }

  /* The URI spec back in its template syntax, from its parts. */
  private static String uriSpec (UriSpec spec)
  {
    if (spec == null)
      return "-";
    StringBuilder text = new StringBuilder ();
    for (UriSpec.Part part : spec)
      text.append (part.isVariable () ? "{" + part.getValue () + "}" : part.getValue ());
    return text.toString ();
  }

  /* Every field, the payload as plain JSON (without Jackson's type tag)
   * and its Java class. */
  static String describe (ServiceInstance<Object> instance) throws Exception
  {
    Object payload = instance.getPayload ();

    return "INSTANCE " + instance.getName () + " " + instance.getId () + " "
      + orDash (instance.getAddress ()) + " " + orDash (instance.getPort ()) + " "
      + orDash (instance.getSslPort ()) + " " + instance.getRegistrationTimeUTC () + " "
      + instance.getServiceType () + " " + instance.isEnabled () + " "
      + uriSpec (instance.getUriSpec ()) + " "
      + (payload == null ? "-" : payload.getClass ().getName ()) + " "
      + plain.writeValueAsString (payload);
  }

  private String register (String[] words, String payloadJson) throws Exception
  {
    Object payload = plain.readValue (payloadJson, Object.class);
    ServiceInstanceBuilder<Object> builder = ServiceInstance.<Object>builder ()
      .name (words[1]).id (words[2])
      .address (words[3].equals ("-") ? null : words[3])
      .registrationTimeUTC (Long.parseLong (words[6]))
      .serviceType (ServiceType.valueOf (words[7]))
      .enabled (Boolean.parseBoolean (words[8]))
      .payload (payload);
    /* The builder's port setters take an int: "-" leaves the port null. */
    if (!words[4].equals ("-"))
      builder.port (Integer.parseInt (words[4]));
    if (!words[5].equals ("-"))
      builder.sslPort (Integer.parseInt (words[5]));
    if (!words[9].equals ("-"))
      builder.uriSpec (new UriSpec (words[9]));
    ServiceInstance<Object> instance = builder.build ();

    discovery.registerService (instance);
    ours.put (instance.getId (), instance);
    return "OK " + describe (instance);
  }

  private List<String> list (String name) throws Exception
  {
    List<ServiceInstance<Object>> instances =
      new ArrayList<> (discovery.queryForInstances (name));
    List<String> lines = new ArrayList<> ();

    instances.sort (Comparator.comparing (ServiceInstance::getId));
    for (ServiceInstance<Object> instance : instances)
      lines.add (describe (instance));
    lines.add ("OK " + instances.size ());
    return lines;
  }

  private String cache (String name) throws Exception
  {
    ServiceCache<Object> cache = discovery.serviceCacheBuilder ().name (name).build ();

    cache.start ();
    caches.put (name, cache);
    return "OK";
  }

  private List<String> cached (String name, int count, long ms) throws Exception
  {
    ServiceCache<Object> cache = caches.get (name);
    long end = System.nanoTime () + ms * 1000000L;
    List<ServiceInstance<Object>> instances;
    List<String> lines = new ArrayList<> ();

    if (cache == null)
      {
        lines.add ("ERROR no cache for " + name);
        return lines;
      }
    while ((instances = new ArrayList<> (cache.getInstances ())).size () != count
           && System.nanoTime () < end)
      Thread.sleep (20);
    if (instances.size () != count)
      {
        lines.add ("ERROR timeout: " + instances.size () + " instances");
        return lines;
      }
    instances.sort (Comparator.comparing (ServiceInstance::getId));
    for (ServiceInstance<Object> instance : instances)
      lines.add (describe (instance));
    lines.add ("OK " + instances.size ());
    return lines;
  }

  private void closeCaches () throws Exception
  {
    for (ServiceCache<Object> cache : caches.values ())
      cache.close ();
    caches.clear ();
  }

  private String unregister (String id) throws Exception
  {
    ServiceInstance<Object> instance = ours.remove (id);

    if (instance == null)
      return "ERROR not registered here: " + id;
    discovery.unregisterService (instance);
    return "OK";
  }

  public static void main (String[] args) throws Exception
  {
    PrintStream out = new PrintStream (System.out, true, StandardCharsets.UTF_8);
    BufferedReader in = new BufferedReader (new InputStreamReader (System.in,
                                                                   StandardCharsets.UTF_8));
    CuratorFramework client =
      CuratorFrameworkFactory.newClient (args[0], 10000, 10000,
                                         new ExponentialBackoffRetry (100, 10));
    client.start ();
    ServiceDiscovery<Object> discovery = ServiceDiscoveryBuilder.builder (Object.class)
      .client (client).basePath (args[1]).build ();
    discovery.start ();
    DiscoveryPeer peer = new DiscoveryPeer (discovery);
    String line;

    while ((line = in.readLine ()) != null)
      {
        String[] words = line.split (" ", 11);
        try
          {
            switch (words[0])
              {
              case "register":
                out.println (peer.register (words, words[10]));
                break;
              case "list":
                for (String answer : peer.list (words[1]))
                  out.println (answer);
                break;
              case "unregister":
                out.println (peer.unregister (words[1]));
                break;
              case "cache":
                out.println (peer.cache (words[1]));
                break;
              case "cached":
                for (String answer : peer.cached (words[1], Integer.parseInt (words[2]),
                                                  Long.parseLong (words[3])))
                  out.println (answer);
                break;
              case "quit":
                peer.closeCaches ();
                discovery.close ();
                client.close ();
                out.println ("OK");
                return;
              default:
                out.println ("ERROR unknown command " + words[0]);
              }
          }
        catch (Exception e)
          {
            out.println ("ERROR " + e.toString ().replace ('\n', ' '));
          }
      }
    peer.closeCaches ();
    discovery.close ();
    client.close ();
  }
}
