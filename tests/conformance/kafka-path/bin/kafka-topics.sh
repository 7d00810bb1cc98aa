#!/usr/bin/env bash
# $KAFKA_PATH/bin/kafka-topics.sh for librdkafka's test suite: see ../../kafka_topics.py.
exec /usr/bin/python3 "$(dirname "$0")/../../kafka_topics.py" "$@"
