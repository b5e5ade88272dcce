"""Fixtures for memstr's Python tests: keys, a throwaway nostr-rs-relay on loopback, and the
published sense-memory 0.3.1 client in its own venv (scripts/interop/setup.sh)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The tests' public keys (never a real agent's): the one .ci/run's library example uses,
# and a second agent.
SECRET = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a"
OTHER_SECRET = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"


@pytest.fixture
def secret() -> str:
    return SECRET


@pytest.fixture(scope="session")
def relay():
    """A nostr-rs-relay 0.8.12 on a free loopback port (relay-fixtures/run-relay.sh, which
    builds it on first use), stopped with its data at the end of the session."""
    proc = subprocess.Popen(
        ["bash", str(REPO / "relay-fixtures" / "run-relay.sh")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own process group: stopped whole, below
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("ws://127.0.0.1:"), f"run-relay.sh printed {url!r}"
        port = int(url.rsplit(":", 1)[1])
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("nostr-rs-relay did not start")
                time.sleep(0.1)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def published_client():
    """Runs one call of the published client (scripts/interop/relay_client.py) and returns
    its JSON answer."""
    python = subprocess.run(
        ["bash", str(REPO / "scripts" / "interop" / "setup.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()
    script = str(REPO / "scripts" / "interop" / "relay_client.py")

    def call(relay: str, secret: str, *args: str):
        done = subprocess.run(
            [python, script, "--relay", relay, "--secret-hex", secret, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return call
