package rtb.hbase.gateway;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scanners clients opened with openScanner, by id. Ids count up from 0 in this process, as in
 * HBase's gateway. A scanner nobody read for the idle timeout (HBase: the client scanner timeout,
 * hbase.client.scanner.timeout.period) is closed and its id forgotten; by then the region server
 * has dropped its lease anyway.
 */
final class Scanners implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Scanners.class);

  private static final class Open {
    final ResultScanner scanner;
    // Held while a client reads, so the sweeper never closes a scanner in use.
    final ReentrantLock lock = new ReentrantLock();
    volatile long lastUsedNanos = System.nanoTime();
    boolean closed;

    Open(ResultScanner scanner) {
      this.scanner = scanner;
    }
  }

  private final AtomicInteger nextId = new AtomicInteger(0);
  private final Map<Integer, Open> open = new ConcurrentHashMap<>();
  private final long idleNanos;
  private final ScheduledExecutorService sweeper;

  Scanners(long idleTimeoutMs) {
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs);
    this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "scanner-sweeper");
      thread.setDaemon(true);
      return thread;
    });
    long period = Math.max(1000, Math.min(idleTimeoutMs / 4, 10_000));
    sweeper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
  }

  int add(ResultScanner scanner) {
    int id = nextId.getAndIncrement();
    open.put(id, new Open(scanner));
    return id;
  }

  /** The next rows, none at the end; null when the id is unknown, closed or expired. */
  Result[] next(int id, int rows) throws IOException {
    Open scanner = open.get(id);
    if (scanner == null) {
      return null;
    }
    scanner.lock.lock();
    try {
      if (scanner.closed) {
        return null;
      }
      scanner.lastUsedNanos = System.nanoTime();
      return scanner.scanner.next(rows);
    } finally {
      scanner.lastUsedNanos = System.nanoTime();
      scanner.lock.unlock();
    }
  }

  /** False when the id is unknown, closed or expired. */
  boolean close(int id) {
    Open scanner = open.remove(id);
    if (scanner == null) {
      return false;
    }
    scanner.lock.lock();
    try {
      closeLocked(scanner);
    } finally {
      scanner.lock.unlock();
    }
    return true;
  }

  int size() {
    return open.size();
  }

  private void closeIdle() {
    long now = System.nanoTime();
    for (Map.Entry<Integer, Open> entry : open.entrySet()) {
      Open scanner = entry.getValue();
      if (now - scanner.lastUsedNanos < idleNanos || !scanner.lock.tryLock()) {
        continue;
      }
      try {
        if (now - scanner.lastUsedNanos >= idleNanos && open.remove(entry.getKey(), scanner)) {
          LOG.info("closing scanner {}: unused for {} ms", entry.getKey(),
              TimeUnit.NANOSECONDS.toMillis(now - scanner.lastUsedNanos));
          closeLocked(scanner);
        }
      } catch (RuntimeException e) {
        LOG.warn("closing idle scanner {} failed", entry.getKey(), e);
      } finally {
        scanner.lock.unlock();
      }
    }
  }

  private static void closeLocked(Open scanner) {
    if (!scanner.closed) {
      scanner.closed = true;
      scanner.scanner.close();
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
    for (Integer id : open.keySet()) {
      try {
        close(id);
      } catch (RuntimeException e) {
        LOG.warn("closing scanner {} failed", id, e);
      }
    }
  }
}
