"""Across processes: every process of the site on a machine (the gunicorn workers,
``storeplatform worker``) writes its values to files in one directory (prometheus_client's
multiprocess mode) and a scrape, answered by any one web process, sums them.

A process switches to it when it starts serving (``write_to_directory``), whatever it declared
before: values made in memory are made again in files. The directory is
``storeplatform.metrics_dir``, or, for the processes that must share one (gunicorn with several
workers, the standalone worker), ``var/metrics`` beside the ini by default, made owner-only:
the files hold the site's numbers, and whoever may write there can add to them. The gunicorn
runner (``storeplatform.server``) clears the files of processes that are gone when its master
starts and those of each worker's gauges when it exits.
"""
import glob
import os
import stat
import threading

from prometheus_client import values as prometheus_values
from prometheus_client.multiprocess import mark_process_dead

from storeplatform.core.private_files import make_private_dirs

from . import instruments

_lock = threading.Lock()
_directory = None  # where this process writes its values, once chosen
_pid = os.getpid()


def _process_id():
    """This process's id, kept (prometheus_client asks for it on every value it writes; getpid
    is a system call) and renewed in a forked child."""
    return _pid


def _forked():
    global _pid, _lock
    _pid, _lock = os.getpid(), threading.Lock()


os.register_at_fork(after_in_child=_forked)


def directory():
    """The directory this process writes its values to, or None (its values are in memory)."""
    return _directory


def write_to_directory(path):
    """From now on the values of this process are files in ``path`` (prometheus_client's
    multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``, inherited by the processes it forks); the
    metrics declared so far are made again there (what they counted before is dropped: a
    process switches before it serves). A process writes one directory."""
    global _directory
    path = os.path.abspath(path)
    with _lock:
        if _directory == path:
            return
        if _directory is not None:
            raise ValueError(f"this process writes its metrics to {_directory} already, not {path}")
        os.makedirs(path, exist_ok=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
        prometheus_values.ValueClass = prometheus_values.MultiProcessValue(process_identifier=_process_id)
        _directory = path
        instruments.make_values_again(_made_again)


def _made_again(metric):
    """The values of ``metric`` and of each of its children (kept by their callers) made again
    with the value class now in use: the objects stay, their values move."""
    if metric._labelnames:
        with metric._lock:
            children = list(metric._metrics.values())
        for child in children:
            child._metric_init()
    else:
        metric._metric_init()


def owner_only(path):
    """``path`` (the default directory, ``var/metrics`` beside the ini), made if needed and
    owner-only (0700); ValueError with the line to print when it cannot be."""
    try:
        make_private_dirs(path)  # var/ too when it is new
        if stat.S_IMODE(os.stat(path).st_mode) != 0o700:  # made before, or under another umask
            os.chmod(path, 0o700)
    except OSError as exc:
        raise ValueError(f"storeplatform.metrics_dir is not set and its default {path} cannot be made "
                         f"owner-only: {exc.strerror}; set storeplatform.metrics_dir to a directory the site's "
                         "processes share")
    return path


def _pid_of(filename):
    """The process id in a value file's name (``counter_123.db``, ``gauge_livesum_123.db``)."""
    stem = os.path.basename(filename)[:-len(".db")]
    tail = stem.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clean_directory(path, own_gauges=True):
    """At a gunicorn master's start: remove the files of processes that are gone (a previous
    run's, killed workers'), keep those of live ones (a ``storeplatform worker`` started first),
    and with ``own_gauges`` this process's gauges (it serves nothing: its pool is not a web
    process's). Returns the files removed."""
    removed = []
    for filename in glob.glob(os.path.join(path, "*.db")):
        pid = _pid_of(filename)
        if pid is None or (pid != os.getpid() and not _alive(pid)):
            try:
                os.remove(filename)
                removed.append(filename)
            except FileNotFoundError:
                pass
    if own_gauges:
        mark_process_dead(os.getpid(), path)
    return removed


def process_exited(pid, path=None):
    """A process of the site ended (a gunicorn worker, from the master's ``child_exit``; the
    worker command at exit): its gauges leave the sums; its counters stay counted until the next
    start of the master (they must not go backwards while it runs)."""
    path = path or _directory
    if path is not None:
        mark_process_dead(pid, path)
