"""Bulk regeneration: ``storeplatform -c INI invoicing regenerate [--status S] [ORDER_ID ...]``.

The command writes a job and one item per order, enqueues one task per order, and shows a
progress bar (on stderr) read from the job's items while workers do the work. A re-run is
safe: regeneration keeps each document's number, and an interrupted job just stops being
watched while its queued tasks still run.
"""
import sys
import threading
import time

from storeplatform.api import ORDER_STATUSES, CliError, Parser, enqueue_now, is_digits

from .jobs import TASK, create_job, job_progress, select_orders
from .models import DOCUMENT_TYPES


def add_commands(subparsers):
    inv = subparsers.add_parser("invoicing", help="invoice documents of orders")
    inv_sub = inv.add_subparsers(dest="invoicing_command", metavar="ACTION", parser_class=Parser)
    inv_sub.required = True
    regen = inv_sub.add_parser("regenerate", help="regenerate the PDFs of orders in the background")
    regen.add_argument("order_ids", nargs="*", metavar="ORDER_ID", help="orders to regenerate (default: all)")
    regen.add_argument("--status", action="append", default=[],
                       help="only orders with this status (repeatable)")
    regen.add_argument("--force-type", choices=DOCUMENT_TYPES, help="make this document type")
    regen.add_argument("--no-wait", action="store_true", help="enqueue and return without watching")
    regen.set_defaults(func=cmd_regenerate)


def _order_ids(args):
    ids = []
    for text in args.order_ids:
        if not is_digits(text) or len(text) > 18:
            raise CliError(f"ORDER_ID must be a positive integer, not {text!r}")
        ids.append(int(text))
    for status in args.status:
        if status not in ORDER_STATUSES:
            raise CliError(f"unknown status {status!r} (statuses: {', '.join(ORDER_STATUSES)})")
    return ids


def cmd_regenerate(env, args):
    ids = _order_ids(args)
    with env.transaction() as session:
        order_ids, missing, skipped = select_orders(session, ids, args.status, args.force_type)
        if missing:
            raise CliError("no order with id " + ", ".join(map(str, missing)))
        job_id = create_job(session, order_ids, args.force_type)
    if skipped:
        print(f"skipping {skipped} cancelled or failed orders (use --force-type to include them)", file=sys.stderr)
    total = len(order_ids)
    if not total:
        print("no orders to regenerate", file=sys.stderr)
        print(f"job {job_id}: 0 orders")
        return 0
    # The items are committed before the first task is sent, so a worker always finds them.
    sender = Sender(env.registry, job_id, order_ids)
    if args.no_wait:
        sender.run()
        if sender.error:
            raise CliError(sender.failure_message())
        print(f"job {job_id}: {total} orders enqueued")
        return 0
    # Sending thousands of tasks takes a while (a SQLite queue commits each one): workers
    # start on the first ones while the rest are sent, and the bar shows both.
    sender.start()
    try:
        done, failed = watch(env, job_id, total, sender=sender)
    except KeyboardInterrupt:
        if sender.is_alive():
            print(f"\ninterrupted: {sender.sent} of {total} tasks were sent; run the command again for the rest",
                  file=sys.stderr)
        else:
            print(f"\nstopped watching; job {job_id} goes on in the workers", file=sys.stderr)
        return 130
    print(f"job {job_id}: {done - failed} of {total} orders regenerated, {failed} failed")
    return 1 if failed else 0


class Sender(threading.Thread):
    """Sends one task per order; ``sent`` counts them, ``error`` keeps what stopped it."""

    def __init__(self, registry, job_id, order_ids):
        super().__init__(daemon=True, name="invoicing-sender")
        self.registry = registry
        self.job_id = job_id
        self.order_ids = order_ids
        self.sent = 0
        self.error = None

    def run(self):
        try:
            for oid in self.order_ids:
                enqueue_now(self.registry, TASK, self.job_id, oid)
                self.sent += 1
        except Exception as exc:  # reported by the command as one line
            self.error = exc

    def failure_message(self):
        return (f"could not send the tasks ({self.error.__class__.__name__}: {self.error}); "
                f"{self.sent} of {len(self.order_ids)} were sent; run the command again")


def progress(env, job_id):
    with env.transaction() as session:
        state = job_progress(session, job_id)
    return state["done"], state["failed"]


def watch(env, job_id, total, sender=None, interval=0.25, stream=None, hint_after=15.0):
    stream = stream or sys.stderr
    started = last_change = time.monotonic()
    print(f"regenerating {total} orders (job {job_id}); the worker (storeplatform worker) does the work; "
          "Ctrl-C stops watching, not the job", file=stream)
    shown = None
    hinted = False
    while True:
        sent = sender.sent if sender is not None else total
        done, failed = progress(env, job_id)
        now = time.monotonic()
        if (done, failed, sent) != shown:
            draw(stream, done, total, failed, now - started, sent)
            shown, last_change = (done, failed, sent), now
        if done >= total:
            stream.write("\n")
            stream.flush()
            return done, failed
        if sender is not None and sender.error is not None:
            stream.write("\n")
            raise CliError(sender.failure_message())
        if not hinted and now - last_change > hint_after:
            stream.write(f"\nno progress for {hint_after:.0f}s: is a worker running on this queue?\n")
            hinted = True
        time.sleep(interval)


def draw(stream, done, total, failed, elapsed, sent=None, width=30):
    filled = width * done // total
    bar = "#" * filled + "-" * (width - filled)
    extra = f", {failed} failed" if failed else ""
    queued = f" sent {sent}/{total}" if sent is not None and sent < total else ""
    stream.write(f"\r[{bar}] {done}/{total} ({100 * done // total}%{extra}){queued} {elapsed:.0f}s ")
    stream.flush()
