"""Installs node-rdkafka 3.6.0 (npm ci builds its bundled librdkafka 2.12 from source, niced:
a minute or two) into <build>/node-rdkafka-clients/, before the tests that use it.

Registered in CMake as the setup of the node_rdkafka_clients fixture: ctest starts the tests that
require it only once it is done. When each of them waited for the build itself (under
npm_clients' lock), four of tests/run.sh's slots sat idle for the build's length at the start of
a cold run. Exits 0 without node or npm: the tests then skip themselves.
"""

import os
import shutil
import sys

import npm_clients
import skiff_harness

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: install_node_rdkafka.py <skiff binary>")
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("node or npm is not installed: nothing to install")
        return
    skiff_harness._binary = os.path.abspath(sys.argv[1])
    dest = npm_clients.install(os.path.join(HERE, "node_rdkafka"), "node-rdkafka-clients", (),
                               installed_marker="node_modules/node-rdkafka/build/Release",
                               nice=True, timeout=900)
    print("node-rdkafka installed in " + dest)


if __name__ == "__main__":
    main()
