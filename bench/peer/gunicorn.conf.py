"""gunicorn as its docs tune it: (2 x cores) + 1 sync workers, behind nginx (docs: "Deploying
Gunicorn"), on a unix socket. PEER_BIND is set by scripts/bench-peer."""

import multiprocessing
import os

bind = os.environ["PEER_BIND"]
workers = multiprocessing.cpu_count() * 2 + 1
worker_class = "sync"
accesslog = None
errorlog = os.path.join(os.environ["PEER_DIR"], "gunicorn.log")
pidfile = os.path.join(os.environ["PEER_DIR"], "gunicorn.pid")
# gunicorn 27's control socket would go in $HOME: the benchmark's own folder instead.
control_socket = os.path.join(os.environ["PEER_DIR"], "gunicorn.ctl")
