"""What a worker thread keeps from one delivery to the next (its database connection, its HTTP
client): made at the thread's first use, closed once the thread has ended (when another thread
makes its own) or all together (the site's engine disposed)."""
import threading


class PerThread:
    def __init__(self, make, close):
        self._make, self._close = make, close
        self._lock = threading.Lock()
        self._kept = {}

    def get(self):
        thread = threading.current_thread()
        kept = self._kept.get(thread)
        if kept is None:
            kept = self._make()
            with self._lock:
                ended = [other for other in self._kept if not other.is_alive()]
                left = [self._kept.pop(other) for other in ended]
                self._kept[thread] = kept
            for one in left:
                self._close(one)
        return kept

    def forget(self):
        """This thread's object, no longer kept (the caller disposes of it), or None."""
        with self._lock:
            return self._kept.pop(threading.current_thread(), None)

    def close_all(self):
        with self._lock:
            kept, self._kept = list(self._kept.values()), {}
        for one in kept:
            self._close(one)
