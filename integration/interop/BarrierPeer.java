/*
 * zkr interop peer for the barriers: Curator's DistributedBarrier and
 * DistributedDoubleBarrier (Debian's jars) on one path, driven by one-line
 * commands on stdin, one answer line per command on stdout, so that zkr's
 * tests can mix Curator and zkr members in one barrier.
 *
 *   java -cp CLASSPATH BarrierPeer --hosts H --path P [--members N]
 *        [--session-timeout-ms T]
 *
 * Prints READY once connected (ERROR ..., exit 1 after 15 s; bad options:
 * ERROR ..., exit 2). Commands and answers:
 *   set                 SET          DistributedBarrier.setBarrier()
 *   remove              REMOVED      removeBarrier()
 *   wait MS             PASSED | TIMEOUT   waitOnBarrier(MS) (MS < 0: forever)
 *   enter MS            ENTERED | TIMEOUT  DistributedDoubleBarrier(P, N).enter(MS)
 *   leave MS            LEFT | TIMEOUT     leave(MS)
 *   children            CHILDREN name:E|P:hexdata ...  P's children in byte order
 *                       (E: ephemeral), with their data
 *   member              MEMBER <full path of our member node>
 *   session             SESSION 0x<session id>
 *   quit (or EOF)       BYE
 * A failed command answers ERROR <exception>: <message>.
 */

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;

public final class BarrierPeer
{
  private static final int CONNECT_TIMEOUT_MS = 15000;

  private final PrintStream out;
  private final CuratorFramework client;
  private final String path;
  private final DistributedBarrier barrier;
  private final DistributedDoubleBarrier doubleBarrier;

  private BarrierPeer (PrintStream out, CuratorFramework client, String path, int members)
  {
    this.out = out;
    this.client = client;
    this.path = path;
    this.barrier = new DistributedBarrier (client, path);
    this.doubleBarrier = new DistributedDoubleBarrier (client, path, members);
  }

  private static long millis (String[] words) throws Exception
  {
    if (words.length != 2)
      throw new IllegalArgumentException ("expected one argument, milliseconds");
    return Long.parseLong (words[1]);
  }

  private String children () throws Exception
  {
    List<String> names = new ArrayList<> (client.getChildren ().forPath (path));
    StringBuilder line = new StringBuilder ("CHILDREN");

    Collections.sort (names);
    for (String name : names)
      {
        Stat stat = new Stat ();
        byte[] data = client.getData ().storingStatIn (stat).forPath (ZKPaths.makePath (path, name));
        line.append (' ').append (name).append (':').append (stat.getEphemeralOwner () != 0 ? 'E' : 'P')
            .append (':');
        for (byte b : data)
          line.append (String.format ("%02x", b));
      }
    return line.toString ();
  }

  private String member () throws Exception
  {
    Field field = DistributedDoubleBarrier.class.getDeclaredField ("ourPath");

    field.setAccessible (true);
    return "MEMBER " + field.get (doubleBarrier);
  }

  private String answer (String line) throws Exception
  {
    String[] words = line.trim ().split ("\\s+");

    switch (words[0])
      {
      case "set":
        barrier.setBarrier ();
        return "SET";
      case "remove":
        barrier.removeBarrier ();
        return "REMOVED";
      case "wait":
        {
          long ms = millis (words);
          boolean passed = ms < 0 ? waitForever () : barrier.waitOnBarrier (ms, TimeUnit.MILLISECONDS);
          return passed ? "PASSED" : "TIMEOUT";
        }
      case "enter":
        {
          long ms = millis (words);
          boolean entered = ms < 0 ? enterForever () : doubleBarrier.enter (ms, TimeUnit.MILLISECONDS);
          return entered ? "ENTERED" : "TIMEOUT";
        }
      case "leave":
        {
          long ms = millis (words);
          boolean left = ms < 0 ? leaveForever () : doubleBarrier.leave (ms, TimeUnit.MILLISECONDS);
          return left ? "LEFT" : "TIMEOUT";
        }
      case "children":
        return children ();
      case "member":
        return member ();
      case "session":
        return String.format ("SESSION 0x%x", client.getZookeeperClient ().getZooKeeper ().getSessionId ());
      default:
        throw new IllegalArgumentException ("unknown command " + words[0]);
      }
  }

  private boolean waitForever () throws Exception
  {
    barrier.waitOnBarrier ();
    return true;
  }

  private boolean enterForever () throws Exception
  {
    doubleBarrier.enter ();
    return true;
  }

  private boolean leaveForever () throws Exception
  {
    doubleBarrier.leave ();
    return true;
  }

  private void run (BufferedReader in) throws Exception
  {
    String line;

    while ((line = in.readLine ()) != null)
      {
        if (line.trim ().equals ("quit"))
          break;
        String reply;
        try
          {
            reply = answer (line);
          }
        catch (Exception e)
          {
            reply = "ERROR " + e.getClass ().getSimpleName () + ": " + e.getMessage ();
          }
        out.println (reply);
        out.flush ();
      }
    client.close ();
    out.println ("BYE");
    out.flush ();
  }

  public static void main (String[] args) throws Exception
  {
    /* Curator's own logging must stay off the protocol's stdout. */
    PrintStream out = new PrintStream (new FileOutputStream (FileDescriptor.out), true,
                                       StandardCharsets.UTF_8);
    System.setOut (System.err);
    String hosts = null, path = null;
    int members = 1, sessionTimeoutMs = 10000;

    try
      {
        for (int i = 0; i < args.length; i += 2)
          {
            String value = i + 1 < args.length ? args[i + 1] : null;
            if (value == null)
              throw new IllegalArgumentException ("missing value for " + args[i]);
            switch (args[i])
              {
              case "--hosts": hosts = value; break;
              case "--path": path = value; break;
              case "--members": members = Integer.parseInt (value); break;
              case "--session-timeout-ms": sessionTimeoutMs = Integer.parseInt (value); break;
              default: throw new IllegalArgumentException ("unknown option " + args[i]);
              }
          }
        if (hosts == null || path == null)
          throw new IllegalArgumentException ("--hosts and --path are required");
      }
    catch (IllegalArgumentException e)
      {
        out.println ("ERROR " + e.getMessage ());
        System.exit (2);
        return;
      }
    CuratorFramework client = CuratorFrameworkFactory.newClient (hosts, sessionTimeoutMs, CONNECT_TIMEOUT_MS,
                                                                 new ExponentialBackoffRetry (100, 5));
    client.start ();
    if (!client.blockUntilConnected (CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
      {
        out.println ("ERROR not connected after " + CONNECT_TIMEOUT_MS + " ms");
        client.close ();
        System.exit (1);
        return;
      }
    BarrierPeer peer = new BarrierPeer (out, client, path, members);
    out.println ("READY");
    peer.run (new BufferedReader (new InputStreamReader (System.in, StandardCharsets.UTF_8)));
    System.exit (0);
  }
}
