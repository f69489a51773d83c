"""Files of the site that only its own user may read: the SQLite database and queue hold order
keys, webhook secrets and customers' addresses, as ``secret.key`` holds the site secret; and the
folders the site makes for them (``var/``), owner-only too."""
import logging
import os
import stat

log = logging.getLogger(__name__)

# SQLite makes these beside a database, with the database file's own permissions.
_COMPANIONS = ("-wal", "-shm", "-journal")


def keep_private(path):
    """Make ``path`` (an SQLite file) readable by its owner only: created 0600 when missing;
    an existing file (and its journal files) open to the group or others is closed to them.
    A file that is not ours to change is left as it is, with a warning."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return
    except FileExistsError:
        pass
    except OSError:
        return  # no such directory and the like: SQLite names the problem when it opens it
    for name in (path, *(path + suffix for suffix in _COMPANIONS)):
        try:
            mode = stat.S_IMODE(os.stat(name).st_mode)
            if mode & 0o077:
                os.chmod(name, mode & 0o700)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("%s is readable by other users and cannot be made private: %s", name, exc)


def make_private_dirs(path):
    """Make the folder ``path`` and its missing parents owner-only (0700), whatever the umask;
    folders that exist already are left as their owner set them (``var/`` may be a mount point
    or shared on purpose)."""
    path = os.path.abspath(path)
    missing = []
    while not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        os.chmod(folder, 0o700)  # the umask may have taken bits away, never added: set exactly
