"""A fast webhook receiver for the worker benchmark: one asyncio process on 127.0.0.1 that
answers every POST with 200 over keep-alive connections (HTTP/1.1, Content-Length bodies),
counts the POSTs and the distinct ``X-EVT-Delivery`` values it saw, and answers
``GET /count`` with ``{"posts": n, "distinct": m}``.

It has to be much faster than the clients it serves (a few thousand requests per second on one
core is plenty), so that the benchmark measures the senders, not the receiver.

    python bench/http/webhook_receiver.py [--port 0]    # prints the port it listens on
"""
import argparse
import asyncio
import json

OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
OK_CLOSE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


class Tally:
    def __init__(self):
        self.posts = 0
        self.deliveries = set()

    def answer_count(self):
        body = json.dumps({"posts": self.posts, "distinct": len(self.deliveries)}).encode()
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body), body)


class Connection(asyncio.Protocol):
    def __init__(self, tally):
        self.tally = tally
        self.buffer = bytearray()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            if len(self.buffer) < end + 4 + length:
                return  # the body is still coming
            del self.buffer[:end + 4 + length]
            method, path = lines[0].split(" ", 2)[:2]
            if method == "GET" and path == "/count":
                self.transport.write(self.tally.answer_count())
                continue
            self.tally.posts += 1
            self.tally.deliveries.add(headers.get("x-evt-delivery"))
            if headers.get("connection", "").lower() == "close":
                self.transport.write(OK_CLOSE)
                self.transport.close()
                return
            self.transport.write(OK)


async def serve(port):
    tally = Tally()
    server = await asyncio.get_running_loop().create_server(lambda: Connection(tally), "127.0.0.1", port,
                                                            backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    asyncio.run(serve(parser.parse_args().port))
