"""The accounts commands of the CLI (#28): user list, set-password, set-role, disable/enable,
delete, sessions end, app-password create/list/revoke (and the form before #28), consumer-key
revoke; each error one line on stderr. The rules are storeplatform.components.shop.accounts', as for REST."""
import base64
import io
import threading

import pytest
from sqlalchemy import select

from storeplatform.components.shop.models import AppPassword, Order, Post, User
from storeplatform.testing import assert_error

API = "/api/store/v1"
ME = f"{API}/users/me"


def basic(login, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def one_line_error(proc, code=1):
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("storeplatform"), lines[0]
    assert proc.stdout == ""
    return lines[0]


def token_for(site, login, password):
    res = site.app.post_json(f"{API}/auth/token", {"login": login, "password": password}, expect_errors=True)
    return {"Authorization": "Bearer " + res.json["token"]} if res.status_int == 200 else res


def test_user_list_is_a_table(cli):
    cli("user", "create", "alice", "--role", "administrator", "--email", "a@example.com")
    cli("user", "create", "bob", "--role", "customer")
    cli("user", "disable", "bob")
    lines = cli("user", "list").stdout.splitlines()
    assert lines[0].split() == ["ID", "LOGIN", "ROLE", "EMAIL", "STATE", "NAME"]
    assert lines[1].split()[1:5] == ["alice", "administrator", "a@example.com", "active"]
    assert lines[2].split()[1:5] == ["bob", "customer", "-", "disabled"]
    assert len(cli("user", "list", "--role", "customer").stdout.splitlines()) == 2
    assert "alice" in cli("user", "list", "--search", "EXAMPLE").stdout
    assert "unknown role" in one_line_error(cli("user", "list", "--role", "king", ok=False))


def test_set_password_reads_stdin_and_ends_sessions(cli):
    site = cli.site
    cli("user", "create", "alice", "--role", "editor", "--password", "old-password")
    bearer = token_for(site, "alice", "old-password")
    password = cli("user", "app-password", "alice").stdout.strip()
    out = cli("user", "set-password", "alice", stdin="new password with spaces\n").stdout
    assert "password of alice changed" in out
    assert_error(site.app.get(ME, headers=bearer, status=401), 401, "rest_jwt_invalid")
    assert_error(token_for(site, "alice", "old-password"), 401, "rest_invalid_login")
    assert site.app.get(ME, headers=token_for(site, "alice", "new password with spaces")).json["login"] == "alice"
    # Application passwords survive a password change.
    assert site.app.get(ME, headers=basic("alice", password)).json["login"] == "alice"
    assert "password: must not be empty" in one_line_error(cli("user", "set-password", "alice", stdin="\n", ok=False))
    assert "no user" in one_line_error(cli("user", "set-password", "ghost", stdin="x\n", ok=False))


def test_set_password_asks_twice_on_a_terminal(monkeypatch):
    from storeplatform.components.shop import cli
    from storeplatform.components.shop.cli import read_new_password
    from storeplatform.core.cli import CliError

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    answers = iter(["secret one", "secret one", "secret one", "secret two"])
    monkeypatch.setattr(cli.getpass, "getpass", lambda prompt: next(answers))
    assert read_new_password(Terminal()) == "secret one"
    with pytest.raises(CliError, match="differ"):
        read_new_password(Terminal())
    assert read_new_password(io.StringIO("from a pipe\r\nsecond line\n")) == "from a pipe"


def test_set_role_and_the_last_administrator(cli):
    cli("user", "create", "alice", "--role", "administrator", "--password", "pw")
    cli("user", "create", "bob", "--role", "editor", "--password", "pw")
    bearer = token_for(cli.site, "bob", "pw")
    assert "bob is now shop_manager (was editor)" in cli("user", "set-role", "bob", "shop_manager").stdout
    assert_error(cli.site.app.get(ME, headers=bearer, status=401), 401, "rest_jwt_invalid")
    assert "already" in cli("user", "set-role", "bob", "shop_manager").stdout
    assert "unknown role" in one_line_error(cli("user", "set-role", "bob", "king", ok=False))
    # The site keeps an active administrator: alice may not be demoted, disabled or deleted ...
    for args in (("set-role", "alice", "editor"), ("disable", "alice"), ("delete", "alice")):
        assert "last active administrator" in one_line_error(cli("user", *args, ok=False)), args
    # ... until there is another one.
    cli("user", "set-role", "bob", "administrator")
    cli("user", "disable", "alice")
    assert "last active administrator" in one_line_error(cli("user", "delete", "bob", ok=False))
    cli("user", "delete", "alice")


def test_two_administrators_demoting_each_other_at_once_leave_one(make_site):
    """The rule of the last administrator is settled by the database: the active administrators
    are locked, so of two demotions at once (each the other's) one waits and is refused."""
    from storeplatform.components.shop import accounts
    from storeplatform.core.errors import RestError

    site = make_site()
    site.create_user("ann", "administrator")
    site.create_user("bob", "administrator")
    barrier = threading.Barrier(2)
    outcomes = {}

    def demote(login):
        try:
            with site.session() as s:
                user = s.execute(select(User).where(User.login == login)).scalar_one()
                try:
                    barrier.wait(timeout=2)  # SQLite lets one writer in at a time: then no race at all
                except threading.BrokenBarrierError:
                    pass
                accounts.set_role(s, accounts.OWNER, user, "editor")
            outcomes[login] = "demoted"
        except RestError as exc:
            outcomes[login] = exc.code

    threads = [threading.Thread(target=demote, args=(login,)) for login in ("ann", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes.values()) == ["demoted", "rest_user_last_administrator"], outcomes
    with site.session() as s:
        assert len(s.execute(select(User).where(User.role == "administrator")).scalars().all()) == 1


def test_disable_and_enable(cli):
    site = cli.site
    cli("user", "create", "boss", "--role", "administrator")
    cli("user", "create", "carl", "--role", "customer", "--password", "pw")
    password = cli("user", "app-password", "carl").stdout.strip()
    key, secret = cli("consumer-key", "create", "carl").stdout.split()
    assert "carl disabled" in cli("user", "disable", "carl").stdout
    assert "already" in cli("user", "disable", "carl").stdout
    for headers in (basic("carl", password), basic(key, secret)):
        assert_error(site.app.get(ME, headers=headers, status=401), 401, "rest_authentication_failed")
    assert_error(token_for(site, "carl", "pw"), 401, "rest_invalid_login")
    assert "disabled" in one_line_error(cli("user", "app-password", "carl", ok=False))
    assert "disabled" in one_line_error(cli("consumer-key", "create", "carl", ok=False))
    assert "carl enabled" in cli("user", "enable", "carl").stdout
    assert "nothing changed" in cli("user", "enable", "carl").stdout
    assert site.app.get(ME, headers=token_for(site, "carl", "pw")).json["login"] == "carl"
    # What the disable revoked stays revoked.
    assert cli("user", "app-password", "list", "carl").stdout.splitlines()[1:] == []
    assert_error(site.app.get(ME, headers=basic("carl", password), status=401), 401, "rest_authentication_failed")


def test_delete_with_and_without_reassign(cli):
    from storeplatform.components.shop.models import Product
    from storeplatform.components.shop.orders import create_order

    site = cli.site
    for login in ("boss", "dave", "erin", "fay"):
        cli("user", "create", login, "--role", "administrator" if login == "boss" else "author")
    with site.session() as s:
        ids = {u.login: u.id for u in s.execute(select(User)).scalars()}
        s.add_all([Post(post_type="page", title="A", author_id=ids["dave"]),
                   Post(post_type="page", title="B", author_id=ids["fay"])])
        product = Product(name="Mug", regular_price=5, meta={})
        s.add(product)
        s.flush()
        create_order(s, line_items=[{"product_id": product.id, "quantity": 1}], billing={"first_name": "Dave"},
                     customer_id=ids["dave"])
    out = cli("user", "delete", "dave", "--reassign", "erin").stdout
    assert out.strip() == "deleted dave: 1 post(s) moved to erin, 1 order(s) kept as guest orders"
    out = cli("user", "delete", "fay").stdout
    assert out.strip() == "deleted fay: 1 post(s) kept without an author, 0 order(s) kept as guest orders"
    with site.session() as s:
        assert sorted((p.title, p.author_id) for p in s.execute(select(Post)).scalars()) == \
            [("A", ids["erin"]), ("B", None)]
        order = s.execute(select(Order)).scalar_one()
        assert order.customer_id is None and order.billing["first_name"] == "Dave"
    assert "--reassign: no user" in one_line_error(cli("user", "delete", "erin", "--reassign", "ghost", ok=False))
    assert "same user" in one_line_error(cli("user", "delete", "erin", "--reassign", "erin", ok=False))
    assert "no user" in one_line_error(cli("user", "delete", "dave", ok=False))


def test_sessions_end(cli):
    cli("user", "create", "alice", "--role", "editor", "--password", "pw")
    bearer = token_for(cli.site, "alice", "pw")
    cli.site.app.post_json(f"{API}/auth/login", {"login": "alice", "password": "pw"})
    assert cli("user", "sessions", "end", "alice").stdout.strip() == \
        "ended 1 cookie session(s) and every JWT of alice"
    assert_error(cli.site.app.get(ME, headers=bearer, status=401), 401, "rest_jwt_invalid")
    assert "invalid choice" in one_line_error(cli("user", "sessions", "list", "alice", ok=False), code=2)


def test_app_passwords_create_list_revoke_and_the_form_before(cli):
    site = cli.site
    cli("user", "create", "alice", "--role", "editor")
    old_form = cli("user", "app-password", "alice", "--name", "ci").stdout.strip()
    new_form = cli("user", "app-password", "create", "alice", "--name", "phone app").stdout.strip()
    before_name = cli("user", "app-password", "--name", "x", "alice").stdout.strip()
    assert all(len(p.replace(" ", "")) == 24 for p in (old_form, new_form, before_name))
    lines = cli("user", "app-password", "list", "alice").stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "CREATED", "LAST_USED"]  # #43
    assert [line.split()[1] for line in lines[1:]] == ["ci", "phone", "x"]
    assert old_form.replace(" ", "") not in "".join(lines)
    first_id = lines[1].split()[0]
    assert "revoked application password" in cli("user", "app-password", "revoke", "alice", first_id).stdout
    assert_error(site.app.get(ME, headers=basic("alice", old_form), status=401), 401, "rest_authentication_failed")
    assert site.app.get(ME, headers=basic("alice", new_form)).json["login"] == "alice"
    assert "No such application password" in one_line_error(
        cli("user", "app-password", "revoke", "alice", first_id, ok=False))
    assert "or --all" in one_line_error(cli("user", "app-password", "revoke", "alice", ok=False))
    assert "a number" in one_line_error(cli("user", "app-password", "revoke", "alice", "٣", ok=False))
    assert "revoked 2 application password(s)" in cli("user", "app-password", "revoke", "alice", "--all").stdout
    with site.session() as s:
        assert s.execute(select(AppPassword)).scalars().all() == []
    # A user named like an action is reached with create written out.
    cli("user", "create", "list", "--role", "customer")
    assert len(cli("user", "app-password", "create", "list").stdout.strip().replace(" ", "")) == 24


def test_consumer_key_revoke_by_id_or_key(cli):
    site = cli.site
    cli("user", "create", "shop", "--role", "shop_manager")
    first = cli("consumer-key", "create", "shop").stdout.split()
    second = cli("consumer-key", "create", "shop").stdout.split()
    for key, secret in (first, second):
        assert site.app.get(ME, headers=basic(key, secret)).json["login"] == "shop"
    key_id = cli("consumer-key", "list").stdout.splitlines()[1].split()[0]
    assert cli("consumer-key", "revoke", key_id).stdout.startswith(f"revoked consumer key {key_id} (ck_...")
    assert "revoked consumer key" in cli("consumer-key", "revoke", second[0]).stdout
    for key, secret in (first, second):
        assert_error(site.app.get(ME, headers=basic(key, secret), status=401), 401, "rest_authentication_failed")
    for missing in (key_id, "ck_" + "0" * 40, "nonsense", "9" * 40):
        assert "no consumer key" in one_line_error(cli("consumer-key", "revoke", missing, ok=False))


@pytest.mark.parametrize("args,needle", [
    (["user", "create", "has space", "--role", "editor"], "login:"),
    (["user", "create", "ck_x", "--role", "editor"], "ck_"),
    (["user", "create", "ok", "--role", "editor", "--email", "nope"], "email:"),
    (["user", "set-role", "ghost", "editor"], "no user"),
    (["user", "disable", "ghost"], "no user"),
    (["user", "sessions", "end", "ghost"], "no user"),
    (["user", "app-password", "list", "ghost"], "no user"),
])
def test_account_errors_are_one_line(cli, args, needle):
    assert needle in one_line_error(cli(*args, ok=False))
