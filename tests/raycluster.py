"""A Ray cluster of two one-CPU nodes on this machine's loopback (a head and a second raylet,
each ``ray start --block`` in its own process group), for the tests and bench/scale_speed.py.

Token authentication is turned off for it (``RAY_AUTH_MODE=disabled``): it listens on
127.0.0.1 only and lives as long as the test or benchmark.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
"""What every process that uses the cluster needs in its environment."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """End a ``ray start --block`` and everything it started (its own process group): SIGTERM,
    then SIGKILL for what is left (a raylet may outlive its leader)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@contextlib.contextmanager
def two_nodes(cpus: int = 1) -> Iterator[str]:
    """Start the cluster; yield the head's address (``127.0.0.1:PORT``); stop it on exit."""
    ray_bin = Path(sys.executable).with_name("ray")
    env = {**os.environ, **ENV}
    port = free_port()
    common = ["--block", "--num-cpus", str(cpus), "--node-ip-address", "127.0.0.1",
              "--disable-usage-stats"]
    started: list[subprocess.Popen] = []
    try:
        started.append(subprocess.Popen(
            [str(ray_bin), "start", "--head", "--port", str(port), "--include-dashboard",
             "false", *common], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True))
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or started[0].poll() is not None:
                    raise RuntimeError("the Ray head did not start") from None
                time.sleep(0.3)
        started.append(subprocess.Popen(
            [str(ray_bin), "start", "--address", f"127.0.0.1:{port}", *common], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        wait = ("import ray, time\n"
                f"ray.init(address='127.0.0.1:{port}', log_to_driver=False)\n"
                "while len([n for n in ray.nodes() if n['Alive']]) < 2: time.sleep(0.3)\n")
        subprocess.run([sys.executable, "-c", wait], env=env, timeout=120, check=True,
                       capture_output=True)
        yield f"127.0.0.1:{port}"
    finally:
        for process in reversed(started):
            stop(process)
