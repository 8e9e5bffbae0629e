#!/usr/bin/env bash
# Connection flood: 10,000 connections that each send one byte and then nothing (half-open
# requests), against a release build on the in-memory store, from one source address and then
# spread over 100 loopback source addresses (127.0.1.1–127.0.1.100, so the per-client cap does not
# apply and the global cap does). Prints the service's RSS and open descriptors before, during and
# after, how many flood connections the service still holds, and /health/live latency during it.
#
# Environment (all optional): CONNECTIONS=10000 CF_PORT=18091 CARGO_TARGET_DIR=/tmp/bench-target
#   SKIP_BUILD=1 to reuse the binary; any HTTP_* variable is passed to the service.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS="${CONNECTIONS:-10000}"
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

python3 - "$CF_PID" "$CF_PORT" "$CONNECTIONS" <<'PY'
import os, socket, subprocess, sys, time

pid, port, total = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

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

flood("one client", ["127.0.0.1"])
flood("100 clients", [f"127.0.1.{i}" for i in range(1, 101)])
PY
