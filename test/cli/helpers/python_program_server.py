"""Serves one Python Pulumi program to the real CLI as an inline program.

The Python language host is not built here (its Go module is not served), so the Pulumi SDK's own
language server, the one its automation API starts in-process, runs the program; `pulumi up
--client <address>` reaches it. Everything past the program (engine, plugins, backend) is the
CLI's own. Prints the address as the first line of stdout and serves until stdin closes.

Usage: python python_program_server.py <program folder>
"""

import runpy
import sys
from concurrent import futures
from pathlib import Path

import grpc
from pulumi.automation._server import LanguageServer
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import language_pb2_grpc

program_dir = Path(sys.argv[1]).resolve()


def program():
    """The program's __main__.py, run anew on each of the engine's Runs, as the language host does."""
    runpy.run_path(str(program_dir / "__main__.py"), run_name="__main__")


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=_GRPC_CHANNEL_OPTIONS)
language_pb2_grpc.add_LanguageRuntimeServicer_to_server(LanguageServer(program), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(f"127.0.0.1:{port}", flush=True)
# The parent closes stdin when it is done (or dies): the server ends with it.
sys.stdin.read()
server.stop(0)
