/*
 * zkr interop peer for the counters: Curator's DistributedAtomicLong and
 * SharedCount (Debian's jars) driven by one-line commands on stdin, one
 * answer line per command on stdout, so zkr's tests can count on the same
 * nodes as Curator. Usage: java CounterPeer HOSTS. Commands:
 *   increment PATH N   N increments (each retried until it succeeded):
 *                      "OK N FAILED_TRIES LAST_POST_VALUE"
 *   get PATH           the atomic long's value: "OK VALUE"
 *   bytes PATH         the node's data in hex and its version: "OK HEX VERSION"
 *   count-start PATH SEED  a SharedCount; every change its listener hears
 *                      is printed as "CHANGED VALUE": "OK VALUE"
 *   count-set VALUE    setCount: "OK"
 *   heard VALUE MS     waits up to MS ms until the listener has heard VALUE:
 *                      "HEARD VALUE", else "NOT-HEARD VALUE"
 *   quit               "OK", then exit
 * Failures answer "ERROR text". CHANGED lines come whenever the listener
 * hears a change, between answers too: a reader skips them.
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.SharedCountListener;
import org.apache.curator.framework.recipes.shared.SharedCountReader;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.data.Stat;

public final class CounterPeer
{
  private final PrintStream out;
  private final CuratorFramework client;
  private SharedCount count;
  /* Every value the listener heard: "heard" waits on it, so a test waits
   * with a deadline instead of blocking on a line that may never come. */
  private final java.util.Set<Integer> heardValues = new java.util.HashSet<> ();

  private CounterPeer (PrintStream out, CuratorFramework client)
  {
    this.out = out;
    this.client = client;
  }

  private synchronized void answer (String line)
  {
    out.println (line);
    out.flush ();
  }

  private String increment (String path, int n) throws Exception
  {
    /* As the zkr side's default: optimism retried, no lock. */
    DistributedAtomicLong atomic =
      new DistributedAtomicLong (client, path, new RetryNTimes (1000, 0));
    long failed = 0, last = 0;

    for (int i = 0; i < n; i++)
      {
        AtomicValue<Long> value = atomic.increment ();

        while (!value.succeeded ())
          {
            failed++;
            value = atomic.increment ();
          }
        last = value.postValue ();
      }
    return "OK " + n + " " + failed + " " + last;
  }

  private String bytes (String path) throws Exception
  {
    Stat stat = new Stat ();
    byte[] data = client.getData ().storingStatIn (stat).forPath (path);
    StringBuilder hex = new StringBuilder ();

    for (byte b : data)
      hex.append (String.format ("%02x", b & 0xff));
    return "OK " + (hex.length () == 0 ? "-" : hex.toString ()) + " " + stat.getVersion ();
  }

  private String countStart (String path, int seed) throws Exception
  {
    count = new SharedCount (client, path, seed);
    count.addListener (new SharedCountListener ()
      {
        @Override
        public void countHasChanged (SharedCountReader reader, int value)
        {
          synchronized (heardValues)
            {
              heardValues.add (value);
              heardValues.notifyAll ();
            }
          answer ("CHANGED " + value);
        }

        @Override
        public void stateChanged (CuratorFramework c, ConnectionState state) {}
      });
    count.start ();
    return "OK " + count.getCount ();
  }

  private String heard (int value, long ms) throws InterruptedException
  {
    long end = System.nanoTime () + ms * 1000000L;

    synchronized (heardValues)
      {
        while (!heardValues.contains (value))
          {
            long left = (end - System.nanoTime ()) / 1000000L;

            if (left <= 0)
              return "NOT-HEARD " + value;
            heardValues.wait (left);
          }
      }
    return "HEARD " + value;
  }

  private String run (String[] words) throws Exception
  {
    switch (words[0])
      {
      case "increment":
        return increment (words[1], Integer.parseInt (words[2]));
      case "get":
        return "OK " + new DistributedAtomicLong (client, words[1], new RetryNTimes (3, 10))
                         .get ().postValue ();
      case "bytes":
        return bytes (words[1]);
      case "count-start":
        return countStart (words[1], Integer.parseInt (words[2]));
      case "count-set":
        count.setCount (Integer.parseInt (words[1]));
        return "OK";
      case "heard":
        return heard (Integer.parseInt (words[1]), Long.parseLong (words[2]));
      default:
        return "ERROR unknown command " + words[0];
      }
  }

  public static void main (String[] args) throws Exception
  {
    PrintStream out = new PrintStream (System.out, true, "UTF-8");
    CuratorFramework client =
      CuratorFrameworkFactory.newClient (args[0], 30000, 15000,
                                         new ExponentialBackoffRetry (100, 3));
    BufferedReader in =
      new BufferedReader (new InputStreamReader (System.in, StandardCharsets.UTF_8));
    CounterPeer peer = new CounterPeer (out, client);
    String line;

    client.start ();
    if (!client.blockUntilConnected (15, java.util.concurrent.TimeUnit.SECONDS))
      {
        out.println ("ERROR not connected");
        System.exit (2);
      }
    out.println ("READY");
    while ((line = in.readLine ()) != null)
      {
        String[] words = line.trim ().split ("\\s+");

        if (words[0].equals ("quit"))
          break;
        try
          {
            peer.answer (peer.run (words));
          }
        catch (Exception e)
          {
            peer.answer ("ERROR " + e);
          }
      }
    if (peer.count != null)
      peer.count.close ();
    client.close ();
    peer.answer ("OK");
    System.exit (0);
  }
}
