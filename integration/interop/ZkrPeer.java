/*
 * zkr interop peer: one real Apache Curator recipe (Debian's jars) driven by
 * one-line commands on stdin, one answer line per command on stdout, so zkr's
 * integration tests can make Curator and zkr contend on the same paths.
 * The protocol is described in README.md beside this file.
 */

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.TreeCache;
import org.apache.curator.framework.recipes.cache.TreeCacheEvent;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.LockInternalsSorter;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

public final class ZkrPeer
{
  private static final int CONNECT_TIMEOUT_MS = 15000;
  /* Curator's lock names: the sort key of a node is the text after the last
   * occurrence of its recipe's name. */
  private static final String MUTEX_NAME = "lock-";
  private static final String LATCH_NAME = "latch-";
  private static final String LEASE_NAME = "lease-";
  private static final String READ_NAME = "__READ__";
  private static final String WRITE_NAME = "__WRIT__";

  private final PrintStream out;
  private final CuratorFramework client;
  private final String recipe;
  private final String path;
  private final String id;
  private final int leases;

  private InterProcessMutex lock;                  /* mutex, rwlock-read, rwlock-write */
  private InterProcessSemaphoreV2 semaphore;
  private final Deque<Lease> heldLeases = new ArrayDeque<> ();
  private LeaderLatch latch;
  private LeaderSelector selector;
  private ExecutorService selectorThread;
  /* treecache: Curator's TreeCache on the path, and its events counted by
   * type (guarded by `cacheEvents`). */
  @SuppressWarnings ("deprecation")
  private TreeCache treeCache;
  private final Map<String, Integer> cacheEvents = new TreeMap<> ();
  private CountDownLatch cacheInitialized;

  /* Selector term, shared between the command loop and Curator's leadership
   * thread; guarded by `term`. */
  private final Object term = new Object ();
  private String leadingNode;                      /* non-null while takeLeadership runs */
  private boolean yieldRequested;

  private ZkrPeer (PrintStream out, CuratorFramework client, Options options)
  {
    this.out = out;
    this.client = client;
    this.recipe = options.recipe;
    this.path = options.path;
    this.id = options.id;
    this.leases = options.leases;
  }

  /* ---- options ---------------------------------------------------------- */

  private static final class Options
  {
    String hosts;
    String recipe;
    String path;
    String id = "zkr-peer-" + ProcessHandle.current ().pid ();
    int leases = 1;
    int sessionTimeoutMs = 10000;
  }

  private static Options parseOptions (String[] args)
  {
    Options options = new Options ();

    for (int i = 0; i < args.length; i += 2)
      {
        if (i + 1 >= args.length)
          throw new IllegalArgumentException ("option " + args[i] + " needs a value");
        String value = args[i + 1];
        switch (args[i])
          {
          case "--hosts": options.hosts = value; break;
          case "--recipe": options.recipe = value; break;
          case "--path": options.path = value; break;
          case "--id": options.id = value; break;
          case "--leases": options.leases = Integer.parseInt (value); break;
          case "--session-timeout-ms": options.sessionTimeoutMs = Integer.parseInt (value); break;
          default: throw new IllegalArgumentException ("unknown option " + args[i]);
          }
      }
    if (options.hosts == null || options.recipe == null || options.path == null)
      throw new IllegalArgumentException ("--hosts, --recipe and --path are required");
    if (!List.of ("mutex", "rwlock-read", "rwlock-write", "semaphore", "latch", "selector",
                  "treecache")
        .contains (options.recipe))
      throw new IllegalArgumentException ("unknown recipe " + options.recipe);
    if (options.leases < 1)
      throw new IllegalArgumentException ("--leases must be at least 1");
    return options;
  }

  /* ---- output ----------------------------------------------------------- */

  private void say (String line)
  {
    synchronized (out)
      {
        out.println (line);
        out.flush ();
      }
  }

  private static String oneLine (Throwable e)
  {
    String text = e.getClass ().getSimpleName ()
                  + (e.getMessage () != null ? ": " + e.getMessage () : "");
    return text.replace ('\n', ' ').replace ('\r', ' ');
  }

  /* ---- Curator internals we only read ----------------------------------- */

  /* InterProcessMutex.getLockPath() is protected: it is the calling thread's
   * own lock node, the one whose czxid is the fencing token. Reflection on
   * the classpath's unnamed module is allowed. */
  private static String lockPathOf (InterProcessMutex mutex) throws Exception
  {
    Method method = InterProcessMutex.class.getDeclaredMethod ("getLockPath");
    method.setAccessible (true);
    return (String) method.invoke (mutex);
  }

  /* LeaderSelector keeps its InterProcessMutex private; its lock path is
   * readable from the leadership thread, which is the thread holding it. */
  private static InterProcessMutex mutexOf (LeaderSelector selector) throws Exception
  {
    Field field = LeaderSelector.class.getDeclaredField ("mutex");
    field.setAccessible (true);
    return (InterProcessMutex) field.get (selector);
  }

  private long czxidOf (String node) throws Exception
  {
    Stat stat = client.checkExists ().forPath (node);
    if (stat == null)
      throw new IllegalStateException ("our node " + node + " is gone");
    return stat.getCzxid ();
  }

  /* Blocks until @node is deleted (or @timeoutMs passes): a data watch, no
   * polling (an exists watch on a node already gone would stay behind). */
  private boolean awaitDeleted (String node, long timeoutMs) throws Exception
  {
    CountDownLatch deleted = new CountDownLatch (1);
    Watcher watcher = event -> {
      if (event.getType () == Watcher.Event.EventType.NodeDeleted)
        deleted.countDown ();
    };
    try
      {
        client.getData ().usingWatcher (watcher).forPath (node);
      }
    catch (KeeperException.NoNodeException e)
      {
        return true;
      }
    return deleted.await (timeoutMs, TimeUnit.MILLISECONDS);
  }

  /* ---- holders ---------------------------------------------------------- */

  /* The rwlock sorts read and write nodes in one queue by their sequence:
   * strip whichever of the two names the node carries. */
  private static String rwlockSortKey (String node, String unused)
  {
    return StandardLockInternalsDriver.standardFixForSorting (
      StandardLockInternalsDriver.standardFixForSorting (node, READ_NAME), WRITE_NAME);
  }

  private List<String> sortedHolders () throws Exception
  {
    LockInternalsSorter sorter = new StandardLockInternalsDriver ();
    String parent = path;
    String name;

    switch (recipe)
      {
      case "rwlock-read": case "rwlock-write": name = WRITE_NAME; sorter = ZkrPeer::rwlockSortKey; break;
      case "semaphore": parent = ZKPaths.makePath (path, "leases"); name = LEASE_NAME; break;
      case "latch": name = LATCH_NAME; break;
      default: name = MUTEX_NAME; break;
      }
    if (client.checkExists ().forPath (parent) == null)
      return Collections.emptyList ();
    return LockInternals.getSortedChildren (name, sorter,
                                            client.getChildren ().forPath (parent));
  }

  private void commandHolders () throws Exception
  {
    say ("HOLDERS " + String.join (",", sortedHolders ()));
  }

  /* ---- locks and semaphore ---------------------------------------------- */

  private InterProcessMutex lockForRecipe ()
  {
    if (lock == null)
      {
        if (recipe.equals ("mutex"))
          lock = new InterProcessMutex (client, path);
        else
          {
            InterProcessReadWriteLock rwlock = new InterProcessReadWriteLock (client, path);
            lock = recipe.equals ("rwlock-read") ? rwlock.readLock () : rwlock.writeLock ();
          }
      }
    return lock;
  }

  /* A negative timeout waits forever; 0 tries once (Curator's own rules for
   * a timed acquire). */
  private void commandAcquire (long timeoutMs) throws Exception
  {
    if (recipe.equals ("semaphore"))
      {
        acquireLease (timeoutMs);
        return;
      }
    InterProcessMutex mutex = lockForRecipe ();
    boolean held = true;
    if (timeoutMs < 0)
      mutex.acquire ();
    else
      held = mutex.acquire (timeoutMs, TimeUnit.MILLISECONDS);
    say (held ? "ACQUIRED " + czxidOf (lockPathOf (mutex)) : "TIMEOUT");
  }

  private void acquireLease (long timeoutMs) throws Exception
  {
    if (semaphore == null)
      semaphore = new InterProcessSemaphoreV2 (client, path, leases);
    Lease lease = timeoutMs < 0 ? semaphore.acquire ()
                                : semaphore.acquire (timeoutMs, TimeUnit.MILLISECONDS);
    if (lease == null)
      {
        say ("TIMEOUT");
        return;
      }
    heldLeases.push (lease);
    say ("ACQUIRED " + czxidOf (leasePathOf (lease)));
  }

  /* Lease.getNodeName() is the bare node name under leases/. */
  private String leasePathOf (Lease lease)
  {
    return ZKPaths.makePath (ZKPaths.makePath (path, "leases"), lease.getNodeName ());
  }

  /* Releases the most recent acquisition (locks are reentrant, leases a stack). */
  private void commandRelease () throws Exception
  {
    if (recipe.equals ("semaphore"))
      {
        if (heldLeases.isEmpty ())
          throw new IllegalStateException ("no lease held");
        semaphore.returnLease (heldLeases.pop ());
      }
    else
      {
        if (lock == null || !lock.isAcquiredInThisProcess ())
          throw new IllegalStateException ("lock not held");
        lock.release ();
      }
    say ("RELEASED");
  }

  private String currentNode () throws Exception
  {
    switch (recipe)
      {
      case "semaphore": return heldLeases.isEmpty () ? null : leasePathOf (heldLeases.peek ());
      case "latch": return latch == null ? null : latch.getOurPath ();
      case "selector": synchronized (term) { return leadingNode; }
      default: return lock == null ? null : lockPathOf (lock);
      }
  }

  /* ---- leader latch ----------------------------------------------------- */

  private void commandLatchStart () throws Exception
  {
    if (latch != null)
      throw new IllegalStateException ("latch already started");
    latch = new LeaderLatch (client, path, id);
    latch.start ();
    say ("STARTED");
  }

  private void commandLatchAwait (long timeoutMs) throws Exception
  {
    if (latch == null)
      throw new IllegalStateException ("latch not started");
    if (latch.await (Math.max (timeoutMs, 0), TimeUnit.MILLISECONDS))
      say ("LEADER " + czxidOf (latch.getOurPath ()));
    else
      say ("NOT_LEADER");
  }

  private void commandLatchClose () throws Exception
  {
    if (latch == null)
      throw new IllegalStateException ("latch not started");
    closeLatch ();
    say ("CLOSED");
  }

  /* LeaderLatch.close() deletes our node in the background: wait for the
   * delete, so that CLOSED means the next participant may take over. */
  private void closeLatch () throws Exception
  {
    String node = latch.getOurPath ();
    latch.close ();
    latch = null;
    if (node != null && !awaitDeleted (node, CONNECT_TIMEOUT_MS))
      throw new IllegalStateException ("our node " + node + " was not deleted");
  }

  /* ---- leader selector -------------------------------------------------- */

  /* Holds leadership until the command loop asks it to yield. The adapter
   * cancels leadership (interrupts this thread) on SUSPENDED and LOST. */
  private final class Leadership extends LeaderSelectorListenerAdapter
  {
    @Override
    public void takeLeadership (CuratorFramework unused) throws Exception
    {
      String node = lockPathOf (mutexOf (selector));
      synchronized (term)
        {
          leadingNode = node;
          yieldRequested = false;
          term.notifyAll ();
          try
            {
              while (!yieldRequested)
                term.wait ();
            }
          finally
            {
              leadingNode = null;
              term.notifyAll ();
            }
        }
    }
  }

  /* Without auto-requeue a selector leads once per start; a second `start`
   * queues it again. */
  private void commandSelectorStart ()
  {
    if (selector == null)
      {
        /* Our own executor, so that closing can wait for the queued or leading
         * thread to delete its node before the client goes away. */
        selectorThread = Executors.newSingleThreadExecutor ();
        selector = new LeaderSelector (client, path, selectorThread, new Leadership ());
        selector.setId (id);
        selector.start ();
      }
    else if (!selector.requeue ())
      throw new IllegalStateException ("selector already queued");
    say ("STARTED");
  }

  private void commandSelectorAwait (long timeoutMs) throws Exception
  {
    long deadline = System.nanoTime () + TimeUnit.MILLISECONDS.toNanos (Math.max (timeoutMs, 0));
    String node;

    synchronized (term)
      {
        long left;
        while (leadingNode == null && (left = deadline - System.nanoTime ()) > 0)
          TimeUnit.NANOSECONDS.timedWait (term, left);
        node = leadingNode;
      }
    say (node != null ? "LEADING " + czxidOf (node) : "NOT_LEADER");
  }

  /* Answers once takeLeadership has returned and our node is gone, so the
   * next participant may already be leading when the caller reads YIELDED. */
  private void commandSelectorYield () throws Exception
  {
    if (!yieldTerm ())
      throw new IllegalStateException ("not leading");
    say ("YIELDED");
  }

  /* Ends the current term, if any; returns whether there was one. */
  private boolean yieldTerm () throws Exception
  {
    String node;
    synchronized (term)
      {
        node = leadingNode;
        if (node == null)
          return false;
        yieldRequested = true;
        term.notifyAll ();
        while (leadingNode != null)
          term.wait ();
      }
    if (!awaitDeleted (node, CONNECT_TIMEOUT_MS))
      throw new IllegalStateException ("our node " + node + " was not deleted");
    return true;
  }

  /* After a term the selector's thread is still finishing its delete: let it
   * (interrupting it there only makes Curator log an error). A queued thread
   * is interrupted by close() and gives up its node. Either way, wait for it. */
  private void closeSelector () throws Exception
  {
    if (yieldTerm ())
      awaitSelectorThread ();
    selector.close ();
    selector = null;
    awaitSelectorThread ();
    selectorThread = null;
  }

  private void awaitSelectorThread () throws Exception
  {
    selectorThread.shutdown ();
    if (!selectorThread.awaitTermination (CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
      throw new IllegalStateException ("the selector's thread did not stop");
  }

  private void commandSelectorClose () throws Exception
  {
    if (selector == null)
      throw new IllegalStateException ("selector not started");
    closeSelector ();
    say ("CLOSED");
  }

  /* ---- tree cache ------------------------------------------------------- */

  /* TreeCache is deprecated in Curator 5 in favour of CuratorCache; it is
   * the recipe zkr's tree cache follows, so it is the one checked. */
  @SuppressWarnings ("deprecation")
  private void commandCacheStart (long timeoutMs) throws Exception
  {
    if (treeCache != null)
      throw new IllegalStateException ("tree cache already started");
    cacheInitialized = new CountDownLatch (1);
    treeCache = TreeCache.newBuilder (client, path).build ();
    treeCache.getListenable ().addListener ((framework, event) -> {
      synchronized (cacheEvents)
        {
          cacheEvents.merge (event.getType ().name (), 1, Integer::sum);
        }
      if (event.getType () == TreeCacheEvent.Type.INITIALIZED)
        cacheInitialized.countDown ();
    });
    treeCache.start ();
    say (cacheInitialized.await (timeoutMs, TimeUnit.MILLISECONDS) ? "STARTED" : "TIMEOUT");
  }

  private static String hex (byte[] data)
  {
    StringBuilder text = new StringBuilder ();
    if (data != null)
      for (byte b : data)
        text.append (String.format ("%02x", b & 0xff));
    return text.toString ();
  }

  /* Appends "path=version:hexdata " for @node and everything under it, in
   * byte order of the names at each level. */
  @SuppressWarnings ("deprecation")
  private void dumpNode (String node, StringBuilder text)
  {
    ChildData data = treeCache.getCurrentData (node);
    if (data == null)
      return;
    text.append (node).append ('=').append (data.getStat ().getVersion ()).append (':')
        .append (hex (data.getData ())).append (' ');
    Map<String, ChildData> children = treeCache.getCurrentChildren (node);
    if (children == null)
      return;
    for (String name : new TreeMap<> (children).keySet ())
      dumpNode (ZKPaths.makePath (node, name), text);
  }

  @SuppressWarnings ("deprecation")
  private void dispatchTreeCache (String command, String[] words) throws Exception
  {
    switch (command)
      {
      case "start": commandCacheStart (timeoutArgument (words)); break;
      case "dump":
        {
          if (treeCache == null)
            throw new IllegalStateException ("tree cache not started");
          StringBuilder text = new StringBuilder ();
          dumpNode (path, text);
          say (("TREE " + text).trim ());
          break;
        }
      case "events":
        synchronized (cacheEvents)
          {
            StringBuilder text = new StringBuilder ("EVENTS");
            for (Map.Entry<String, Integer> entry : cacheEvents.entrySet ())
              text.append (' ').append (entry.getKey ()).append ('=').append (entry.getValue ());
            say (text.toString ());
          }
        break;
      case "put":
        if (words.length != 3)
          throw new IllegalArgumentException ("put needs a path and data");
        client.create ().orSetData ().creatingParentsIfNeeded ()
          .forPath (words[1], words[2].getBytes (StandardCharsets.UTF_8));
        say ("PUT");
        break;
      case "delete":
        if (words.length != 2)
          throw new IllegalArgumentException ("delete needs a path");
        client.delete ().deletingChildrenIfNeeded ().forPath (words[1]);
        say ("DELETED");
        break;
      case "close":
        if (treeCache != null)
          treeCache.close ();
        treeCache = null;
        say ("CLOSED");
        break;
      default: throw new IllegalArgumentException ("unknown command " + command + " for treecache");
      }
  }

  /* ---- command loop ----------------------------------------------------- */

  private static long timeoutArgument (String[] words)
  {
    if (words.length != 2)
      throw new IllegalArgumentException (words[0] + " needs a timeout in ms");
    return Long.parseLong (words[1]);
  }

  private boolean isLock ()
  {
    return !recipe.equals ("latch") && !recipe.equals ("selector") && !recipe.equals ("treecache");
  }

  /* Runs one command; returns false on quit. */
  private boolean dispatch (String[] words) throws Exception
  {
    String command = words[0];

    if (command.equals ("quit"))
      return false;
    if (command.equals ("holders"))
      commandHolders ();
    else if (command.equals ("node"))
      {
        String node = currentNode ();
        say ("NODE " + (node != null ? node : "-"));
      }
    else if (command.equals ("session"))
      say ("SESSION 0x" + Long.toHexString (
             client.getZookeeperClient ().getZooKeeper ().getSessionId ()));
    else if (isLock () && command.equals ("acquire"))
      commandAcquire (timeoutArgument (words));
    else if (isLock () && command.equals ("release"))
      commandRelease ();
    else if (recipe.equals ("latch"))
      dispatchLatch (command, words);
    else if (recipe.equals ("selector"))
      dispatchSelector (command, words);
    else if (recipe.equals ("treecache"))
      dispatchTreeCache (command, words);
    else
      throw new IllegalArgumentException ("unknown command " + command + " for " + recipe);
    return true;
  }

  private void dispatchLatch (String command, String[] words) throws Exception
  {
    switch (command)
      {
      case "start": commandLatchStart (); break;
      case "await": commandLatchAwait (timeoutArgument (words)); break;
      case "close": commandLatchClose (); break;
      case "leader":
        if (latch == null)
          throw new IllegalStateException ("latch not started");
        say ("LEADER_ID " + latch.getLeader ().getId ());
        break;
      default: throw new IllegalArgumentException ("unknown command " + command + " for latch");
      }
  }

  private void dispatchSelector (String command, String[] words) throws Exception
  {
    switch (command)
      {
      case "start": commandSelectorStart (); break;
      case "await": commandSelectorAwait (timeoutArgument (words)); break;
      case "yield": commandSelectorYield (); break;
      case "close": commandSelectorClose (); break;
      case "leader":
        if (selector == null)
          throw new IllegalStateException ("selector not started");
        say ("LEADER_ID " + selector.getLeader ().getId ());
        break;
      default: throw new IllegalArgumentException ("unknown command " + command + " for selector");
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
        try
          {
            if (!dispatch (words))
              break;
          }
        catch (Exception e)
          {
            say ("ERROR " + oneLine (e));
          }
      }
  }

  /* Best effort: closing the client removes our ephemeral nodes anyway. */
  @SuppressWarnings ("deprecation")
  private void closeAll ()
  {
    try
      {
        if (treeCache != null)
          treeCache.close ();
        while (!heldLeases.isEmpty ())
          semaphore.returnLease (heldLeases.pop ());
        if (latch != null)
          closeLatch ();
        if (selector != null)
          closeSelector ();
        while (lock != null && lock.isAcquiredInThisProcess ())
          lock.release ();
      }
    catch (Exception e)
      {
        System.err.println ("ZkrPeer: while closing: " + oneLine (e));
      }
    client.close ();
  }

  private static void setDefaultProperty (String key, String value)
  {
    if (System.getProperty (key) == null)
      System.setProperty (key, value);
  }

  public static void main (String[] args) throws Exception
  {
    /* The protocol owns stdout; anything a library prints goes to stderr.
     * slf4j-simple logs to stderr; keep it to warnings unless told. */
    PrintStream out = new PrintStream (new FileOutputStream (FileDescriptor.out), true,
                                       StandardCharsets.UTF_8);
    System.setOut (System.err);
    setDefaultProperty ("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    /* ZooKeeper's client warns with a stack trace at every normal close. */
    setDefaultProperty ("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn", "error");

    Options options;
    try
      {
        options = parseOptions (args);
      }
    catch (IllegalArgumentException e)
      {
        out.println ("ERROR " + oneLine (e));
        System.exit (2);
        return;
      }

    CuratorFramework client = CuratorFrameworkFactory.builder ()
      .connectString (options.hosts)
      .sessionTimeoutMs (options.sessionTimeoutMs)
      /* Curator warns when the connection timeout exceeds the session's. */
      .connectionTimeoutMs (Math.min (CONNECT_TIMEOUT_MS, options.sessionTimeoutMs))
      .retryPolicy (new ExponentialBackoffRetry (100, 6, 2000))
      .build ();
    client.start ();
    if (!client.blockUntilConnected (CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
      {
        out.println ("ERROR could not connect to " + options.hosts);
        client.close ();
        System.exit (1);
        return;
      }

    ZkrPeer peer = new ZkrPeer (out, client, options);
    peer.say ("READY");
    peer.run (new BufferedReader (new InputStreamReader (System.in, StandardCharsets.UTF_8)));
    peer.closeAll ();
    peer.say ("BYE");
    /* Curator leaves non-daemon threads behind. */
    System.exit (0);
  }
}
