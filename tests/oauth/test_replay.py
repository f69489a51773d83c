"""Each nonce once per key, for every process of the site: two apps on one database, another
process, requests racing each other; expired nonces are cleaned up."""
import json
import subprocess
import sys
import threading

from sqlalchemy import func, select, update
from storeplatform_oauth.models import OAuthNonce

from storeplatform.testing import assert_error, cli_environ

from .conftest import OAuthClient, now, send

ME = "/api/store/v1/users/me"

REPLAY = """
import json, sys
from storeplatform.testing import Site
job = json.load(sys.stdin)
site = Site(job["settings"])
try:
    res = site.app.request(job["url"], method=job["method"], headers=job["headers"], expect_errors=True)
    print(json.dumps({"status": res.status_int, "body": res.json}))
finally:
    site.close()
"""


def _headers(prepared):
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in prepared.headers.items()}


def test_a_nonce_used_through_one_app_is_refused_by_another(make_site):
    first = OAuthClient(make_site(**{"storeplatform.plugins": "oauth"}))
    second = make_site(**{"storeplatform.plugins": "oauth"})
    prepared = first.prepare("GET", ME, first.key())
    assert send(first.app, prepared).status_int == 200
    assert_error(send(second.app, prepared), 401, "rest_oauth_nonce_used")


def test_a_nonce_used_by_another_process_is_refused(oauth_site):
    client = OAuthClient(oauth_site)
    creds = client.key()
    prepared = client.prepare("GET", ME, creds, signature_type="query")
    settings = {k: v for k, v in oauth_site.settings.items() if isinstance(v, str)}
    job = json.dumps({"settings": settings, "url": prepared.url, "method": "GET", "headers": _headers(prepared)})

    def other_process():
        proc = subprocess.run([sys.executable, "-c", REPLAY], input=job, capture_output=True, text=True,
                              timeout=120, env=cli_environ(), check=False)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    first = other_process()
    assert first["status"] == 200 and first["body"]["login"] == "shop"
    assert_error(send(client.app, prepared), 401, "rest_oauth_nonce_used")
    # And the other way round: a nonce spent here is spent for the other process.
    again = client.prepare("GET", ME, creds, signature_type="query")
    assert send(client.app, again).status_int == 200
    job = json.dumps({"settings": settings, "url": again.url, "method": "GET", "headers": _headers(again)})
    assert other_process() == {"status": 401, "body": {
        "code": "rest_oauth_nonce_used", "message": "The nonce has already been used with this consumer key.",
        "data": {"status": 401}}}


def test_racing_replays_one_wins(make_site):
    sites = [make_site(**{"storeplatform.plugins": "oauth"}) for _ in range(4)]
    client = OAuthClient(sites[0])
    prepared = client.prepare("POST", "/api/store/v1/products", client.key(),
                              json={"name": "Once", "regular_price": "1"})
    start = threading.Barrier(len(sites))
    statuses = []

    def replay(site):
        start.wait()
        res = send(site.app, prepared)
        statuses.append((res.status_int, res.json.get("code")))

    threads = [threading.Thread(target=replay, args=(site,)) for site in sites]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(statuses, key=str) == sorted([(201, None)] + [(401, "rest_oauth_nonce_used")] * 3, key=str)
    listed = sites[0].app.get("/api/store/v1/products", headers=sites[0].headers_for("administrator")).json
    assert [p["name"] for p in listed] == ["Once"]


def test_expired_nonces_are_removed_and_free_again(client):
    creds = client.key()
    assert client.request("GET", ME, creds, nonce="n-1").status_int == 200
    assert client.request("GET", ME, creds, nonce="n-2").status_int == 200
    with client.site.session() as s:
        assert s.execute(select(func.count()).select_from(OAuthNonce)).scalar_one() == 2
        # n-1's request leaves the window (its timestamp is 15 minutes old).
        s.execute(update(OAuthNonce).where(OAuthNonce.id == 1).values(expires_at=now() - 1))
    assert client.request("GET", ME, creds, nonce="n-1").status_int == 200
    with client.site.session() as s:
        rows = s.execute(select(OAuthNonce.id, OAuthNonce.expires_at).order_by(OAuthNonce.id)).all()
    assert [r.id for r in rows] == [2, 3] and all(r.expires_at > now() for r in rows)
    assert_error(client.request("GET", ME, creds, nonce="n-1"), 401, "rest_oauth_nonce_used")


def test_nonces_of_a_deleted_key_go_with_it(client):
    from storeplatform.components.shop.models import ConsumerKey

    creds = client.key()
    assert client.request("GET", ME, creds).status_int == 200
    with client.site.session() as s:
        s.delete(s.execute(select(ConsumerKey)).scalar_one())
    with client.site.session() as s:
        assert s.execute(select(func.count()).select_from(OAuthNonce)).scalar_one() == 0
