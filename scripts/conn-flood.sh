#!/usr/bin/env bash
# Connection flood: 10,000 connections that each send one byte and then nothing (half-open
# requests), against a release build on the in-memory store, from one source address and then
# spread over 100 loopback source addresses (127.0.1.1–127.0.1.100, so the per-client cap does not
# apply and the global cap does). Prints the service's RSS and open descriptors before, during and
# after, how many flood connections the service still holds, and /health/live latency during it.
#
# Then clients that write their whole request before reading (as Python requests or Java's
# HttpURLConnection do), counting answers against resets: BURST (200) sign-ins at once from one
# address, each in flight (its body sent 0.5 s after its head) so that those past the per-client
# cap (128) are refused; and BIG_BODIES (5) sign-ins at once with a 50 MB body (413 at 2 MiB).
#
# Environment (all optional): CONNECTIONS=10000 BURST=200 BIG_BODIES=5 CF_PORT=18091
#   CARGO_TARGET_DIR=/tmp/bench-target SKIP_BUILD=1 to reuse the binary; any HTTP_* variable is
#   passed to the service.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS="${CONNECTIONS:-10000}"
BURST="${BURST:-200}"
BIG_BODIES="${BIG_BODIES:-5}"
CF_PORT="${CF_PORT:-18091}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/bench-target}"
DATA_DIR="$(mktemp -d)"
remove_on_exit "$DATA_DIR"

build_release --bin creditflow
ulimit -n "$(ulimit -Hn)"

env STORE=memory DATA_DIR="$DATA_DIR" BIND_ADDR="127.0.0.1:$CF_PORT" RUST_LOG=warn \
    JWT_SECRET="conn-flood-secret-$(random_hex)" \
    "$CARGO_TARGET_DIR/release/creditflow" >"$DATA_DIR/service.log" 2>&1 &
CF_PID=$!
stop_on_exit "$CF_PID"
wait_until_up "http://127.0.0.1:$CF_PORT/health/live" "$CF_PID" "the service" "$DATA_DIR/service.log" 30

python3 - "$CF_PID" "$CF_PORT" "$CONNECTIONS" "$BURST" "$BIG_BODIES" <<'PY'
import collections, os, socket, subprocess, sys, threading, time

pid, port, total = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
burst, big_bodies = int(sys.argv[4]), int(sys.argv[5])

def status():
    fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    rss = int(fields["VmRSS"].split()[0]) // 1024
    hwm = int(fields["VmHWM"].split()[0]) // 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return f"RSS {rss} MiB (peak {hwm} MiB), {fds} open descriptors"

def health_ms():
    started = time.monotonic()
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5",
                          f"http://127.0.0.1:{port}/health/live"], capture_output=True, text=True).stdout
    return out, (time.monotonic() - started) * 1000

def still_open(sockets):
    alive = 0
    for s in sockets:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                continue
            alive += 1
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive

def flood(label, sources):
    print(f"-- {label}: {total} connections, one byte each, from {len(sources)} source address(es)")
    print("   before:", status())
    sockets, refused, started = [], 0, time.monotonic()
    for n in range(total):
        s = socket.socket()
        try:
            s.bind((sources[n % len(sources)], 0))
            s.connect(("127.0.0.1", port))
            s.send(b"G")
            sockets.append(s)
        except OSError:
            refused += 1
            s.close()
    print(f"   opened {len(sockets)} ({refused} failed to connect) in {time.monotonic() - started:.1f} s")
    time.sleep(1)
    samples = [health_ms() for _ in range(10)]
    codes = sorted({code for code, _ in samples})
    worst = max(ms for _, ms in samples)
    print(f"   during: {status()}; /health/live {codes} worst of 10: {worst:.1f} ms")
    print(f"   flood connections the service still holds: {still_open(sockets)}")
    for s in sockets:
        s.close()
    time.sleep(3)
    print("   3 s after they closed:", status())

def sign_in_head(length):
    return (f"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()

def answer(s):
    """The status of the answer on `s`, or what happened instead."""
    s.settimeout(10)
    received = b""
    try:
        while b"\r\n" not in received:
            chunk = s.recv(4096)
            if not chunk:
                return "closed without an answer" if not received else "cut off"
            received += chunk
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "no answer in 10 s"
    except OSError as error:
        return f"error {error.errno}"
    return received.split(b" ", 2)[1].decode()

def outcomes(results):
    return ", ".join(f"{what} × {n}" for what, n in sorted(collections.Counter(results).items()))

def burst_from_one_address():
    print(f"-- {burst} sign-ins at once from one address, bodies 0.5 s after the heads, whole request before reading")
    body = b'{"email":"flood@example.com","password":"not the password"}'
    sockets, results = [], []
    for _ in range(burst):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(sign_in_head(len(body)))
        sockets.append(s)
    time.sleep(0.5)
    for s in sockets:
        try:
            s.sendall(body)
            results.append(None)
        except OSError as error:
            results.append(f"reset while sending ({error.errno})")
    results = [sent or answer(s) for sent, s in zip(results, sockets)]
    print(f"   answers: {outcomes(results)}")
    for s in sockets:
        s.close()
    time.sleep(3)
    print("   3 s after they closed:", status())

def big_bodies_at_once():
    print(f"-- {big_bodies} sign-ins at once with a 50 MB body (limit 2 MiB), whole request before reading")
    request = sign_in_head(50_000_000) + b" " * 50_000_000
    results = [None] * big_bodies
    def client(n):
        s = socket.create_connection(("127.0.0.1", port))
        try:
            s.sendall(request)
            results[n] = answer(s)
        except OSError as error:
            results[n] = f"reset while sending ({error.errno})"
        finally:
            s.close()
    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(big_bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"   answers: {outcomes(results)} in {time.monotonic() - started:.1f} s; {status()}")

flood("one client", ["127.0.0.1"])
flood("100 clients", [f"127.0.1.{i}" for i in range(1, 101)])
burst_from_one_address()
big_bodies_at_once()
PY
