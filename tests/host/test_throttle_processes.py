"""Several OS processes guess one site's credentials at once (#28): the count is the database's,
shared by every process, and exact. Four processes of two threads each (throttle_guesser.py,
each with its own pool and kept values) send wrong application passwords over Basic and wrong
passwords to ``auth/login`` for one login from one address:

- under the limit, every guess is answered 401 and the counter equals the number of guesses;
- with a limit of L, exactly L guesses are answered 401 and every other one 429, whatever the
  interleaving (a guess's answer is decided by the count it got back); the user's right password
  is then refused from that address and accepted from another.
"""
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select

from storeplatform.core.auth import throttle
from storeplatform.core.models import LoginAttempts

GUESSER = Path(__file__).with_name("throttle_guesser.py")
PROCESSES = 4
THREADS = 2
PER_THREAD = 6
GUESSES = PROCESSES * THREADS * PER_THREAD  # 48
LIMIT = 20
PASSWORD = "the-right-password"


@pytest.fixture
def guessers(make_site, database):
    site = make_site(**{"storeplatform.trusted_proxies": "127.0.0.1"})
    settings = database.settings(**{"storeplatform.trusted_proxies": "127.0.0.1"})
    processes = [subprocess.Popen([sys.executable, str(GUESSER), json.dumps(settings)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True) for _ in range(PROCESSES)]
    try:
        for process in processes:
            assert process.stdout.readline().strip() == "ready"

        def guess(guesses):
            """Send each process its share at once; every answer, in no particular order."""
            for n, process in enumerate(processes):
                process.stdin.write(json.dumps({"threads": THREADS, "guesses": guesses[n::PROCESSES]}) + "\n")
                process.stdin.flush()
            answers = []
            for process in processes:
                answers.extend(tuple(answer) for answer in json.loads(process.stdout.readline()))
            return answers

        yield site, guess
    finally:
        for process in processes:
            process.stdin.close()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def failures(site, login, address="127.0.0.1"):
    keys = throttle.throttle_keys(site.settings["storeplatform.secret"], address, login)
    with site.session() as s:
        rows = dict(s.execute(select(LoginAttempts.key, LoginAttempts.failures).where(LoginAttempts.key.in_(keys))).all())
    return tuple(rows.get(key, 0) for key in keys)


def wrong_guesses(login):
    # Alternately a wrong application password (fast) and a wrong password (scrypt).
    return [["basic", login, f"{n:024d}"] if n % 2 else ["login", login, f"wrong-{n}"] for n in range(GUESSES)]


def test_processes_guessing_at_once_share_one_exact_count(guessers):
    site, guess = guessers
    site.create_user("victim", "administrator", password=PASSWORD)
    site.create_user("target", "administrator", password=PASSWORD)
    site.set_option("auth.throttle_login_failures", 1000)
    site.set_option("auth.throttle_address_failures", 100000)

    answers = guess(wrong_guesses("victim"))
    assert Counter(status for status, _ in answers) == {401: GUESSES}
    assert failures(site, "victim") == (GUESSES, GUESSES)  # no count lost, none twice

    site.set_option("auth.throttle_login_failures", LIMIT)
    answers = guess(wrong_guesses("target"))
    statuses = Counter(status for status, _ in answers)
    assert statuses == {401: LIMIT, 429: GUESSES - LIMIT}, statuses
    assert {code for status, code in answers if status == 429} == {"rest_too_many_attempts"}
    assert {code for status, code in answers if status == 401} <= {"rest_invalid_login", "rest_authentication_failed"}
    # Every guess that was checked is counted: those refused before their check are not.
    address_count, login_count = failures(site, "target")
    assert LIMIT <= login_count <= GUESSES and address_count == GUESSES + login_count

    # The user's right password: refused from the guessers' address, accepted from their own.
    res = site.app.post_json("/api/store/v1/auth/login", {"login": "target", "password": PASSWORD}, status=429)
    assert res.json["code"] == "rest_too_many_attempts" and int(res.headers["Retry-After"]) >= 1
    res = site.app.post_json("/api/store/v1/auth/login", {"login": "target", "password": PASSWORD},
                             headers={"X-Forwarded-For": "198.51.100.7"}, status=200)
    assert res.json["user"]["login"] == "target"
