// Thin test helpers over librdkafka's C++ API: a producer that collects delivery reports, and a
// partition reader (no consumer group: explicit partition and start offset).
#pragma once

#include <librdkafka/rdkafkacpp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skiff::test {

struct Delivered {
    int32_t partition = -1;
    int64_t offset = -1;
    RdKafka::ErrorCode error = RdKafka::ERR_NO_ERROR;
};

struct OutMessage {
    std::string topic;
    int32_t partition = RdKafka::Topic::PARTITION_UA;
    std::optional<std::string> key;
    std::string value;
    std::vector<std::pair<std::string, std::string>> headers;
    int64_t timestamp_ms = 0;  // 0: let the client stamp it
};

class TestProducer : public RdKafka::DeliveryReportCb {
  public:
    TestProducer(const std::string& bootstrap, std::map<std::string, std::string> conf = {});
    ~TestProducer() override;
    // Queues one message; returns librdkafka's immediate error (queue full is retried).
    RdKafka::ErrorCode send(const OutMessage& m);
    // Flushes and returns every delivery report received so far, in delivery order.
    std::vector<Delivered> flush(int timeout_ms = 30000);
    void dr_cb(RdKafka::Message& message) override;
    RdKafka::Producer& handle() { return *producer_; }

  private:
    std::unique_ptr<RdKafka::Producer> producer_;
    std::vector<Delivered> delivered_;
};

struct InMessage {
    int32_t partition = -1;
    int64_t offset = -1;
    std::optional<std::string> key;
    std::string value;
    std::vector<std::pair<std::string, std::string>> headers;
    int64_t timestamp_ms = -1;
};

// Reads one partition from `start_offset` until `count` messages arrived or `timeout_ms` passed.
std::vector<InMessage> read_partition(const std::string& bootstrap, const std::string& topic,
                                      int32_t partition, int64_t start_offset, size_t count,
                                      int timeout_ms = 30000,
                                      std::map<std::string, std::string> conf = {});

std::unique_ptr<RdKafka::Conf> make_conf(const std::string& bootstrap,
                                         const std::map<std::string, std::string>& conf);

}  // namespace skiff::test
