"""The console's listener (console.listeners): an address the operator set must bind (skiff
stops with exit code 1 naming the setting), while the default address, when taken, only costs
the console: the broker warns and serves Kafka clients as before (docs/console.md)."""

import socket
import unittest

import skiff_harness

DEFAULT = "http://127.0.0.1:8080"


class ConsoleListenerTest(unittest.TestCase):
    def test_a_taken_address_that_was_set_stops_the_broker(self):
        code, out, _port = skiff_harness.run_with_a_taken_port(lambda port: {
            "listeners": "PLAINTEXT://127.0.0.1:0", "metrics.listener": "",
            "schema.registry.listeners": "",
            "console.listeners": "http://127.0.0.1:%d" % port})
        self.assertEqual(code, 1, out)
        self.assertIn("console.listeners", out)

    def test_a_taken_default_address_warns_and_kafka_is_served(self):
        taken = socket.socket()
        try:
            taken.bind(("127.0.0.1", 8080))
        except OSError:
            taken.close()
            self.skipTest("127.0.0.1:8080 is in use by something else here")
        taken.listen()
        try:
            broker = skiff_harness.Broker(overrides={"console.listeners": DEFAULT})
            broker.start()
            try:
                # The console's line follows the Kafka listener's.
                skiff_harness.wait_until(
                    lambda: "running without the web console" in broker.log_text(), 10,
                    what="the warning about the taken default address")
                self.assertNotIn("console on http", broker.log_text())
                self.assertTrue(skiff_harness.api_versions_answered(broker.port))
            finally:
                broker.stop()
        finally:
            taken.close()


if __name__ == "__main__":
    skiff_harness.run_tests()
