"""Floors: the best ratio any exact answer of ours could reach on this machine, measured.

    .venv/bin/python bench/http/floors.py [--duration 5] [--rounds 2]

Run bench/http/run.py once first: it seeds the site this uses. Each row is measured as run.py
measures (wrk ``-t2 -c16``, alternating sides, every answer 2xx with the sampled size, the same
gunicorn section), each against the bare app answering the same bytes:

- ``units``: ours on ``GET pricecalc/v1/units``, a REST route that reads nothing: what our stack
  costs (routing, tweens, authentication, Cornice, the answer, the access record) without the
  database;
- ``state``: the bare app running our site-state statement before it answers (prepared, on libpq,
  nothing of ours around it): the one round trip with which every request of ours checks that
  what it keeps is current (a cache never serves data older than the last committed write);
- ``checkin``: the bare app running a check-in's conditional UPDATE ... RETURNING on a fresh
  ticket, autocommit: the least a check-in writes, one round trip and its commit's flush;
- ``transaction``: the bare app making that check-in as ours does, in a transaction that begins
  with the site state: BEGIN and the state statement in one pipeline, the UPDATE, the COMMIT
  (three round trips: the UPDATE's answer decides what else the transaction writes, and the
  answer may only leave once the COMMIT is durable);
- ``revalidate``: the bare app answering the events list's 304 (#39 item 4) after the site-state
  statement, against the bare app answering the same 304: what an exact revalidation costs with
  nothing of ours around it.

Costs per request add up (the machine is CPU-bound, so a ratio is bare time over ours), which
gives the ceilings it prints: an exact read of ours can at best reach ``1 / (1/units + 1/state -
1)``, if its own work, the session and the cache cost nothing; a check-in at best
``1 / (1/units + 1/state + 1/checkin - 2)``, with the commit in the UPDATE's round trip, and a
check-in in a transaction ``1 / (1/units + 1/transaction - 1)``. A revalidation reaches at best
``revalidate`` with nothing of ours, and ``1 / (1/units + 1/revalidate - 1)`` through our stack
(taking our stack's time on ``units`` for its time on a 304: both answers are small, under 700
bytes with their headers).
"""
import argparse
import json
import sys

import run
from run import GOALS, STATE, Route, log, measure, sample, served, top_up_tickets, use_tickets, write_ini


def floor_routes(state):
    manager = ("manager", state["manager"])
    units = Route("units", "GET pricecalc/v1/units", "GET", "/api/pricecalc/v1/units")
    checkin = Route("checkin", "POST events/v1/checkin", "POST", "/api/events/v1/checkin", auth=manager,
                    template='{"ticket_code":"%s"}', size_slack=8)
    revalidate = Route("revalidate", "GET events/v1/events (304)", "GET", "/api/events/v1/events?per_page=100&_embed=1",
                       revalidate=True)
    return units, checkin, revalidate


def bare_ini(work, name, routes, workers):
    """A bare app answering ``routes`` [(route, floor)] with their sampled answers."""
    answers = work / f"{name}.json"
    answers.write_text(json.dumps({"routes": [
        {"method": r.method, "path": r.path.split("?")[0], "answer": r.answer, "floor": floor,
         "if_none_match": r.revalidate}
        for r, floor in routes]}))
    ini = work / f"{name}.ini"
    write_ini(ini, {"use": "call:bare:make_app", "answers": str(answers),
                    "database_url": f"{run.PG}/{run.DB_NAME}"}, workers)
    return ini


def ceiling(*ratios):
    return 1 / (sum(1 / r for r in ratios) - (len(ratios) - 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    state_file = STATE / "seed.json"
    if not state_file.exists() or not run.database_exists():
        raise SystemExit("no seeded bench site: run bench/http/run.py first")
    state = json.loads(state_file.read_text())
    work = STATE / "floors"
    work.mkdir(parents=True, exist_ok=True)
    ours_ini = work / "ours.ini"
    write_ini(ours_ini, run.site_app_lines(state["secret"]), args.workers)
    units, checkin, revalidate = floor_routes(state)
    rows = {}
    with served(ours_ini, run.free_port()) as (ours, _):
        codes = top_up_tickets(ours, state, 40_000)
        state_file.write_text(json.dumps(state))
        sample(ours, units, codes)
        sample(ours, checkin, codes)
        sample(ours, revalidate, codes)
        use_tickets(1)
        canned = bare_ini(work, "bare", [(units, None), (checkin, None), (revalidate, None)], args.workers)
        with served(canned, run.free_port()) as (bare, _):
            rows["units"] = measure(units, ours, bare, args, work)
            log(f"  units: ours {rows['units']['ours']['rps']:.0f}/s, bare {rows['units']['bare']['rps']:.0f}/s")
            with served(bare_ini(work, "state", [(units, "state")], args.workers), run.free_port()) as (floor, _):
                rows["state"] = measure(units, floor, bare, args, work)
            log(f"  state: {rows['state']['ours']['rps']:.0f}/s, bare {rows['state']['bare']['rps']:.0f}/s")
            with served(bare_ini(work, "revalidate", [(revalidate, "state")], args.workers),
                        run.free_port()) as (floor, _):
                rows["revalidate"] = measure(revalidate, floor, bare, args, work)
            log(f"  revalidate: {rows['revalidate']['ours']['rps']:.0f}/s, "
                f"bare {rows['revalidate']['bare']['rps']:.0f}/s")
            top_up_tickets(ours, state, 40_000)
            state_file.write_text(json.dumps(state))
            with served(bare_ini(work, "checkin", [(checkin, "checkin")], args.workers), run.free_port()) as (floor, _):
                rows["checkin"] = measure(checkin, floor, bare, args, work)
            log(f"  checkin: {rows['checkin']['ours']['rps']:.0f}/s, bare {rows['checkin']['bare']['rps']:.0f}/s")
            top_up_tickets(ours, state, 40_000)
            state_file.write_text(json.dumps(state))
            with served(bare_ini(work, "transaction", [(checkin, "transaction")], args.workers),
                        run.free_port()) as (floor, _):
                rows["transaction"] = measure(checkin, floor, bare, args, work)
            log(f"  transaction: {rows['transaction']['ours']['rps']:.0f}/s, "
                f"bare {rows['transaction']['bare']['rps']:.0f}/s")
    ratio = {name: r["ours"]["rps"] / r["bare"]["rps"] for name, r in rows.items()}
    labels = {"units": "ours, GET pricecalc/v1/units (reads nothing)",
              "state": "bare + the site-state statement (libpq, prepared)",
              "revalidate": "bare 304 + the site-state statement, against the bare 304",
              "checkin": "bare + a check-in's UPDATE ... RETURNING (libpq, autocommit)",
              "transaction": "bare + the same check-in in a transaction: BEGIN and the state, the UPDATE, COMMIT "
                             "(libpq, three round trips)"}
    print(f"\nstoreplatform HTTP floors: gunicorn {args.workers} sync workers, wrk -t{args.threads} "
          f"-c{args.connections}, {args.rounds} x {args.duration} s per side\n")
    print("| row | req/s | bare req/s | ratio |")
    print("|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {labels[name]} | {r['ours']['rps']:.0f} | {r['bare']['rps']:.0f} | {ratio[name]:.2f} |")
    read = ceiling(ratio["units"], ratio["state"])
    check = ceiling(ratio["units"], ratio["state"], ratio["checkin"])
    transactional = ceiling(ratio["units"], ratio["transaction"])
    revalidation = ceiling(ratio["units"], ratio["revalidate"])
    print("\n| ceiling | at best | goal |")
    print("|---|---|---|")
    for label, value, names in (("an exact read (calculate, documents/{id}, pdf)", read, ("calculate", "document", "pdf")),
                                ("a check-in", check, ("checkin",)),
                                ("a check-in in a transaction with its state (as ours)", transactional, ("checkin",)),
                                ("a revalidation (304) with nothing of ours but the state", ratio["revalidate"],
                                 ("revalidate",)),
                                ("a revalidation (304) through our stack", revalidation, ("revalidate",))):
        goal = min(GOALS[n][0] for n in names)
        print(f"| {label} | {value:.2f} | >= {goal:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
