#!/usr/bin/python3
"""PID 1 of one test-cluster host (scripts/cluster/up.sh): reap every orphan, as an init does, so daemons that
fork into the background and processes whose parent died leave no zombies. Killing this process (SIGKILL from
outside the host's pid namespace) ends every process of the host at once."""
import os
import signal
import sys
import time

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
print("ready", flush=True)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.2)
