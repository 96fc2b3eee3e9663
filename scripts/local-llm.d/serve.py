"""Runs llama.cpp's HTTP server (through xllamacpp) on loopback until SIGTERM. Used by scripts/local-llm."""
import argparse
import signal
import sys
import threading

import xllamacpp

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True)
parser.add_argument("--template", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--ctx", type=int, default=8192)
parser.add_argument("--parallel", type=int, default=1)
parser.add_argument("--threads", type=int, default=2)
# Greedy decoding and a fixed seed by default, for any request that names neither (the extraction prompts send
# temperature 0 and seed 7 themselves, the assistant's 0.2): one request, one answer. Answers still change from day
# to day (every request carries today's date) and with the prompts, so scripts/test-local-llm never depends on them.
parser.add_argument("--temp", type=float, default=0.0)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--verbose", action="store_true")
args = parser.parse_args()

params = xllamacpp.CommonParams()
params.model.path = args.model
params.hostnames = ["127.0.0.1"]
params.port = args.port
params.n_ctx = args.ctx
params.n_parallel = args.parallel
params.cpuparams.n_threads = args.threads
params.cpuparams_batch.n_threads = args.threads
params.sampling.temp = args.temp
params.sampling.seed = args.seed
params.use_jinja = True
with open(args.template, encoding="utf-8") as handle:
    params.chat_template = handle.read()
params.warmup = False
if args.verbose:
    params.verbosity = 4

server = xllamacpp.Server(params)
print(f"llama.cpp server on 127.0.0.1:{args.port}", flush=True)
stop = threading.Event()
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda *_: stop.set())
stop.wait()
del server
sys.exit(0)
