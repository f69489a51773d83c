"""A process that guesses credentials of a site (test_throttle_processes.py starts several).

``python throttle_guesser.py SETTINGS_JSON``: builds the site's app in this process (its own
pool and its own kept values), prints ``ready``, then for each line of JSON read from stdin
(``{"threads": T, "guesses": [[way, login, password], ...]}``) sends the guesses from T threads
at once and prints one line of JSON: ``[[status, code], ...]``. ``way`` is ``basic`` (an
application password over Basic on users/me) or ``login`` (``POST auth/login``)."""
import base64
import json
import os
import sys
import threading

from webtest import TestApp

from storeplatform import make_app, make_config


def guess(app, way, login, password):
    if way == "basic":
        token = base64.b64encode(f"{login}:{password}".encode()).decode()
        res = app.get("/api/store/v1/users/me", headers={"Authorization": f"Basic {token}"}, expect_errors=True)
    else:
        res = app.post_json("/api/store/v1/auth/login", {"login": login, "password": password}, expect_errors=True)
    code = res.json.get("code") if res.content_type == "application/json" and res.status_int >= 400 else None
    return [res.status_int, code]


def main():
    settings = json.loads(sys.argv[1])
    wsgi = make_app(make_config(environ={}, **settings))
    TestApp(wsgi).get("/api/", extra_environ={"REMOTE_ADDR": "127.0.0.1"})  # connections, options, caches
    print("ready", flush=True)
    for line in sys.stdin:
        work = json.loads(line)
        threads = work["threads"]
        shares = [work["guesses"][n::threads] for n in range(threads)]
        results = [[] for _ in shares]
        start = threading.Barrier(threads)

        def run(n):
            app = TestApp(wsgi, extra_environ={"REMOTE_ADDR": "127.0.0.1"})
            start.wait()
            for way, login, password in shares[n]:
                results[n].append(guess(app, way, login, password))

        workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        print(json.dumps([r for share in results for r in share]), flush=True)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # nothing to tidy: the test drops the database (an orderly exit takes seconds)
