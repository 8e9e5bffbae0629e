#!/usr/bin/env python3
"""Local stand-ins for SEC EDGAR and Yahoo's chart API, for load tests and demos without network.

Serves, from a market-data directory laid out like MARKET_DATA_DIR (default: examples/market-data):

  GET /files/company_tickers.json                 <dir>/company_tickers.json           (SEC_TICKERS_URL)
  GET /api/xbrl/companyfacts/CIK##########.json   <dir>/companyfacts/CIK….json         (SEC_EDGAR_BASE_URL)
  GET /v8/finance/chart/SYMBOL?range=2y&…         Yahoo chart JSON built from          (YAHOO_CHART_URL)
                                                  <dir>/prices/SYMBOL.csv (Date,Close or OHLCV with Adj Close),
                                                  cut to the requested range before the last date
  GET /__stats                                    requests served so far, by kind (JSON)

Unknown files answer 404 in each provider's own shape. Every answer can be delayed with
--latency-ms to stand in for a remote provider. Standard library only (Python 3.8+).

  scripts/fake-market-providers.py --port 18120 --latency-ms 0
  SEC_TICKERS_URL=http://127.0.0.1:18120/files/company_tickers.json \\
  SEC_EDGAR_BASE_URL=http://127.0.0.1:18120/api/xbrl/companyfacts \\
  YAHOO_CHART_URL=http://127.0.0.1:18120/v8/finance/chart  creditflow
"""

import argparse
import csv
import datetime as dt
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

# Calendar days per Yahoo range; "max" and anything unknown return the whole series.
RANGE_DAYS = {"1d": 1, "5d": 5, "1mo": 31, "3mo": 92, "6mo": 183, "1y": 366, "2y": 731, "5y": 1827, "10y": 3653}
FACTS_PATH = re.compile(r"^/api/xbrl/companyfacts/(CIK\d{10}\.json)$")
CHART_PATH = re.compile(r"^/v8/finance/chart/([A-Za-z0-9.^=-]{1,20})$")
NOT_FOUND_CHART = json.dumps(
    {"chart": {"result": None, "error": {"code": "Not Found", "description": "No data found, symbol may be delisted"}}}
).encode()


def read_closes(path):
    """[(date, close)] of a Date,Close or OHLCV CSV (Adj Close preferred), skipping empty closes."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return []
    columns = {name.strip().lower(): name for name in rows[0]}
    close = columns.get("adj close") or columns.get("adj_close") or columns.get("close")
    date = columns.get("date")
    if close is None or date is None:
        raise ValueError(f"{path}: needs Date and Close columns")
    points = []
    for row in rows:
        raw = (row.get(close) or "").strip()
        if raw and raw.lower() != "null":
            points.append((dt.date.fromisoformat(row[date].strip()), float(raw)))
    points.sort()
    return points


class Providers:
    """The files, the rendered chart answers (built once per symbol and range) and the counters."""

    def __init__(self, data_dir, latency):
        self.data_dir = data_dir
        self.latency = latency
        self.charts = {}
        self.lock = threading.Lock()
        self.stats = {"tickers": 0, "companyfacts": 0, "chart": 0, "not_found": 0}

    def count(self, kind):
        with self.lock:
            self.stats[kind] += 1

    def file(self, path):
        try:
            return path.read_bytes()
        except OSError:
            return None

    def chart(self, symbol, range_):
        key = (symbol.upper(), range_)
        with self.lock:
            if key in self.charts:
                return self.charts[key]
        path = self.data_dir / "prices" / f"{symbol.upper()}.csv"
        body = None
        if path.is_file():
            points = read_closes(path)
            if points and range_ in RANGE_DAYS:
                first = points[-1][0] - dt.timedelta(days=RANGE_DAYS[range_])
                points = [p for p in points if p[0] > first]
            # Sessions open at 14:30 UTC (09:30 in New York); gmtoffset shifts them to exchange dates.
            stamps = [
                int(dt.datetime(d.year, d.month, d.day, 14, 30, tzinfo=dt.timezone.utc).timestamp()) for d, _ in points
            ]
            closes = [c for _, c in points]
            body = json.dumps(
                {
                    "chart": {
                        "result": [
                            {
                                "meta": {
                                    "currency": "USD",
                                    "symbol": symbol.upper(),
                                    "gmtoffset": -18000,
                                    "timezone": "EST",
                                    "exchangeTimezoneName": "America/New_York",
                                    "dataGranularity": "1d",
                                    "range": range_,
                                },
                                "timestamp": stamps,
                                "indicators": {"quote": [{"close": closes}], "adjclose": [{"adjclose": closes}]},
                            }
                        ],
                        "error": None,
                    }
                },
                separators=(",", ":"),
            ).encode()
        with self.lock:
            self.charts[key] = body
        return body


def handler_for(providers):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the service's HTTP client pools connections
        server_version = "fake-market-providers"

        def log_message(self, *_):
            pass

        def answer(self, status, body, content_type="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlsplit(self.path)
            if url.path == "/__stats":
                with providers.lock:
                    body = json.dumps(providers.stats).encode()
                return self.answer(200, body)
            if providers.latency > 0:
                time.sleep(providers.latency)
            if url.path == "/files/company_tickers.json":
                body = providers.file(providers.data_dir / "company_tickers.json")
                kind = "tickers"
            elif match := FACTS_PATH.match(url.path):
                body = providers.file(providers.data_dir / "companyfacts" / match.group(1))
                kind = "companyfacts"
            elif match := CHART_PATH.match(url.path):
                range_ = parse_qs(url.query).get("range", ["max"])[0]
                body = providers.chart(match.group(1), range_)
                if body is None:
                    providers.count("not_found")
                    return self.answer(404, NOT_FOUND_CHART)
                kind = "chart"
            else:
                body = None
                kind = None
            if body is None:
                providers.count("not_found")
                return self.answer(404, b'{"message":"Not Found"}')
            providers.count(kind)
            self.answer(200, body)

    return Handler


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=root / "examples" / "market-data")
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=18120)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay before every provider answer")
    args = parser.parse_args()
    if not (args.data_dir / "company_tickers.json").is_file():
        sys.exit(f"fake-market-providers: {args.data_dir}/company_tickers.json does not exist")
    providers = Providers(args.data_dir, args.latency_ms / 1000.0)
    server = ThreadingHTTPServer((args.bind, args.port), handler_for(providers))
    server.daemon_threads = True
    print(f"fake SEC EDGAR and Yahoo on http://{args.bind}:{args.port} from {args.data_dir}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
