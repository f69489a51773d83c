"""Summaries of py-spy's raw stacks (``py-spy record -f raw``): where a route's worker time goes.

    .venv/bin/python bench/http/stacks.py PROFILE.txt [--top 25]

Counts only the samples of workers handling a request (a gunicorn ``handle_request`` frame):
the master and idle workers are left out, waits on the database are in (sampled with --idle;
left out of a profile taken with run.py's --on-cpu).
Prints the share of those samples by package (self time, the innermost frame), by function (self)
and by function including what it calls (cumulative, each function counted once per stack).
"""
import argparse
import collections
import re

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^:()]+)(?::(?P<line>\d+))?\)$")


def frames(stack):
    for part in stack.split(";"):
        match = FRAME.match(part.strip())
        yield (match["func"], match["file"]) if match else (part.strip(), "")


def package(file):
    # py-spy names files relative to their sys.path entry: "pyramid/router.py", "socket.py".
    return file.split("/")[0] if "/" in file else f"stdlib:{file or '?'}"


def summarize(path, top=25):
    by_package, by_self, by_cumulative = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    with open(path) as fh:
        lines = fh.readlines()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        count = int(count)
        stack_frames = list(frames(stack))
        if not any(f == "SyncWorker.handle_request" for f, _ in stack_frames):
            continue
        total += count
        func, file = stack_frames[-1]
        by_package[package(file)] += count
        by_self[f"{func} ({file.split('/')[-1]})"] += count
        inner = stack_frames[next(i for i, (f, _) in enumerate(stack_frames) if f == "SyncWorker.handle_request"):]
        for name in {f"{f} ({p.split('/')[-1]})" for f, p in inner}:
            by_cumulative[name] += count
    out = [f"{total} samples"]
    for title, counter in (("package (self)", by_package), ("function (self)", by_self),
                           ("function (cumulative)", by_cumulative)):
        out.append(f"\n## {title}")
        out += [f"{100 * n / total:5.1f}%  {name}" for name, n in counter.most_common(top)]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    print(summarize(args.profile, args.top))


if __name__ == "__main__":
    main()
