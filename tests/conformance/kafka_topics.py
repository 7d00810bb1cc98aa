"""A stand-in for Kafka's bin/kafka-topics.sh, for librdkafka's test suite (tests/conformance).

A few suite tests create their topics by running $KAFKA_PATH/bin/kafka-topics.sh (Kafka's Java
tool) instead of the Admin API. This does the same through the Kafka protocol with
confluent-kafka's AdminClient (CreateTopics), so those tests can run against skiff:

    kafka-topics.sh (--bootstrap-server | --zookeeper) HOST:PORT --create --topic T
                    [--partitions N] [--replication-factor R] [--config KEY=VALUE]...

With TEST_KAFKA_VERSION below 3.0 the suite passes the address as --zookeeper (ZK_ADDRESS);
run.sh sets that to skiff's own address. Only --create is served: any other action exits 2
saying so, and the test fails visibly rather than passing on something not done.
"""

import argparse
import sys

from confluent_kafka.admin import AdminClient, NewTopic


def main():
    ap = argparse.ArgumentParser(prog="kafka-topics.sh")
    ap.add_argument("--bootstrap-server")
    ap.add_argument("--zookeeper")
    ap.add_argument("--create", action="store_true")
    ap.add_argument("--topic", required=True)
    ap.add_argument("--partitions", type=int, default=1)
    ap.add_argument("--replication-factor", type=int, default=1)
    ap.add_argument("--config", action="append", default=[])
    args, unknown = ap.parse_known_args()
    if unknown or not args.create:
        sys.stderr.write("kafka-topics.sh stand-in: only --create is supported (got %s)\n"
                         % " ".join(sys.argv[1:]))
        return 2
    address = args.bootstrap_server or args.zookeeper
    if not address:
        sys.stderr.write("kafka-topics.sh stand-in: --bootstrap-server (or --zookeeper) needed\n")
        return 2
    config = dict(c.split("=", 1) for c in args.config)
    admin = AdminClient({"bootstrap.servers": address})
    futures = admin.create_topics([NewTopic(args.topic, num_partitions=args.partitions,
                                            replication_factor=args.replication_factor,
                                            config=config)], operation_timeout=30)
    try:
        futures[args.topic].result(timeout=60)
    except Exception as e:  # the tool prints the broker's error and exits non-zero
        sys.stderr.write("Error while executing topic command: %s\n" % e)
        return 1
    print('Created topic %s.' % args.topic)
    return 0


if __name__ == "__main__":
    sys.exit(main())
