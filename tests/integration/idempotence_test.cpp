// The idempotent producer against the real binary: librdkafka with enable.idempotence=true
// (100,000 messages, and a broker restart while messages are in flight), and raw Produce
// requests that replay a batch, skip a sequence or use a stale epoch, before and after a
// graceful restart and a crash.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "protocol/protocol.h"
#include "protocol/record_builder.h"
#include "tests/integration/broker_process.h"
#include "tests/integration/kafka_client.h"

namespace skiff::test {
namespace {

namespace fs = std::filesystem;
using protocol::ErrorCode;

// A port that was free a moment ago, so a restarted broker can listen where clients expect it.
int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

// Every message of every partition, read back with explicit assignment.
std::vector<InMessage> read_all(const std::string& bootstrap, const std::string& topic,
                                int partitions, size_t expected) {
    std::vector<InMessage> all;
    for (int p = 0; p < partitions; ++p) {
        auto got = read_partition(bootstrap, topic, p, 0, expected, 5000);
        // Offsets of a partition are contiguous: nothing lost in the middle.
        for (size_t i = 0; i < got.size(); ++i)
            EXPECT_EQ(got[i].offset, static_cast<int64_t>(i)) << "partition " << p;
        all.insert(all.end(), got.begin(), got.end());
    }
    return all;
}

void expect_each_value_once(const std::vector<InMessage>& all, int count) {
    std::set<std::string> seen;
    for (const auto& m : all)
        EXPECT_TRUE(seen.insert(m.value).second) << "duplicate " << m.value;
    EXPECT_EQ(seen.size(), static_cast<size_t>(count));
    for (int i = 0; i < count; ++i)
        if (!seen.count("m" + std::to_string(i))) {
            ADD_FAILURE() << "lost m" << i;
            break;
        }
}

TEST(Idempotence, HundredThousandMessagesAcrossPartitionsNoLossNoDuplicates) {
    BrokerProcess broker({"num.partitions=4"});  // started by its constructor
    constexpr int kCount = 100000;
    {
        TestProducer producer(
            broker.bootstrap(),
            {{"enable.idempotence", "true"}, {"linger.ms", "5"}, {"batch.num.messages", "500"}});
        for (int i = 0; i < kCount; ++i) {
            OutMessage m;
            m.topic = "idem";
            m.key = "k" + std::to_string(i % 97);
            m.value = "m" + std::to_string(i);
            ASSERT_EQ(producer.send(m), RdKafka::ERR_NO_ERROR);
        }
        auto delivered = producer.flush(120000);
        ASSERT_EQ(delivered.size(), static_cast<size_t>(kCount));
        for (const auto& d : delivered)
            ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
    }
    expect_each_value_once(read_all(broker.bootstrap(), "idem", 4, kCount), kCount);
    EXPECT_EQ(broker.log().find("OUT_OF_ORDER"), std::string::npos);
}

TEST(Idempotence, RestartWhileProducingKeepsSequencesAndStoresEachMessageOnce) {
    // The producer must find the restarted broker at the same address, so the port is fixed; a
    // port taken between the probe and the bind is retried with another one.
    std::unique_ptr<BrokerProcess> owned;
    int port = 0;
    for (int attempt = 0; attempt < 5 && !owned; ++attempt) {
        port = free_port();
        try {  // the constructor starts the broker
            owned = std::make_unique<BrokerProcess>(std::vector<std::string>{
                "num.partitions=3", "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port)});
        } catch (const std::exception&) {
        }
    }
    ASSERT_TRUE(owned) << "no free port for the broker";
    BrokerProcess& broker = *owned;
    ASSERT_EQ(broker.port(), port);
    constexpr int kCount = 30000;
    TestProducer producer(broker.bootstrap(), {{"enable.idempotence", "true"},
                                               {"linger.ms", "2"},
                                               {"message.timeout.ms", "60000"},
                                               {"reconnect.backoff.max.ms", "200"}});
    auto send_range = [&](int from, int to) {
        for (int i = from; i < to; ++i) {
            OutMessage m;
            m.topic = "restart";
            m.key = "k" + std::to_string(i % 31);
            m.value = "m" + std::to_string(i);
            ASSERT_EQ(producer.send(m), RdKafka::ERR_NO_ERROR);
            if (i % 1000 == 0)
                producer.handle().poll(0);
        }
    };
    send_range(0, kCount / 2);
    // Stop while the second half is still being sent: requests in flight at the stop are
    // retried by the producer against the restarted broker.
    ASSERT_EQ(broker.stop(), 0);
    std::string restart_error;
    std::thread restart([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        try {
            broker.start();
        } catch (const std::exception& e) {
            restart_error = e.what();
        }
    });
    send_range(kCount / 2, kCount);
    restart.join();
    ASSERT_EQ(restart_error, "");
    ASSERT_EQ(broker.port(), port);
    auto delivered = producer.flush(90000);
    ASSERT_EQ(delivered.size(), static_cast<size_t>(kCount));
    for (const auto& d : delivered)
        ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
    expect_each_value_once(read_all(broker.bootstrap(), "restart", 3, kCount), kCount);
    EXPECT_EQ(broker.log().find("OUT_OF_ORDER"), std::string::npos) << broker.log();
}

// ---- raw requests ---------------------------------------------------------------------------

class RawClient {
  public:
    explicit RawClient(int port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        timeval tv{10, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
            throw std::runtime_error("connect failed");
    }
    ~RawClient() { ::close(fd_); }

    template <class Req, class Resp>
    Resp call(const Req& req, int16_t version) {
        auto frame = protocol::encode_request(req, version, ++correlation_id_, "raw-test");
        if (::write(fd_, frame.data(), frame.size()) != static_cast<ssize_t>(frame.size()))
            throw std::runtime_error("write failed");
        auto size_bytes = read_exact(4);
        int32_t size = 0;
        for (auto b : size_bytes)
            size = (size << 8) | static_cast<uint8_t>(b);
        auto body = read_exact(static_cast<size_t>(size));
        const size_t header =
            4 + (protocol::response_header_version(Resp::api_key, version) >= 1 ? 1 : 0);
        auto decoded = protocol::decode_message<Resp>(std::span(body).subspan(header), version);
        if (!decoded)
            throw std::runtime_error("bad response: " + decoded.error().message);
        return *decoded;
    }

  private:
    std::vector<std::byte> read_exact(size_t n) {
        std::vector<std::byte> out(n);
        size_t got = 0;
        while (got < n) {
            ssize_t r = ::read(fd_, out.data() + got, n - got);
            if (r <= 0)
                throw std::runtime_error("read failed");
            got += static_cast<size_t>(r);
        }
        return out;
    }
    int fd_ = -1;
    int32_t correlation_id_ = 0;
};

struct ProduceOutcome {
    ErrorCode error;
    int64_t base_offset;
};

ProduceOutcome produce(RawClient& client, const std::string& topic, int64_t pid, int16_t epoch,
                       int32_t sequence, int records = 3) {
    protocol::BatchSpec spec;
    spec.base_timestamp = 1700000000000;
    spec.producer_id = pid;
    spec.producer_epoch = epoch;
    spec.base_sequence = sequence;
    std::vector<protocol::RecordSpec> recs;
    for (int i = 0; i < records; ++i)
        recs.push_back({std::nullopt, "seq" + std::to_string(sequence + i), {}, i});
    auto batch = protocol::build_record_batch(spec, recs);
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 5000;
    protocol::TopicProduceData t;
    t.name = topic;
    protocol::PartitionProduceData p;
    p.index = 0;
    p.records = std::span<const std::byte>(batch);
    t.partition_data.push_back(p);
    req.topic_data.push_back(t);
    auto resp = client.call<protocol::ProduceRequest, protocol::ProduceResponse>(req, 7);
    const auto& r = resp.responses.at(0).partition_responses.at(0);
    return {r.error_code, r.base_offset};
}

int64_t init_producer_id(RawClient& client) {
    protocol::InitProducerIdRequest req;
    req.transaction_timeout_ms = 60000;
    auto resp =
        client.call<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(req, 1);
    EXPECT_EQ(resp.error_code, ErrorCode::none);
    EXPECT_EQ(resp.producer_epoch, 0);
    return resp.producer_id;
}

int64_t log_end(const BrokerProcess& broker, const std::string& topic) {
    auto got = read_partition(broker.bootstrap(), topic, 0, 0, 1000, 2000);
    return static_cast<int64_t>(got.size());
}

void create_topic(RawClient& client, const std::string& topic) {
    protocol::CreateTopicsRequest req;
    protocol::CreatableTopic t;
    t.name = topic;
    t.num_partitions = 1;
    t.replication_factor = 1;
    req.topics.push_back(t);
    auto resp = client.call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(req, 4);
    ASSERT_EQ(resp.topics.at(0).error_code, ErrorCode::none);
}

TEST(Idempotence, RetriedBatchIsStoredOnceAndGapsAndStaleEpochsAreRefused) {
    BrokerProcess broker;  // started by its constructor
    RawClient client(broker.port());
    create_topic(client, "raw");
    const int64_t pid = init_producer_id(client);
    const int64_t other = init_producer_id(client);
    EXPECT_NE(pid, other);

    auto first = produce(client, "raw", pid, 0, 0);
    ASSERT_EQ(first.error, ErrorCode::none);
    EXPECT_EQ(first.base_offset, 0);
    ASSERT_EQ(produce(client, "raw", -1, -1, -1, 2).error, ErrorCode::none);  // offsets 3-4
    auto again = produce(client, "raw", pid, 0, 0);
    EXPECT_EQ(again.error, ErrorCode::none);
    EXPECT_EQ(again.base_offset, 0) << "the retry is acknowledged with its original offset";
    EXPECT_EQ(log_end(broker, "raw"), 5) << "and not stored again";

    EXPECT_EQ(produce(client, "raw", pid, 0, 7).error, ErrorCode::out_of_order_sequence_number);
    auto next = produce(client, "raw", pid, 0, 3);
    EXPECT_EQ(next.error, ErrorCode::none);
    EXPECT_EQ(next.base_offset, 5);
    EXPECT_EQ(produce(client, "raw", pid, 1, 0).error, ErrorCode::none);  // epoch bump
    EXPECT_EQ(produce(client, "raw", pid, 0, 6).error, ErrorCode::invalid_producer_epoch);

    // A transactional id goes to the transaction coordinator: a producer id of its own, epoch 0.
    protocol::InitProducerIdRequest txn;
    txn.transactional_id = "txn-1";
    txn.transaction_timeout_ms = 60000;
    auto transactional =
        client.call<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(txn, 1);
    EXPECT_EQ(transactional.error_code, ErrorCode::none);
    EXPECT_GE(transactional.producer_id, 0);
    EXPECT_NE(transactional.producer_id, pid);
    EXPECT_EQ(transactional.producer_epoch, 0);
}

// Two producers that both claim producer id 0, epoch 0 in InitProducerId v4 (as a client does
// that starts with a zeroed id) each get their own fresh id with epoch 0. When the claimed id was
// honoured, the second producer's batches matched the first one's sequences and were
// acknowledged as duplicates without being stored.
TEST(Idempotence, ClaimedProducerIdIsNeverHandedToAnotherProducer) {
    BrokerProcess broker;  // started by its constructor
    RawClient first(broker.port());
    RawClient second(broker.port());
    create_topic(first, "claimed");
    auto init_claiming_zero = [](RawClient& client) {
        protocol::InitProducerIdRequest req;
        req.transaction_timeout_ms = 60000;
        req.producer_id = 0;
        req.producer_epoch = 0;
        return client.call<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(req,
                                                                                              4);
    };
    auto a = init_claiming_zero(first);
    auto b = init_claiming_zero(second);
    ASSERT_EQ(a.error_code, ErrorCode::none);
    ASSERT_EQ(b.error_code, ErrorCode::none);
    EXPECT_NE(a.producer_id, b.producer_id);
    EXPECT_EQ(a.producer_epoch, 0);
    EXPECT_EQ(b.producer_epoch, 0);

    // Both send the same sequences: every batch is new data and is stored.
    for (int32_t seq = 0; seq < 9; seq += 3) {
        auto x = produce(first, "claimed", a.producer_id, 0, seq);
        auto y = produce(second, "claimed", b.producer_id, 0, seq);
        ASSERT_EQ(x.error, ErrorCode::none);
        ASSERT_EQ(y.error, ErrorCode::none);
        EXPECT_NE(x.base_offset, y.base_offset);
    }
    EXPECT_EQ(log_end(broker, "claimed"), 18) << "every acknowledged record is stored";

    // An id the broker never issued is refused and nothing of the batch is stored.
    const int64_t invented = std::max(a.producer_id, b.producer_id) + 1000000;
    EXPECT_EQ(produce(first, "claimed", invented, 0, 0).error, ErrorCode::unknown_producer_id);
    EXPECT_EQ(log_end(broker, "claimed"), 18);
}

// The sequence state survives a graceful restart (snapshot) and a crash (rebuilt from the log),
// and producer ids are never handed out twice.
TEST(Idempotence, SequenceStateAndProducerIdsSurviveRestartAndCrash) {
    BrokerProcess broker;  // started by its constructor
    int64_t pid = 0;
    {
        RawClient client(broker.port());
        create_topic(client, "durable");
        pid = init_producer_id(client);
        ASSERT_EQ(produce(client, "durable", pid, 0, 0).error, ErrorCode::none);
        ASSERT_EQ(produce(client, "durable", pid, 0, 3).error, ErrorCode::none);  // offsets 3-5
    }
    ASSERT_EQ(broker.stop(), 0);
    bool snapshot = false;
    for (const auto& e : fs::directory_iterator(broker.data_dir() / "durable-0"))
        snapshot |= e.path().extension() == ".snapshot";
    EXPECT_TRUE(snapshot) << "clean shutdown writes a producer snapshot";
    broker.start();
    {
        RawClient client(broker.port());
        auto retry = produce(client, "durable", pid, 0, 3);
        EXPECT_EQ(retry.error, ErrorCode::none);
        EXPECT_EQ(retry.base_offset, 3);
        EXPECT_EQ(produce(client, "durable", pid, 0, 9).error,
                  ErrorCode::out_of_order_sequence_number);
        ASSERT_EQ(produce(client, "durable", pid, 0, 6).error, ErrorCode::none);  // offsets 6-8
        EXPECT_GT(init_producer_id(client), pid);
    }
    broker.kill_hard();
    broker.start();
    {
        RawClient client(broker.port());
        auto retry = produce(client, "durable", pid, 0, 6);
        EXPECT_EQ(retry.error, ErrorCode::none);
        EXPECT_EQ(retry.base_offset, 6) << "rebuilt from the log after a crash";
        EXPECT_EQ(produce(client, "durable", pid, 0, 10).error,
                  ErrorCode::out_of_order_sequence_number);
        EXPECT_GT(init_producer_id(client), pid + 1);
    }
    EXPECT_EQ(log_end(broker, "durable"), 9);
}

}  // namespace
}  // namespace skiff::test
