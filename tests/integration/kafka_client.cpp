#include "tests/integration/kafka_client.h"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace skiff::test {

std::unique_ptr<RdKafka::Conf> make_conf(const std::string& bootstrap,
                                         const std::map<std::string, std::string>& conf) {
    std::unique_ptr<RdKafka::Conf> c(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
    std::string err;
    auto set = [&](const std::string& k, const std::string& v) {
        if (c->set(k, v, err) != RdKafka::Conf::CONF_OK)
            throw std::runtime_error(k + ": " + err);
    };
    set("bootstrap.servers", bootstrap);
    set("log_level", "3");
    for (const auto& [k, v] : conf)
        set(k, v);
    return c;
}

TestProducer::TestProducer(const std::string& bootstrap, std::map<std::string, std::string> conf) {
    auto c = make_conf(bootstrap, conf);
    std::string err;
    if (c->set("dr_cb", static_cast<RdKafka::DeliveryReportCb*>(this), err) !=
        RdKafka::Conf::CONF_OK)
        throw std::runtime_error(err);
    producer_.reset(RdKafka::Producer::create(c.get(), err));
    if (!producer_)
        throw std::runtime_error("producer: " + err);
}

TestProducer::~TestProducer() {
    producer_->flush(5000);
}

RdKafka::ErrorCode TestProducer::send(const OutMessage& m) {
    for (;;) {
        RdKafka::Headers* headers = nullptr;
        if (!m.headers.empty()) {
            headers = RdKafka::Headers::create();
            for (const auto& [k, v] : m.headers)
                headers->add(k, v);
        }
        auto err = producer_->produce(m.topic, m.partition, RdKafka::Producer::RK_MSG_COPY,
                                      const_cast<char*>(m.value.data()), m.value.size(),
                                      m.key ? m.key->data() : nullptr, m.key ? m.key->size() : 0,
                                      m.timestamp_ms, headers, nullptr);
        if (err == RdKafka::ERR_NO_ERROR)
            return err;
        delete headers;  // only owned by librdkafka on success
        if (err != RdKafka::ERR__QUEUE_FULL)
            return err;
        producer_->poll(50);
    }
}

std::vector<Delivered> TestProducer::flush(int timeout_ms) {
    producer_->flush(timeout_ms);
    producer_->poll(0);
    return delivered_;
}

void TestProducer::dr_cb(RdKafka::Message& message) {
    delivered_.push_back({message.partition(), message.offset(), message.err()});
}

std::vector<InMessage> read_partition(const std::string& bootstrap, const std::string& topic,
                                      int32_t partition, int64_t start_offset, size_t count,
                                      int timeout_ms, std::map<std::string, std::string> conf) {
    auto c = make_conf(bootstrap, conf);
    std::string err;
    std::unique_ptr<RdKafka::Consumer> consumer(RdKafka::Consumer::create(c.get(), err));
    if (!consumer)
        throw std::runtime_error("consumer: " + err);
    std::unique_ptr<RdKafka::Topic> t(RdKafka::Topic::create(consumer.get(), topic, nullptr, err));
    if (!t)
        throw std::runtime_error("topic: " + err);
    if (consumer->start(t.get(), partition, start_offset) != RdKafka::ERR_NO_ERROR)
        throw std::runtime_error("cannot start consumer");
    std::vector<InMessage> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
        std::unique_ptr<RdKafka::Message> m(consumer->consume(t.get(), partition, 200));
        if (!m || m->err() == RdKafka::ERR__TIMED_OUT || m->err() == RdKafka::ERR__PARTITION_EOF)
            continue;
        if (m->err() != RdKafka::ERR_NO_ERROR)
            throw std::runtime_error("consume: " + m->errstr());
        InMessage in;
        in.partition = m->partition();
        in.offset = m->offset();
        if (m->key())
            in.key = *m->key();
        in.value.assign(static_cast<const char*>(m->payload()), m->len());
        if (auto* h = m->headers())
            for (const auto& header : h->get_all())
                in.headers.emplace_back(
                    header.key(),
                    std::string(static_cast<const char*>(header.value()), header.value_size()));
        in.timestamp_ms = m->timestamp().timestamp;
        out.push_back(std::move(in));
    }
    consumer->stop(t.get(), partition);
    return out;
}

}  // namespace skiff::test
