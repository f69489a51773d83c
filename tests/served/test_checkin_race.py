"""Check-in, check-out and check-in again of the same tickets at once, through the real servers
with several processes or threads (issue #44): config/production.ini's gunicorn with 4 sync
workers on PostgreSQL + Redis, development.ini's waitress with its 8 threads on SQLite.

The spec's state table lets a checked-out ticket come in again, so every interleaving of the
three scans of a ticket has answers the spec names: checked in (or already in) for a check-in,
checked out or ``evt_rest_not_checked_in`` for a check-out; never a 500. A check-in whose move
found the ticket in (a second scan) and whose read then found it out again (a third) answered
500 ``evt_rest_checkin_failed`` before the fix: with 20 tickets, 1-2 answers in 3 bursts.

Afterwards each ticket's state is the one its answers imply (the moves alternate: a ticket is in
when one more check-in than check-out moved it) and ``checkin/stats`` counts the same."""
import http.client
import json
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from .helpers import (API, BIN, DEVELOPMENT_INI, PRODUCTION_INI, backend, prepare_site, processes, scaled,
                      start_server, wait_ready)

TICKETS = 20
BURSTS = 12  # 12 x 60 = 720 scans
CLIENTS = 24


def request(port, method, path, auth, body=None):
    """One request on a connection of its own, so that the server's processes share them."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=scaled(30))
    try:
        headers = {"Authorization": auth, "Content-Type": "application/json"}
        conn.request(method, f"{API}{path}", body=None if body is None else json.dumps(body), headers=headers)
        res = conn.getresponse()
        return res.status, json.loads(res.read() or b"null")
    finally:
        conn.close()


def sell_tickets(port, auth):
    """An event and ``TICKETS`` tickets of it in one paid order: (event id, ticket codes)."""
    def post(path, body):
        status, answer = request(port, "POST", path, auth, body)
        assert status == 201, (path, status, answer)
        return answer

    event = post("/events/v1/events", {"title": "Re-entry night", "start_date": "2027-03-15",
                                       "start_time": "19:30", "status": "publish"})
    product = post("/store/v1/products", {"name": "Ticket", "regular_price": "5.00", "meta": {"event_id": event["id"]}})
    order = post("/store/v1/orders", {"status": "processing", "billing": {"first_name": "Anna", "email": "a@example.com"},
                                      "line_items": [{"product_id": product["id"], "quantity": TICKETS}]})
    status, attendees = request(port, "GET", f"/events/v1/attendees?order_id={order['id']}&per_page=100", auth)
    assert status == 200 and len(attendees) == TICKETS, (status, attendees)
    return event["id"], [a["ticket_code"] for a in attendees]


def scan(port, auth, verb, code):
    path = "/events/v1/checkin" if verb == "in" else "/events/v1/checkin/checkout"
    status, body = request(port, "POST", path, auth, {"ticket_code": code})
    return verb, code, status, body


def outcome(verb, status, body):
    """What an answer says happened: 'moved in', 'already in', 'moved out', 'not in'; or None
    for an answer the spec does not give to these scans."""
    if verb == "in" and status == 200 and body.get("success") is True:
        return "already in" if body["already_in"] else "moved in"
    if verb == "out" and status == 200 and body.get("success") is True:
        return "moved out"
    if verb == "out" and status == 400 and body.get("code") == "evt_rest_not_checked_in":
        return "not in"
    return None


def run_bursts(port, auth, codes):
    """Every ticket scanned in, out and in again per burst, the scans of a burst all at once in a
    random order. Returns (moves per ticket as a Counter of outcomes, unexpected answers)."""
    moves = {code: Counter() for code in codes}
    unexpected = []
    shuffle = random.Random(44)
    with ThreadPoolExecutor(CLIENTS) as pool:
        for _ in range(BURSTS):
            plan = [(verb, code) for code in codes for verb in ("in", "out", "in")]
            shuffle.shuffle(plan)
            for verb, code, status, body in pool.map(lambda p: scan(port, auth, *p), plan):
                seen = outcome(verb, status, body)
                if seen is None:
                    unexpected.append((verb, code, status, body))
                else:
                    moves[code][seen] += 1
    return moves, unexpected


def check_states(port, auth, event_id, codes, moves):
    """Each ticket's state is the one its answers imply, and the stats count the same."""
    status, attendees = request(port, "GET", f"/events/v1/attendees?event_id={event_id}&per_page=100", auth)
    assert status == 200, attendees
    state = {a["ticket_code"]: a["status"] for a in attendees}
    problems = []
    for code in codes:
        balance = moves[code]["moved in"] - moves[code]["moved out"]
        implied = {1: "checked_in", 0: "checked_out"}.get(balance, f"impossible (balance {balance})")
        if state[code] != implied:
            problems.append(f"{code}: {state[code]}, answers imply {implied} ({dict(moves[code])})")
    status, stats = request(port, "GET", f"/events/v1/checkin/stats/{event_id}", auth)
    assert status == 200, stats
    kept = Counter(state.values())
    expected = {"total": TICKETS, "pending": 0, "checked_in": kept["checked_in"],
                "checked_out": kept["checked_out"], "cancelled": 0}
    for name, number in expected.items():
        if stats[name] != number:
            problems.append(f"stats {name} = {stats[name]}, the tickets' states say {number}")
    return problems


def test_checkin_checkout_checkin_bursts_answer_the_spec_and_agree(tmp_path):
    with backend(tmp_path) as site:
        env = site.environ()
        # The production topology on its backend, the embedded defaults on theirs (.ci/run runs both).
        production = site.kind != "sqlite"
        ini = PRODUCTION_INI if production else DEVELOPMENT_INI
        creds, _ = prepare_site(ini, env, tmp_path)
        with processes() as started:
            server, port = start_server(started, "server", [BIN / "pserve", *(["-q"] if production else []), ini],
                                        env, tmp_path, tmp_path / "server.log")
            wait_ready(port, server, auth=creds.manager)
            event_id, codes = sell_tickets(port, creds.manager)
            moves, unexpected = run_bursts(port, creds.manager, codes)
            problems = check_states(port, creds.manager, event_id, codes, moves)
        log = server.text()
        total = Counter(seen for counted in moves.values() for seen in counted.elements())
        assert not unexpected, f"{len(unexpected)} answers outside the spec's (first 5: {unexpected[:5]}); " \
                               f"{dict(total)}\n{server.tail(40)}"
        assert not problems, "\n".join(problems)
        # Every kind of answer was met: the scans did interleave.
        assert total["moved in"] and total["moved out"] and total["not in"] and total["already in"], dict(total)
        assert "Traceback" not in log, server.tail(80)
