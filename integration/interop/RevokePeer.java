/*
 * zkr interop peer for revocable locks: a Curator InterProcessMutex made
 * revocable (its listener reports each request and releases) and Curator's
 * Revoker, driven by one-line commands on stdin, one answer line each on
 * stdout, as ZkrPeer (README.md beside this file).
 */
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;

public final class RevokePeer
{
  private static final int CONNECT_TIMEOUT_MS = 15000;

  private final PrintStream out;
  private final CuratorFramework client;
  private final String path;
  private final InterProcessMutex mutex;
  /* InterProcessMutex belongs to the thread that acquired it: acquire,
   * release and the revocation listener all run on this one thread (the
   * listener through makeRevocable's executor), so the listener may
   * release. */
  private final ExecutorService lockThread = Executors.newSingleThreadExecutor ();
  private final Object state = new Object ();
  private int requests;          /* revocation requests heard; guarded by state */
  private int revokedReleases;   /* releases made by the listener; guarded by state */
  private String heldNode;       /* our node while held; guarded by state */

  private RevokePeer (PrintStream out, CuratorFramework client, String path)
  {
    this.out = out;
    this.client = client;
    this.path = path;
    this.mutex = new InterProcessMutex (client, path);
  }

  private void say (String line)
  {
    out.println (line);
    out.flush ();
  }

  private static String oneLine (Throwable e)
  {
    String message = e.getMessage ();
    return e.getClass ().getSimpleName () + ": " + (message == null ? "" : message.replace ('\n', ' '));
  }

  /* Runs on lockThread: the holder decides, and this one gives the lock up. */
  private void onRevocationRequested (InterProcessMutex forLock)
  {
    synchronized (state)
      {
        requests++;
      }
    try
      {
        if (forLock.isOwnedByCurrentThread ())
          {
            forLock.release ();
            synchronized (state)
              {
                revokedReleases++;
                heldNode = null;
                state.notifyAll ();
              }
          }
      }
    catch (Exception e)
      {
        System.err.println ("RevokePeer: release on revocation: " + oneLine (e));
      }
    synchronized (state)
      {
        state.notifyAll ();
      }
  }

  private <T> T onLockThread (Callable<T> call) throws Exception
  {
    try
      {
        return lockThread.submit (call).get ();
      }
    catch (java.util.concurrent.ExecutionException e)
      {
        throw (e.getCause () instanceof Exception) ? (Exception) e.getCause () : e;
      }
  }

  private static String lockPathOf (InterProcessMutex mutex) throws Exception
  {
    Method method = InterProcessMutex.class.getDeclaredMethod ("getLockPath");
    method.setAccessible (true);
    return (String) method.invoke (mutex);
  }

  private void commandAcquire (long ms) throws Exception
  {
    String answer = onLockThread (() -> {
        /* Curator forgets the listener at every release: register it for
         * each hold. */
        mutex.makeRevocable (this::onRevocationRequested, lockThread);
        boolean got = ms < 0 ? acquireForever () : mutex.acquire (ms, TimeUnit.MILLISECONDS);
        if (!got)
          return "TIMEOUT";
        String node = lockPathOf (mutex);
        Stat stat = client.checkExists ().forPath (node);
        synchronized (state)
          {
            heldNode = node;
          }
        return "ACQUIRED " + (stat == null ? 0 : stat.getCzxid ());
      });
    say (answer);
  }

  private boolean acquireForever () throws Exception
  {
    mutex.acquire ();
    return true;
  }

  private void commandRelease () throws Exception
  {
    onLockThread (() -> {
        if (!mutex.isOwnedByCurrentThread ())
          throw new IllegalStateException ("lock not held");
        mutex.release ();
        synchronized (state)
          {
            heldNode = null;
          }
        return null;
      });
    say ("RELEASED");
  }

  /* Waits until the listener has released on a request (or @ms passed). */
  private void commandRevoked (long ms) throws Exception
  {
    long deadline = System.nanoTime () + TimeUnit.MILLISECONDS.toNanos (ms);
    synchronized (state)
      {
        while (revokedReleases == 0)
          {
            long left = TimeUnit.NANOSECONDS.toMillis (deadline - System.nanoTime ());
            if (left <= 0)
              break;
            state.wait (left);
          }
        say (revokedReleases > 0 ? "REVOKED " + requests : "NOT_REVOKED " + requests);
      }
  }

  private void dispatch (String[] words) throws Exception
  {
    switch (words[0])
      {
      case "acquire": commandAcquire (Long.parseLong (words[1])); break;
      case "release": commandRelease (); break;
      case "revoked": commandRevoked (Long.parseLong (words[1])); break;
      case "requests":
        synchronized (state)
          {
            say ("REQUESTS " + requests);
          }
        break;
      case "node":
        synchronized (state)
          {
            say ("NODE " + (heldNode == null ? "-" : heldNode));
          }
        break;
      case "revoke":
        /* Curator's own revoker: "__REVOKE__" written at any version, a
         * missing node ignored. */
        Revoker.attemptRevoke (client, words[1]);
        say ("REVOKE_SENT");
        break;
      case "holder":
        {
          java.util.Collection<String> nodes = mutex.getParticipantNodes ();
          say ("HOLDER " + (nodes.isEmpty () ? "-" : nodes.iterator ().next ()));
        }
        break;
      case "data":
        {
          byte[] data = client.getData ().forPath (words[1]);
          say ("DATA " + new String (data, StandardCharsets.UTF_8));
        }
        break;
      default: throw new IllegalArgumentException ("unknown command " + words[0]);
      }
  }

  private void run (BufferedReader in) throws Exception
  {
    String line;

    while ((line = in.readLine ()) != null)
      {
        String[] words = line.trim ().split ("\\s+");
        if (words[0].isEmpty ())
          continue;
        if (words[0].equals ("quit"))
          break;
        try
          {
            dispatch (words);
          }
        catch (Exception e)
          {
            say ("ERROR " + oneLine (e));
          }
      }
  }

  private void closeAll ()
  {
    try
      {
        onLockThread (() -> {
            while (mutex.isOwnedByCurrentThread ())
              mutex.release ();
            return null;
          });
      }
    catch (Exception e)
      {
        System.err.println ("RevokePeer: while closing: " + oneLine (e));
      }
    lockThread.shutdownNow ();
    client.close ();
  }

  public static void main (String[] args) throws Exception
  {
    PrintStream out = new PrintStream (new FileOutputStream (FileDescriptor.out), true,
                                       StandardCharsets.UTF_8);
    System.setOut (System.err);
    if (System.getProperty ("org.slf4j.simpleLogger.defaultLogLevel") == null)
      System.setProperty ("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    if (System.getProperty ("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn") == null)
      System.setProperty ("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn", "error");

    String hosts = null;
    String path = null;
    int sessionTimeoutMs = 10000;
    try
      {
        for (int i = 0; i < args.length; i += 2)
          {
            if (i + 1 >= args.length)
              throw new IllegalArgumentException ("option " + args[i] + " needs a value");
            switch (args[i])
              {
              case "--hosts": hosts = args[i + 1]; break;
              case "--path": path = args[i + 1]; break;
              case "--session-timeout-ms": sessionTimeoutMs = Integer.parseInt (args[i + 1]); break;
              default: throw new IllegalArgumentException ("unknown option " + args[i]);
              }
          }
        if (hosts == null || path == null)
          throw new IllegalArgumentException ("--hosts and --path are required");
      }
    catch (IllegalArgumentException e)
      {
        out.println ("ERROR " + oneLine (e));
        System.exit (2);
        return;
      }

    CuratorFramework client = CuratorFrameworkFactory.builder ()
      .connectString (hosts)
      .sessionTimeoutMs (sessionTimeoutMs)
      .connectionTimeoutMs (Math.min (CONNECT_TIMEOUT_MS, sessionTimeoutMs))
      .retryPolicy (new ExponentialBackoffRetry (100, 6, 2000))
      .build ();
    client.start ();
    if (!client.blockUntilConnected (CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
      {
        out.println ("ERROR could not connect to " + hosts);
        client.close ();
        System.exit (1);
        return;
      }
    RevokePeer peer = new RevokePeer (out, client, path);
    peer.say ("READY");
    peer.run (new BufferedReader (new InputStreamReader (System.in, StandardCharsets.UTF_8)));
    peer.closeAll ();
    peer.say ("BYE");
    System.exit (0);
  }
}
