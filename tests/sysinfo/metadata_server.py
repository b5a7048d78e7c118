#!/usr/bin/env python3
"""A stand-in cloud metadata service for the metadata client's tests (docs/cloud.md).

Run inside a network namespace the test created, bound to 169.254.169.254:80. Each mode
answers as one provider does and refuses a request without the headers that provider
requires; every request is logged (method, path, headers) to --log, one JSON line each, so
a test can also assert that nothing was asked. --mode-file FILE: the mode is read from FILE
at each request, so one server serves case after case (a python start costs half a second).
Standard library only.
"""

import argparse
import http.server
import json
import socketserver
import sys
import time
from typing import Dict, Optional, Tuple

AWS_TOKEN = "AQAEAFakeTokenForTests0123456789abcdef=="

# mode -> (path, required headers, answer): the documented path of each provider's
# instance-type question and the headers its service insists on.
ANSWERS: Dict[str, Tuple[str, Dict[str, str], str]] = {
    "gce": ("/computeMetadata/v1/instance/machine-type", {"Metadata-Flavor": "Google"},
            "projects/123456789/machineTypes/n2-standard-4"),
    "azure": ("/metadata/instance/compute/vmSize", {"Metadata": "true"}, "Standard_D2s_v5"),
    "openstack": ("/latest/meta-data/instance-type", {}, "m1.small"),
    "oracle": ("/opc/v2/instance/shape", {"Authorization": "Bearer Oracle"},
               "VM.Standard.E4.Flex"),
}

MODES = ["aws", "404", "hang", "keep-open", "garbage-raw", "garbage-body", *ANSWERS]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "aws"
    mode_file = ""
    log_path = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def record(self) -> None:
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "headers": dict(self.headers.items())}) + "\n")

    def reply(self, status: int, body: str, chunked: bool = False) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if chunked:
            half = len(data) // 2
            for part in (data[:half], data[half:]):
                if part:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(data)
        self.close_connection = True

    def required(self, headers: Dict[str, str]) -> Optional[str]:
        for name, value in headers.items():
            if self.headers.get(name) != value:
                return name
        return None

    def serve(self) -> None:
        self.record()
        mode = self.mode
        if self.mode_file:
            with open(self.mode_file, encoding="utf-8") as f:
                mode = f.read().strip()
        if mode == "hang":
            time.sleep(30)  # past the client's budget; the test ends the server first
            return
        if mode == "keep-open":  # Azure's answer, whole, then the connection left open
            data = b"Standard_D2s_v5"
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\nConnection: keep-alive\r\n\r\n%s"
                             % (len(data), data))
            self.wfile.flush()
            time.sleep(30)
            return
        if mode == "garbage-raw":
            self.wfile.write(b"\x00\xff\xfeNOT HTTP AT ALL\r\n\r\n\x01\x02")
            self.close_connection = True
            return
        if mode == "garbage-body":
            self.reply(200, "<html><body>Welcome to nginx!</body></html>\n")
            return
        if mode == "404":
            self.reply(404, "Not Found\n")
            return
        if mode == "aws":
            self.serve_aws()
            return
        path, headers, answer = ANSWERS[mode]
        missing = self.required(headers)
        if missing:
            self.reply(403, "missing or wrong header %s\n" % missing)
            return
        base, _, query = self.path.partition("?")
        if base != path:
            self.reply(404, "Not Found\n")
            return
        if mode == "azure" and "api-version=" not in query:
            self.reply(400, '{"error": "Bad request. api-version was not specified"}\n')
            return
        self.reply(200, answer + "\n", chunked=(mode == "gce"))

    def serve_aws(self) -> None:
        """IMDSv2: PUT a token with its TTL header, then GET with the token."""
        if self.command == "PUT" and self.path == "/latest/api/token":
            if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                self.reply(400, "Missing TTL header\n")
                return
            self.reply(200, AWS_TOKEN)
            return
        if self.headers.get("X-aws-ec2-metadata-token") != AWS_TOKEN:
            self.reply(401, "Unauthorized\n")
            return
        if self.command == "GET" and self.path == "/latest/meta-data/instance-type":
            self.reply(200, "m5.large")
            return
        self.reply(404, "Not Found\n")

    do_GET = serve
    do_PUT = serve
    do_POST = serve


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--mode", choices=MODES)
    how.add_argument("--mode-file", help="a file holding the mode, read at each request")
    ap.add_argument("--log", required=True)
    ap.add_argument("--ready", required=True, help="file written once listening")
    ap.add_argument("--bind", default="169.254.169.254")
    ap.add_argument("--port", type=int, default=80)
    a = ap.parse_args()
    if a.mode_file:
        with open(a.mode_file, encoding="utf-8") as f:
            if f.read().strip() not in MODES:
                ap.error("--mode-file does not hold a mode")
    Handler.mode = a.mode or ""
    Handler.mode_file = a.mode_file or ""
    Handler.log_path = a.log
    open(a.log, "w", encoding="utf-8").close()
    srv = Server((a.bind, a.port), Handler)
    with open(a.ready, "w", encoding="utf-8") as f:
        f.write("%s:%d\n" % (a.bind, a.port))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
