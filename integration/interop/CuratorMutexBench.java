// zkr benchmark peer: K clients, each its own CuratorFramework (its own
// ZooKeeper session), contend for one InterProcessMutex on --path: W untimed
// cycles each, then all start together and run acquire + release for
// --seconds. Prints one JSON line in zkr-bench's shape (impl "curator"), so
// integration/bench/run-bench-latency.sh can put Curator beside zkr's mutex
// and the raw loop. violations counts acquisitions that found another holder
// (always 0 for a correct lock). The nodes it made are removed at the end.

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;

public final class CuratorMutexBench
{
  private static String hosts;
  private static String path = "/zkr-bench/curator";
  private static int clients = 1;
  private static double seconds = 5;
  private static int warmup = 10;

  private static final AtomicInteger holders = new AtomicInteger ();
  private static final AtomicLong violations = new AtomicLong ();
  private static volatile long startNanos;
  private static volatile long endNanos;

  private static void usage (String why)
  {
    System.out.println ("ERROR " + why);
    System.err.println ("usage: CuratorMutexBench --hosts H [--path P] [--clients K] "
                        + "[--seconds S] [--warmup W]");
    System.exit (2);
  }

  private static void parse (String[] args)
  {
    for (int i = 0; i < args.length; i += 2)
      {
        if (i + 1 >= args.length)
          usage ("option " + args[i] + " needs a value");
        String value = args[i + 1];
        try
          {
            switch (args[i])
              {
              case "--hosts": hosts = value; break;
              case "--path": path = value; break;
              case "--clients": clients = Integer.parseInt (value); break;
              case "--seconds": seconds = Double.parseDouble (value); break;
              case "--warmup": warmup = Integer.parseInt (value); break;
              default: usage ("unknown option " + args[i]);
              }
          }
        catch (NumberFormatException e)
          {
            usage ("bad number for " + args[i] + ": " + value);
          }
      }
    if (hosts == null || clients < 1 || seconds <= 0 || warmup < 0)
      usage ("--hosts is required; --clients >= 1, --seconds > 0, --warmup >= 0");
  }

  private static void cycle (InterProcessMutex mutex, List<Long> latencies) throws Exception
  {
    long start = System.nanoTime ();

    mutex.acquire ();
    if (latencies != null)
      latencies.add (System.nanoTime () - start);
    if (holders.incrementAndGet () > 1)
      violations.incrementAndGet ();
    holders.decrementAndGet ();
    mutex.release ();
  }

  private static double percentileMs (long[] sorted, double p)
  {
    if (sorted.length == 0)
      return 0;
    int index = (int) Math.min (sorted.length - 1, Math.ceil (p * sorted.length) - 1);
    return sorted[Math.max (0, index)] / 1e6;
  }

  public static void main (String[] args) throws Exception
  {
    parse (args);
    List<CuratorFramework> frameworks = new ArrayList<> ();
    for (int k = 0; k < clients; k++)
      {
        CuratorFramework framework = CuratorFrameworkFactory.builder ()
          .connectString (hosts).sessionTimeoutMs (10000).connectionTimeoutMs (10000)
          .retryPolicy (new RetryNTimes (3, 100)).build ();
        framework.start ();
        if (!framework.blockUntilConnected (15, TimeUnit.SECONDS))
          {
            System.out.println ("ERROR client " + k + " did not connect to " + hosts);
            System.exit (1);
          }
        frameworks.add (framework);
      }

    // The timed phase starts when the last one is warmed up: the barrier's
    // action runs before anyone passes it.
    CyclicBarrier ready = new CyclicBarrier (clients + 1, () -> {
      startNanos = System.nanoTime ();
      endNanos = startNanos + (long) (seconds * 1e9);
    });
    CyclicBarrier done = new CyclicBarrier (clients + 1);
    List<List<Long>> latencies = new ArrayList<> ();
    long[] counts = new long[clients];
    Throwable[] failures = new Throwable[clients];
    List<Thread> threads = new ArrayList<> ();
    for (int k = 0; k < clients; k++)
      {
        final int index = k;
        final List<Long> mine = new ArrayList<> ();
        latencies.add (mine);
        Thread thread = new Thread (() -> {
          InterProcessMutex mutex = new InterProcessMutex (frameworks.get (index), path);
          try
            {
              for (int i = 0; i < warmup; i++)
                cycle (mutex, null);
              ready.await ();
              while (System.nanoTime () < endNanos)
                {
                  cycle (mutex, mine);
                  counts[index]++;
                }
            }
          catch (Throwable e)
            {
              failures[index] = e;
              ready.reset ();
            }
          finally
            {
              try
                {
                  done.await ();
                }
              catch (Exception ignored)
                {
                }
            }
        });
        threads.add (thread);
      }
    for (Thread thread : threads)
      thread.start ();
    try
      {
        ready.await ();
      }
    catch (Exception e)
      {
        // A client failed in its warm-up: it reports below.
      }
    done.await ();
    long elapsedNanos = startNanos == 0 ? 0 : System.nanoTime () - startNanos;
    for (Thread thread : threads)
      thread.join ();

    int status = 0;
    for (int k = 0; k < clients; k++)
      if (failures[k] != null)
        {
          System.err.println ("CuratorMutexBench: client " + k + ": " + failures[k]);
          status = 1;
        }
    try
      {
        frameworks.get (0).delete ().deletingChildrenIfNeeded ().forPath (path);
      }
    catch (KeeperException.NoNodeException ignored)
      {
      }
    for (CuratorFramework framework : frameworks)
      framework.close ();

    long total = Arrays.stream (counts).sum ();
    long[] all = latencies.stream ().flatMap (List::stream).mapToLong (Long::longValue).toArray ();
    Arrays.sort (all);
    double elapsed = elapsedNanos / 1e9;
    System.out.println (String.format (Locale.ROOT,
      "{\"impl\":\"curator\",\"clients\":%d,\"cycles_total\":%d,\"seconds\":%.3f,"
      + "\"cycles_per_s\":%.1f,\"acquire_ms_p50\":%.3f,\"acquire_ms_p99\":%.3f,\"violations\":%d}",
      clients, total, elapsed, elapsed > 0 ? total / elapsed : 0.0, percentileMs (all, 0.50),
      percentileMs (all, 0.99), violations.get ()));
    System.exit (status);
  }
}
