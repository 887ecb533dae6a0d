"""A server flooding an idle tool host with notifications: what it costs lemon.
``python benchmarks/bench_mcp_flood.py [--seconds 30] [--kind message] [--rate 0] [--no-limit]
[--lemon PATH]``.

Starts one :class:`McpHost` on a project naming ``tests/mcp/runtime/notify_server.py``, asks
the server (one tool call) to write ``--kind`` notifications (``message``: 1 KiB log messages,
``progress``, ``list_changed``) for ``--seconds`` at ``--rate`` a second (0: as fast as the
pipe takes them), then leaves the host idle and measures this process's CPU time (the host's
thread and loop run here; the server's own CPU is not counted) until the flood ends, and that
a call made right after still answers. ``--no-limit`` turns the notification bucket off;
``--lemon PATH`` imports lemon from another checkout (e.g. ``/work/main``, the code before
the bucket). Prints one JSON line. Nothing leaves 127.0.0.1 (stdio only).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SERVER = HERE / "tests" / "mcp" / "runtime" / "notify_server.py"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--kind", default="message",
                        choices=("message", "progress", "list_changed"))
    parser.add_argument("--rate", type=float, default=0.0)
    parser.add_argument("--no-limit", action="store_true")
    parser.add_argument("--lemon", type=Path, default=None)
    opts = parser.parse_args()
    if opts.lemon is not None:
        sys.path.insert(0, str(opts.lemon))
    from lemon_core.context import LemonContext
    from lemon_core.mcp.runtime.host import McpHost

    try:
        from lemon_core.mcp.client import flood
    except ImportError:  # a checkout from before the bucket
        flood = None  # type: ignore[assignment]
    if flood is not None and opts.no_limit:
        flood.RATE = flood.BURST = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".lemon").mkdir(parents=True)
        entry = {"name": "notify", "type": "stdio", "command": sys.executable,
                 "args": [str(SERVER)], "timeout_ms": 120_000, "ready_timeout_ms": 60_000}
        (project / ".lemon" / "mcp.json").write_text(json.dumps({"servers": [entry]}))
        env = {"HOME": str(root), "LEMON_AGENT_DIR": str(root / "agent"),
               "LEMON_MCP_EXTERNAL_DISCOVERY": "0", "PATH": "/usr/bin:/bin"}
        ctx = LemonContext.from_environment(cwd=project, env=env)
        with McpHost(ctx, trust=lambda project, server: True,
                     refresh_s=3600.0) as host:
            names = {t.raw: t.name for t in host.tools()}
            cpu0, wall0 = time.process_time(), time.monotonic()
            host.call(names["flood"], {"kind": opts.kind, "seconds": opts.seconds,
                                       "rate": opts.rate})
            time.sleep(opts.seconds)
            cpu = time.process_time() - cpu0
            wall = time.monotonic() - wall0
            before = time.monotonic()
            echo = host.call(names["echo"], {"text": "still here"})
            answer_ms = (time.monotonic() - before) * 1000
            written = host.call(names["flooding"], {}).result
            conn = next(iter(host._conns.values()))
            bucket = getattr(conn.transport, "bucket", None)
    print(json.dumps({
        "kind": opts.kind, "rate": opts.rate, "seconds": opts.seconds,
        "limit": bucket is not None and bucket.rate != float("inf"),
        "cpu_s": round(cpu, 2), "cores": round(cpu / wall, 3),
        "server_wrote": (written or {}).get("content", [{}])[0].get("text"),
        "dropped": bucket.dropped if bucket is not None else None,
        "call_after_ok": echo.ok, "call_after_ms": round(answer_ms, 1)}))


if __name__ == "__main__":
    main()
