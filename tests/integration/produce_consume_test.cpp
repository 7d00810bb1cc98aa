// librdkafka producers and consumers against the real skiff binary.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "tests/integration/broker_process.h"
#include "tests/integration/kafka_client.h"

namespace skiff::test {
namespace {

namespace fs = std::filesystem;

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Every message of the workload: key, value, header and timestamp all derived from its index,
// so the consumer side can check each one exactly.
OutMessage workload_message(const std::string& topic, int i, int32_t partition, int64_t base_ts) {
    OutMessage m;
    m.topic = topic;
    m.partition = partition;
    m.key = "key-" + std::to_string(i);
    m.value = "value-" + std::to_string(i) + std::string(static_cast<size_t>(i % 200), 'x');
    m.headers = {{"index", std::to_string(i)}, {"origin", "skiff-it"}};
    m.timestamp_ms = base_ts + i;
    return m;
}

void expect_message(const InMessage& in, const OutMessage& out, int i) {
    ASSERT_TRUE(in.key.has_value()) << "message " << i;
    EXPECT_EQ(*in.key, *out.key);
    EXPECT_EQ(in.value, out.value);
    EXPECT_EQ(in.headers, out.headers);
    EXPECT_EQ(in.timestamp_ms, out.timestamp_ms);
}

TEST(ProduceConsume, TenThousandMessagesOverThreePartitionsWithAcksAll) {
    BrokerProcess broker({"num.partitions=3"});
    const std::string topic = "orders";
    const int kMessages = 10000;
    const int64_t base_ts = now_ms() - 100000;
    std::vector<OutMessage> sent;
    {
        TestProducer producer(broker.bootstrap(), {{"acks", "all"}, {"linger.ms", "5"}});
        for (int i = 0; i < kMessages; ++i) {
            sent.push_back(workload_message(topic, i, i % 3, base_ts));
            ASSERT_EQ(producer.send(sent.back()), RdKafka::ERR_NO_ERROR);
        }
        auto delivered = producer.flush();
        ASSERT_EQ(delivered.size(), static_cast<size_t>(kMessages));
        for (const auto& d : delivered)
            ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d.error);
    }
    // Per partition: every message exactly once, in the order sent, with key/headers/timestamp.
    for (int32_t p = 0; p < 3; ++p) {
        std::vector<const OutMessage*> expected;
        for (const auto& m : sent)
            if (m.partition == p)
                expected.push_back(&m);
        auto got = read_partition(broker.bootstrap(), topic, p, RdKafka::Topic::OFFSET_BEGINNING,
                                  expected.size());
        ASSERT_EQ(got.size(), expected.size()) << "partition " << p;
        for (size_t j = 0; j < got.size(); ++j) {
            EXPECT_EQ(got[j].offset, static_cast<int64_t>(j));
            expect_message(got[j], *expected[j], static_cast<int>(j));
        }
    }

    // Watermarks and offsetsForTimes through the same client library.
    TestProducer admin(broker.bootstrap());
    int64_t low = -1, high = -1;
    ASSERT_EQ(admin.handle().query_watermark_offsets(topic, 0, &low, &high, 10000),
              RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(low, 0);
    EXPECT_EQ(high, (kMessages + 2) / 3);
    // Message i (partition i % 3, offset i / 3) has timestamp base_ts + i.
    std::vector<RdKafka::TopicPartition*> query = {
        RdKafka::TopicPartition::create(topic, 1,
                                        base_ts + 3001),  // exactly message 3001 -> offset 1000
        RdKafka::TopicPartition::create(topic, 2,
                                        base_ts + 3001),  // between: first at/after is 3002 -> 1000
        RdKafka::TopicPartition::create(topic, 0, base_ts + kMessages + 1000),  // after everything
    };
    ASSERT_EQ(admin.handle().offsetsForTimes(query, 10000), RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(query[0]->offset(), 1000);
    EXPECT_EQ(query[1]->offset(), 1000);
    EXPECT_EQ(query[2]->offset(), -1);  // nothing at or after: librdkafka reports OFFSET_END (-1)
    RdKafka::TopicPartition::destroy(query);
}

TEST(ProduceConsume, AcksZeroMessagesArrive) {
    BrokerProcess broker;
    const int kMessages = 500;
    {
        TestProducer producer(broker.bootstrap(), {{"acks", "0"}});
        for (int i = 0; i < kMessages; ++i)
            ASSERT_EQ(producer.send({"fire-and-forget",
                                     0,
                                     "k" + std::to_string(i),
                                     "v" + std::to_string(i),
                                     {},
                                     0}),
                      RdKafka::ERR_NO_ERROR);
        auto delivered = producer.flush();
        ASSERT_EQ(delivered.size(), static_cast<size_t>(kMessages));
    }
    // acks=0 gets no response, so wait until the broker has appended everything.
    auto got = read_partition(broker.bootstrap(), "fire-and-forget", 0,
                              RdKafka::Topic::OFFSET_BEGINNING, kMessages);
    ASSERT_EQ(got.size(), static_cast<size_t>(kMessages));
    for (int i = 0; i < kMessages; ++i)
        EXPECT_EQ(got[static_cast<size_t>(i)].value, "v" + std::to_string(i));
}

TEST(ProduceConsume, DataSurvivesRestartAndCrashAndOffsetsContinue) {
    BrokerProcess broker;
    auto produce = [&](int from, int to) {
        TestProducer producer(broker.bootstrap(), {{"acks", "all"}});
        for (int i = from; i < to; ++i)
            ASSERT_EQ(producer.send({"durable", 0, std::nullopt, "m" + std::to_string(i), {}, 0}),
                      RdKafka::ERR_NO_ERROR);
        auto delivered = producer.flush();
        ASSERT_EQ(delivered.size(), static_cast<size_t>(to - from));
        for (const auto& d : delivered)
            ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
    };
    auto check_all = [&](int count) {
        auto got = read_partition(broker.bootstrap(), "durable", 0,
                                  RdKafka::Topic::OFFSET_BEGINNING, static_cast<size_t>(count));
        ASSERT_EQ(got.size(), static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
            EXPECT_EQ(got[static_cast<size_t>(i)].offset, i);
            EXPECT_EQ(got[static_cast<size_t>(i)].value, "m" + std::to_string(i));
        }
    };
    produce(0, 300);
    ASSERT_EQ(broker.stop(), 0) << broker.log();
    EXPECT_TRUE(fs::exists(broker.data_dir() / ".kafka_cleanshutdown"));
    broker.start();
    check_all(300);
    produce(300, 600);
    // A crash: every acknowledged message must still be there, and offsets continue after it.
    broker.kill_hard();
    broker.start();
    check_all(600);
    produce(600, 700);
    check_all(700);
}

// The recovery point follows rolls while the broker runs (background flush, then the checkpoint
// file), so a crash costs the validation of the active segments only.
TEST(ProduceConsume, CrashAfterRollsValidatesOnlyTheActiveSegments) {
    BrokerProcess broker({"log.segment.bytes=4096", "log.flush.offset.checkpoint.interval.ms=100"});
    const int kMessages = 1000;
    {
        // Small batches, so that the partition rolls many segments.
        TestProducer producer(broker.bootstrap(),
                              {{"acks", "all"}, {"linger.ms", "0"}, {"batch.num.messages", "7"}});
        for (int i = 0; i < kMessages; ++i)
            ASSERT_EQ(producer.send({"crashy",
                                     0,
                                     std::nullopt,
                                     "payload-" + std::to_string(i) + std::string(60, 'p'),
                                     {},
                                     0}),
                      RdKafka::ERR_NO_ERROR);
        ASSERT_EQ(producer.flush().size(), static_cast<size_t>(kMessages));
    }
    size_t segments = 0;
    int64_t active_base = 0;  // the newest segment's base offset: where the point should get to
    for (const auto& e : fs::directory_iterator(broker.data_dir() / "crashy-0")) {
        if (e.path().extension() != ".log")
            continue;
        ++segments;
        active_base = std::max<int64_t>(active_base, std::stoll(e.path().stem().string()));
    }
    ASSERT_GT(segments, 10u);
    // Written while running: the recovery point of crashy-0 moves past the rolled segments, up to
    // the active one, and the checkpoint file follows within about a second.
    const fs::path checkpoint = broker.data_dir() / "recovery-point-offset-checkpoint";
    static const std::regex entry(R"(crashy 0 ([0-9]+))");
    int64_t point = 0;
    for (int i = 0; i < 100 && point < active_base; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::ifstream in(checkpoint);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::smatch m;
        if (std::regex_search(text, m, entry))
            point = std::stoll(m[1]);
    }
    ASSERT_EQ(point, active_base) << broker.log();
    broker.kill_hard();
    broker.start();
    // One active segment per partition (crashy-0, __consumer_offsets-0 and
    // __transaction_state-0) was validated.
    static const std::regex loaded(
        R"(loaded 3 partition\(s\), ([0-9]+) segment\(s\) .* ([0-9]+) segment\(s\) \(([0-9]+) bytes\) validated)");
    std::smatch m;
    const std::string log = broker.log();
    std::string last_start = log.substr(log.rfind("loaded "));
    ASSERT_TRUE(std::regex_search(last_start, m, loaded)) << log;
    EXPECT_GE(std::stoul(m[1]), segments);
    EXPECT_LE(std::stoul(m[2]), 3u) << log;
    auto got = read_partition(broker.bootstrap(), "crashy", 0, RdKafka::Topic::OFFSET_BEGINNING,
                              static_cast<size_t>(kMessages));
    ASSERT_EQ(got.size(), static_cast<size_t>(kMessages));
    for (int i = 0; i < kMessages; ++i)
        EXPECT_EQ(got[static_cast<size_t>(i)].offset, i);
}

TEST(ProduceConsume, SmallSegmentsRollAndConsumptionStartsAnywhere) {
    BrokerProcess broker({"log.segment.bytes=4096", "log.index.interval.bytes=512"});
    const int kMessages = 2000;
    {
        // One message per batch, so the partition has many batches and many segments.
        TestProducer producer(broker.bootstrap(),
                              {{"acks", "all"}, {"linger.ms", "0"}, {"batch.num.messages", "7"}});
        for (int i = 0; i < kMessages; ++i)
            ASSERT_EQ(producer.send({"rolled",
                                     0,
                                     std::nullopt,
                                     "payload-" + std::to_string(i) + std::string(40, 'p'),
                                     {},
                                     0}),
                      RdKafka::ERR_NO_ERROR);
        auto delivered = producer.flush();
        ASSERT_EQ(delivered.size(), static_cast<size_t>(kMessages));
    }
    const fs::path dir = broker.data_dir() / "rolled-0";
    std::vector<std::string> logs;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".log")
            logs.push_back(e.path().filename().string());
    EXPECT_GT(logs.size(), 10u);
    static const std::regex name(R"([0-9]{20}\.log)");
    for (const auto& l : logs)
        EXPECT_TRUE(std::regex_match(l, name)) << l;

    for (int64_t start : {0, 1, 137, 555, 1000, 1500, 1999}) {
        auto got = read_partition(broker.bootstrap(), "rolled", 0, start,
                                  std::min<size_t>(3, static_cast<size_t>(kMessages - start)));
        ASSERT_FALSE(got.empty()) << "start " << start;
        EXPECT_EQ(got.front().offset, start);
        EXPECT_EQ(got.front().value, "payload-" + std::to_string(start) + std::string(40, 'p'));
        for (size_t j = 1; j < got.size(); ++j)
            EXPECT_EQ(got[j].offset, got[j - 1].offset + 1);
    }
    ASSERT_EQ(broker.stop(), 0);
    std::string out;
    EXPECT_EQ(run_command(
                  std::string(SKIFF_BINARY) + " dump-log --verify " + dir.string() + " 2>&1", &out),
              0)
        << out;
}

TEST(ProduceConsume, EveryCompressionCodecRoundTrips) {
    BrokerProcess broker;
    for (std::string codec : {"gzip", "snappy", "lz4", "zstd"}) {
        const std::string topic = "compressed-" + codec;
        const int kMessages = 300;
        {
            TestProducer producer(broker.bootstrap(),
                                  {{"compression.type", codec}, {"linger.ms", "20"}});
            for (int i = 0; i < kMessages; ++i)
                ASSERT_EQ(producer.send({topic,
                                         0,
                                         "k",
                                         codec + "-" + std::to_string(i) + std::string(100, 'z'),
                                         {},
                                         0}),
                          RdKafka::ERR_NO_ERROR);
            auto delivered = producer.flush();
            ASSERT_EQ(delivered.size(), static_cast<size_t>(kMessages));
            for (const auto& d : delivered)
                ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR) << codec;
        }
        auto got = read_partition(broker.bootstrap(), topic, 0, RdKafka::Topic::OFFSET_BEGINNING,
                                  kMessages);
        ASSERT_EQ(got.size(), static_cast<size_t>(kMessages)) << codec;
        for (int i = 0; i < kMessages; ++i)
            EXPECT_EQ(got[static_cast<size_t>(i)].value,
                      codec + "-" + std::to_string(i) + std::string(100, 'z'));
    }
}

TEST(ProduceConsume, MessageOverMessageMaxBytesIsRefused) {
    BrokerProcess broker({"message.max.bytes=10000"});
    TestProducer producer(broker.bootstrap(), {{"acks", "all"}});
    // Flushed one at a time: the broker refuses a whole batch, so the two must not share one.
    ASSERT_EQ(producer.send({"limits", 0, std::nullopt, std::string(20000, 'L'), {}, 0}),
              RdKafka::ERR_NO_ERROR);
    producer.flush();
    ASSERT_EQ(producer.send({"limits", 0, std::nullopt, "small", {}, 0}), RdKafka::ERR_NO_ERROR);
    auto delivered = producer.flush();
    ASSERT_EQ(delivered.size(), 2u);
    EXPECT_EQ(delivered[0].error, RdKafka::ERR_MSG_SIZE_TOO_LARGE);
    EXPECT_EQ(delivered[1].error, RdKafka::ERR_NO_ERROR);
    // Nothing of the refused batch was stored.
    auto got = read_partition(broker.bootstrap(), "limits", 0, RdKafka::Topic::OFFSET_BEGINNING, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].value, "small");
    EXPECT_EQ(got[0].offset, 0);
}

// librdkafka's statistics count the requests it sent; parse the Fetch count out of the JSON.
class FetchCounter : public RdKafka::EventCb {
  public:
    void event_cb(RdKafka::Event& e) override {
        if (e.type() != RdKafka::Event::EVENT_STATS)
            return;
        static const std::regex fetch(R"xx("Fetch":\s*([0-9]+))xx");
        std::string s = e.str();
        int64_t total = 0;
        for (std::sregex_iterator it(s.begin(), s.end(), fetch), end; it != end; ++it)
            total += std::stoll((*it)[1]);
        fetches.store(total);
    }
    std::atomic<int64_t> fetches{-1};
};

TEST(ProduceConsume, IdleConsumerIsHeldByLongPolling) {
    BrokerProcess broker;
    {
        TestProducer producer(broker.bootstrap());
        ASSERT_EQ(producer.send({"quiet", 0, std::nullopt, "only", {}, 0}), RdKafka::ERR_NO_ERROR);
        ASSERT_EQ(producer.flush().size(), 1u);
    }
    FetchCounter counter;
    auto conf = make_conf(broker.bootstrap(),
                          {{"fetch.wait.max.ms", "500"}, {"statistics.interval.ms", "1000"}});
    std::string err;
    ASSERT_EQ(conf->set("event_cb", static_cast<RdKafka::EventCb*>(&counter), err),
              RdKafka::Conf::CONF_OK);
    std::unique_ptr<RdKafka::Consumer> consumer(RdKafka::Consumer::create(conf.get(), err));
    std::unique_ptr<RdKafka::Topic> topic(
        RdKafka::Topic::create(consumer.get(), "quiet", nullptr, err));
    ASSERT_EQ(consumer->start(topic.get(), 0, RdKafka::Topic::OFFSET_END), RdKafka::ERR_NO_ERROR);
    // Let the consumer settle at the end of the log, then count fetches over ~3 seconds.
    auto poll_for = [&](std::chrono::milliseconds d) {
        auto until = std::chrono::steady_clock::now() + d;
        while (std::chrono::steady_clock::now() < until) {
            std::unique_ptr<RdKafka::Message> m(consumer->consume(topic.get(), 0, 100));
            consumer->poll(0);
        }
    };
    poll_for(std::chrono::milliseconds(1500));
    int64_t before = counter.fetches.load();
    poll_for(std::chrono::milliseconds(3000));
    int64_t after = counter.fetches.load();
    consumer->stop(topic.get(), 0);
    ASSERT_GE(before, 0) << "no statistics received";
    // With max wait 500 ms an idle consumer sends about two fetches a second; without long
    // polling it would send hundreds.
    EXPECT_LE(after - before, 15);
    EXPECT_GE(after - before, 2);
}

}  // namespace
}  // namespace skiff::test
