"""The SQLite database and queue are the site user's alone (0600, as ``secret.key``): they hold
order keys, webhook secrets and customers' addresses. Made so when created, and closed to
others when found open, through the command a site owner runs first."""
import os
import stat

from storeplatform.testing import run_cli


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def write_ini(tmp_path, database, queue):
    ini = tmp_path / "site.ini"
    ini.write_text(f"""[app:main]
use = egg:storeplatform
sqlalchemy.url = sqlite:///{database}
huey.url = sqlite:///{queue}
storeplatform.plugins =
storeplatform.secret = test-secret-private-files
""")
    return ini


def test_a_new_database_and_queue_are_readable_by_their_owner_only(tmp_path):
    database, queue = tmp_path / "site.sqlite", tmp_path / "queue.sqlite"
    old_umask = os.umask(0o022)  # the usual umask, which would make them 0644
    try:
        result = run_cli("-c", str(write_ini(tmp_path, database, queue)), "migrate")
    finally:
        os.umask(old_umask)
    assert result.returncode == 0, result.stderr
    assert mode(database) == 0o600
    assert mode(queue) == 0o600
    for companion in (str(database) + "-wal", str(database) + "-shm"):
        if os.path.exists(companion):
            assert mode(companion) & 0o077 == 0


def test_an_existing_database_open_to_others_is_closed_to_them(tmp_path):
    database, queue = tmp_path / "site.sqlite", tmp_path / "queue.sqlite"
    ini = write_ini(tmp_path, database, queue)
    assert run_cli("-c", str(ini), "migrate").returncode == 0
    os.chmod(database, 0o644)
    os.chmod(queue, 0o664)
    result = run_cli("-c", str(ini), "option", "get", "site.title")
    assert result.returncode == 0, result.stderr
    assert mode(database) == 0o600
    assert mode(queue) == 0o600


def test_the_folders_the_site_makes_are_its_users_alone(tmp_path):
    """A new site's var/ (its database and queue, the secret beside them) is made 0700, as the
    files in it are 0600 (the mail and metrics folders are made the same way); a folder that
    exists already is left as its owner set it (#43)."""
    from storeplatform.core.private_files import make_private_dirs

    var = tmp_path / "site" / "var"
    database, queue = var / "site.sqlite", var / "queue" / "queue.sqlite"
    old_umask = os.umask(0o022)
    try:
        result = run_cli("-c", str(write_ini(tmp_path, database, queue)), "migrate")
        existing = tmp_path / "shared"
        existing.mkdir(mode=0o755)
        make_private_dirs(existing / "var" / "mail")
    finally:
        os.umask(old_umask)
    assert result.returncode == 0, result.stderr
    assert [mode(p) for p in (tmp_path / "site", var, var / "queue")] == [0o700] * 3
    assert (mode(existing), mode(existing / "var"), mode(existing / "var" / "mail")) == (0o755, 0o700, 0o700)
