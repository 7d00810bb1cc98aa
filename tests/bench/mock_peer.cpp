// The benchmark's peer broker: librdkafka's in-memory mock cluster with one broker.
//
//   mock_peer TOPIC[:PARTITIONS]...
//
// Creates each TOPIC with PARTITIONS partitions (default 1), prints the bootstrap address
// ("host:port") on one line of stdout, then serves until SIGTERM or SIGINT. The mock keeps records
// in memory only and drops the oldest message sets of a partition once it holds more than about 5
// MiB, so consume runs against it must stay within that.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) {
    g_stop = 1;
}

}  // namespace

int main(int argc, char** argv) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    // The handle only hosts the mock cluster's thread; it never connects anywhere.
    if (rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err) != RD_KAFKA_CONF_OK) {
        std::fprintf(stderr, "mock_peer: %s\n", err);
        return 1;
    }
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        std::fprintf(stderr, "mock_peer: rd_kafka_new: %s\n", err);
        return 1;
    }
    rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(rk, 1);
    if (!cluster) {
        std::fprintf(stderr, "mock_peer: could not create the mock cluster\n");
        return 1;
    }
    for (int i = 1; i < argc; ++i) {
        std::string topic = argv[i];
        int partitions = 1;
        if (auto colon = topic.rfind(':'); colon != std::string::npos) {
            partitions = std::atoi(topic.c_str() + colon + 1);
            topic.resize(colon);
            if (partitions < 1) {
                std::fprintf(stderr, "mock_peer: bad partition count in %s\n", argv[i]);
                return 1;
            }
        }
        rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(cluster, topic.c_str(), partitions, 1);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            std::fprintf(stderr, "mock_peer: create topic %s: %s\n", argv[i], rd_kafka_err2str(e));
            return 1;
        }
    }
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    std::printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
    std::fflush(stdout);
    while (!g_stop)
        ::usleep(100 * 1000);
    rd_kafka_mock_cluster_destroy(cluster);
    rd_kafka_destroy(rk);
    return 0;
}
