// librdkafka's KafkaConsumer (subscribe, consumer groups) against the real skiff binary: one
// consumer gets every partition; two split them; a closing member hands its partitions over; a
// member killed without leaving (a kcat child process, SIGKILL) loses them after its session
// timeout; committed offsets survive a SIGTERM restart and a kill -9 of the broker, and a new
// member of the group resumes exactly after them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <set>
#include <thread>

#include "tests/integration/broker_process.h"
#include "tests/integration/kafka_client.h"

extern char** environ;

namespace skiff::test {
namespace {

using Clock = std::chrono::steady_clock;
using PartitionOffset = std::pair<int32_t, int64_t>;

const std::vector<std::string> kBrokerOverrides = {"group.initial.rebalance.delay.ms=0",
                                                   "num.partitions=4"};

std::unique_ptr<RdKafka::KafkaConsumer> make_consumer(const std::string& bootstrap,
                                                      const std::string& group,
                                                      const std::string& topic) {
    auto conf = make_conf(bootstrap, {{"group.id", group},
                                      {"auto.offset.reset", "earliest"},
                                      {"enable.auto.commit", "false"},
                                      {"session.timeout.ms", "3000"},
                                      {"heartbeat.interval.ms", "300"},
                                      {"topic.metadata.refresh.interval.ms", "1000"}});
    std::string err;
    std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
    if (!c)
        throw std::runtime_error("consumer: " + err);
    if (auto e = c->subscribe({topic}); e != RdKafka::ERR_NO_ERROR)
        throw std::runtime_error("subscribe: " + RdKafka::err2str(e));
    return c;
}

void produce(const std::string& bootstrap, const std::string& topic, int from, int to) {
    TestProducer producer(bootstrap, {{"acks", "all"}});
    for (int i = from; i < to; ++i)
        ASSERT_EQ(producer.send({topic, i % 4, std::nullopt, "m" + std::to_string(i), {}, 0}),
                  RdKafka::ERR_NO_ERROR);
    auto delivered = producer.flush();
    ASSERT_EQ(delivered.size(), static_cast<size_t>(to - from));
    for (const auto& d : delivered)
        ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
}

// Polls until `count` messages arrived or the time is up; returns their (partition, offset).
std::vector<PartitionOffset> consume(RdKafka::KafkaConsumer& c, size_t count,
                                     std::chrono::milliseconds limit) {
    std::vector<PartitionOffset> got;
    const auto deadline = Clock::now() + limit;
    while (got.size() < count && Clock::now() < deadline) {
        std::unique_ptr<RdKafka::Message> m(c.consume(100));
        if (m && m->err() == RdKafka::ERR_NO_ERROR)
            got.emplace_back(m->partition(), m->offset());
    }
    return got;
}

std::set<int32_t> assigned(RdKafka::KafkaConsumer& c) {
    std::vector<RdKafka::TopicPartition*> parts;
    c.assignment(parts);
    std::set<int32_t> out;
    for (auto* p : parts)
        out.insert(p->partition());
    RdKafka::TopicPartition::destroy(parts);
    return out;
}

// Polls every consumer until `done` holds or the time is up.
bool poll_until(const std::vector<RdKafka::KafkaConsumer*>& consumers,
                const std::function<bool()>& done, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
        for (auto* c : consumers)
            std::unique_ptr<RdKafka::Message>(c->consume(50));
        if (done())
            return true;
    }
    return false;
}

std::set<PartitionOffset> all_offsets(int messages) {
    std::set<PartitionOffset> out;
    for (int i = 0; i < messages; ++i)
        out.emplace(i % 4, i / 4);
    return out;
}

TEST(Groups, SubscribedConsumerReadsEveryPartition) {
    BrokerProcess broker(kBrokerOverrides);
    produce(broker.bootstrap(), "g-all", 0, 200);
    auto c = make_consumer(broker.bootstrap(), "g-all-group", "g-all");
    auto got = consume(*c, 200, std::chrono::seconds(30));
    std::set<PartitionOffset> unique(got.begin(), got.end());
    EXPECT_EQ(got.size(), 200u);
    EXPECT_EQ(unique, all_offsets(200));
    EXPECT_EQ(assigned(*c), (std::set<int32_t>{0, 1, 2, 3}));
    c->close();
    EXPECT_NE(broker.log().find("group g-all-group: rebalanced to generation 1"),
              std::string::npos);
}

TEST(Groups, MembersSplitPartitionsAndTakeOverOnCloseAndOnSessionTimeout) {
    BrokerProcess broker(kBrokerOverrides);
    produce(broker.bootstrap(), "g-split", 0, 40);
    auto c1 = make_consumer(broker.bootstrap(), "split", "g-split");
    auto c2 = make_consumer(broker.bootstrap(), "split", "g-split");
    auto split = [&] {
        auto a = assigned(*c1), b = assigned(*c2);
        std::set<int32_t> all(a.begin(), a.end());
        all.insert(b.begin(), b.end());
        return !a.empty() && !b.empty() && all.size() == 4 && a.size() + b.size() == 4;
    };
    ASSERT_TRUE(poll_until({c1.get(), c2.get()}, split, std::chrono::seconds(30))) << broker.log();

    // A clean close leaves the group: the other member takes every partition.
    c2->close();
    c2.reset();
    ASSERT_TRUE(poll_until(
        {c1.get()}, [&] { return assigned(*c1).size() == 4; }, std::chrono::seconds(20)))
        << broker.log();

    // A member that dies without leaving: kcat in its own process, then SIGKILL.
    std::vector<std::string> args = {
        "kcat",   "-b", broker.bootstrap(),        "-G", "split",
        "-q",     "-X", "session.timeout.ms=3000", "-X", "heartbeat.interval.ms=300",
        "g-split"};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t child = -1;
    ASSERT_EQ(posix_spawnp(&child, "kcat", &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    const bool shared = poll_until(
        {c1.get()}, [&] { return assigned(*c1).size() == 2; }, std::chrono::seconds(20));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ASSERT_TRUE(shared) << "kcat never got partitions\n" << broker.log();
    const auto killed_at = Clock::now();
    ASSERT_TRUE(poll_until(
        {c1.get()}, [&] { return assigned(*c1).size() == 4; }, std::chrono::seconds(20)))
        << broker.log();
    const auto took = Clock::now() - killed_at;
    EXPECT_GE(took, std::chrono::milliseconds(2500)) << "reassigned before the session timeout";
    EXPECT_LT(took, std::chrono::seconds(12));
    EXPECT_NE(broker.log().find("expired after its session timeout"), std::string::npos);
    c1->close();
}

// Consumes part of the topic, commits, restarts the broker (cleanly or by a crash), and checks
// that a new member of the group reads exactly the rest: no gap, no duplicate.
void resume_after_restart(bool crash) {
    BrokerProcess broker(kBrokerOverrides);
    const std::string topic = crash ? "g-crash" : "g-restart";
    const std::string group = topic + "-group";
    produce(broker.bootstrap(), topic, 0, 100);
    std::vector<PartitionOffset> first;
    {
        auto c = make_consumer(broker.bootstrap(), group, topic);
        first = consume(*c, 60, std::chrono::seconds(30));
        ASSERT_EQ(first.size(), 60u);
        ASSERT_EQ(c->commitSync(), RdKafka::ERR_NO_ERROR);
        if (crash) {
            broker.kill_hard();  // right after the commit was acknowledged
        } else {
            c->close();
            ASSERT_EQ(broker.stop(), 0) << broker.log();
        }
    }
    broker.start();
    produce(broker.bootstrap(), topic, 100, 140);
    auto c = make_consumer(broker.bootstrap(), group, topic);
    auto rest = consume(*c, 80, std::chrono::seconds(30));
    // Nothing more may arrive: a duplicate would show up here.
    auto extra = consume(*c, 1, std::chrono::seconds(2));
    c->close();
    std::multiset<PartitionOffset> seen(first.begin(), first.end());
    seen.insert(rest.begin(), rest.end());
    seen.insert(extra.begin(), extra.end());
    std::set<PartitionOffset> unique(seen.begin(), seen.end());
    EXPECT_EQ(seen.size(), unique.size()) << "duplicates after resuming";
    EXPECT_EQ(unique, all_offsets(140)) << "gap after resuming";
    EXPECT_EQ(rest.size(), 80u);
    EXPECT_TRUE(extra.empty());
}

TEST(Groups, CommittedOffsetsSurviveACleanRestart) {
    resume_after_restart(false);
}

TEST(Groups, CommittedOffsetsSurviveKillNine) {
    resume_after_restart(true);
}

// As Kafka lists it: every-topic Metadata includes __consumer_offsets (admin tools and Burrow look
// for it), and a client's produce to it is INVALID_TOPIC_EXCEPTION.
TEST(Groups, InternalTopicIsListedAndReadOnly) {
    BrokerProcess broker(kBrokerOverrides);
    produce(broker.bootstrap(), "visible", 0, 4);
    std::string out;
    ASSERT_EQ(run_command("kcat -b " + broker.bootstrap() + " -L", &out), 0);
    EXPECT_NE(out.find("\"visible\""), std::string::npos);
    EXPECT_NE(out.find("\"__consumer_offsets\""), std::string::npos) << out;
    TestProducer producer(broker.bootstrap(), {{"acks", "all"}, {"message.timeout.ms", "5000"}});
    ASSERT_EQ(producer.send({"__consumer_offsets", 0, std::nullopt, "x", {}, 0}),
              RdKafka::ERR_NO_ERROR);
    auto delivered = producer.flush();
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(delivered[0].error, RdKafka::ERR_TOPIC_EXCEPTION);
}

}  // namespace
}  // namespace skiff::test
