// Shared by the handler unit tests: a real Broker over a temporary log directory, and run(), which
// encodes a typed request at the given version, decodes it again (as the router would), calls the
// handler with a RequestContext for that version and runs the coroutine to completion on an
// io_context owned by the test. The response is also encoded at that version, so a response the
// router could not send fails the test. No sockets, no mocks.
//
// start() + drive() run several handlers concurrently (a long-poll fetch woken by a produce, two
// members joining one group); run() is start() then drive().
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/request_context.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/out_buffer.h"
#include "protocol/record_batch.h"
#include "protocol/record_builder.h"
#include "protocol/record_set.h"
#include "storage/log_manager.h"

namespace skiff::protocol {
// Failures name the Kafka error ("UNKNOWN_TOPIC_OR_PARTITION (3)"), not a byte dump.
inline void PrintTo(ErrorCode e, std::ostream* os) {
    *os << error_name(e) << " (" << static_cast<int>(e) << ")";
}
}  // namespace skiff::protocol

namespace skiff::broker::test {

namespace fs = std::filesystem;
using protocol::ErrorCode;

class TempDir {
  public:
    TempDir() {
        std::string t = (fs::temp_directory_path() / "skiff-handlers-XXXXXX").string();
        if (!mkdtemp(t.data()))
            throw std::runtime_error("mkdtemp failed");
        path_ = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

template <class Req, class Resp>
using Handler = asio::awaitable<Resp> (*)(RequestContext&, const Req&);

// What one handler call produced, filled in when its coroutine finishes.
template <class Resp>
struct Pending {
    std::optional<Resp> response;
    bool suppressed = false;  // ctx.suppress_response after the call
    bool closed = false;      // ctx.close_connection after the call
    int32_t throttle_ms = 0;  // ctx.throttle_ms after the call
};

// One record batch (uncompressed, valid CRC) with `count` records "v0", "v1", ...
inline std::vector<std::byte> make_batch(int count, protocol::BatchSpec spec = {},
                                         const std::string& value_prefix = "v") {
    std::vector<protocol::RecordSpec> records;
    for (int i = 0; i < count; ++i) {
        protocol::RecordSpec r;
        r.key = "k" + std::to_string(i);
        r.value = value_prefix + std::to_string(i);
        r.timestamp_delta = i;
        records.push_back(std::move(r));
    }
    return protocol::build_record_batch(spec, records);
}

// The batch headers in a fetched record set: inline bytes first, then each file range read
// with pread (what sendfile would send).
// A Produce request of `records` (which must outlive it) to one partition, acks=all by default.
inline protocol::ProduceRequest produce_request(const std::string& topic, int32_t partition,
                                                const std::vector<std::byte>& records,
                                                int16_t acks = -1) {
    protocol::ProduceRequest req;
    req.acks = acks;
    req.timeout_ms = 1000;
    protocol::TopicProduceData t;
    t.name = topic;
    protocol::PartitionProduceData p;
    p.index = partition;
    p.records = std::span<const std::byte>(records);
    t.partition_data.push_back(p);
    req.topic_data.push_back(std::move(t));
    return req;
}

// A Fetch of one partition from `offset` that answers at once (max_wait_ms 0), up to 1 MiB.
inline protocol::FetchRequest fetch_request(const std::string& topic, int64_t offset) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.max_bytes = 50 << 20;
    protocol::FetchTopic t;
    t.topic = topic;
    protocol::FetchPartition p;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    t.partitions.push_back(p);
    req.topics.push_back(std::move(t));
    return req;
}

inline std::vector<protocol::BatchHeader> batches_in(const protocol::RecordSet& records) {
    std::vector<std::byte> bytes = records.inline_bytes;
    for (const auto& range : records.file_ranges) {
        const size_t at = bytes.size();
        bytes.resize(at + static_cast<size_t>(range.length));
        const auto n = ::pread(range.fd, bytes.data() + at, static_cast<size_t>(range.length),
                               static_cast<off_t>(range.position));
        if (n != range.length)
            throw std::runtime_error("short read of a fetched file range");
    }
    std::vector<protocol::BatchHeader> out;
    std::span<const std::byte> rest(bytes);
    while (rest.size() >= protocol::kBatchHeaderSize) {
        auto h = protocol::read_batch_header(rest);
        if (h.size_bytes() > rest.size())
            break;  // a partial trailing batch (Kafka allows it; skiff sends whole batches)
        out.push_back(h);
        rest = rest.subspan(h.size_bytes());
    }
    return out;
}

class HandlerTest : public ::testing::Test {
  private:
    TempDir dir_;

  protected:
    HandlerTest() {
        config.log_dir = dir_.path().string();
        // Joins complete as soon as every member has joined: no tick() needed.
        config.group_initial_rebalance_delay_ms = 0;
        // No schema registry (and so no _schemas topic) unless a test turns it on.
        config.schema_registry_listeners.clear();
    }

    // Built on first use, so a test may change `config` before.
    Broker& broker() {
        if (!broker_) {
            auto logs = storage::LogManager::open(dir_.path(), log_config_from(config));
            if (!logs)
                throw std::runtime_error("cannot open the log dir: " + logs.error().message);
            broker_ = std::make_unique<Broker>(config, std::move(*logs), "handler-test-cluster");
        }
        return *broker_;
    }

    // Drops the Broker without closing its logs (no clean-shutdown marker, as after a crash of
    // the process) and builds a new one over the same log dir on next use: what was
    // acknowledged must still be there.
    void restart() { broker_.reset(); }

    // Creates a topic directly through the registry (not through the CreateTopics handler).
    void create_topic(const std::string& name, int32_t partitions = 1,
                      const TopicOverrides& overrides = {}) {
        auto created = broker().topics().create(name, partitions, overrides, false);
        ASSERT_EQ(created.error, ErrorCode::none) << created.message;
    }

    // Starts the handler on the test's io_context; the result is there after drive().
    template <class Req, class Resp>
    std::shared_ptr<Pending<Resp>> start(Handler<Req, Resp> handler, const Req& request,
                                         int16_t version) {
        protocol::OutBuffer encoded;
        protocol::encode_message(request, version, encoded);
        std::vector<std::byte> body(encoded.bytes().begin(), encoded.bytes().end());
        auto pending = std::make_shared<Pending<Resp>>();
        asio::co_spawn(
            io, call(broker(), handler, std::move(body), version, listener, session, pending),
            [](std::exception_ptr e) {
                if (e)
                    std::rethrow_exception(e);
            });
        return pending;
    }

    // Runs the io_context until every started handler has finished.
    void drive() {
        io.restart();
        io.run();
    }

    // The handler's response to `request` sent at `version`. `suppressed` tells whether the
    // handler asked for no response (Produce acks=0).
    template <class Req, class Resp>
    Resp run(Handler<Req, Resp> handler, const Req& request, int16_t version) {
        auto pending = start(handler, request, version);
        drive();
        if (!pending->response)
            throw std::runtime_error("the handler did not produce a response");
        suppressed = pending->suppressed;
        closed = pending->closed;
        throttle_ms = pending->throttle_ms;
        return std::move(*pending->response);
    }

    config::BrokerConfig config;
    // The listener the handlers' requests "came through" (RequestContext::listener).
    std::string listener;
    // The connection's client (RequestContext::session); null: none, as in most tests.
    Session* session = nullptr;

  private:
    std::unique_ptr<Broker> broker_;

  protected:
    // Declared after the broker: destroyed first, with any coroutine still parked in it.
    asio::io_context io;
    bool suppressed = false;  // of the last run()
    bool closed = false;      // of the last run(): the connection would be closed
    int32_t throttle_ms = 0;  // of the last run(): how long the connection would be muted

  private:
    template <class Req, class Resp>
    static asio::awaitable<void> call(Broker& broker, Handler<Req, Resp> handler,
                                      std::vector<std::byte> body, int16_t version,
                                      std::string listener, Session* session,
                                      std::shared_ptr<Pending<Resp>> out) {
        auto request = protocol::decode_message<Req>(body, version);
        if (!request) {
            ADD_FAILURE() << "request does not decode at v" << version << ": "
                          << request.error().message;
            co_return;
        }
        protocol::RequestHeader header;
        header.api_key = static_cast<int16_t>(Req::api_key);
        header.api_version = version;
        header.correlation_id = 42;
        header.client_id = "handler-test";
        const std::string peer = "127.0.0.1:40000";
        RequestContext ctx{.broker = broker,
                           .header = header,
                           .peer = peer,
                           .listener = listener,
                           .session = session,
                           .request_bytes = body.size()};
        Resp response = co_await handler(ctx, *request);
        // What the router would send: the response must encode at the request's version.
        protocol::OutBuffer wire;
        protocol::encode_response(response, version, header.correlation_id, wire);
        out->suppressed = ctx.suppress_response;
        out->closed = ctx.close_connection;
        out->throttle_ms = ctx.throttle_ms;
        out->response = std::move(response);
    }
};

// Group handlers: a consumer group member driven through JoinGroup / SyncGroup.
class GroupHandlerTest : public HandlerTest {
  protected:
    static constexpr int16_t kJoinVersion = 7;  // v4+: the MEMBER_ID_REQUIRED round trip
    static constexpr int16_t kSyncVersion = 5;

    struct Member {
        std::string id;
        int32_t generation = -1;
    };

    static std::vector<std::byte> bytes_of(std::string_view s) {
        auto b = std::as_bytes(std::span(s.data(), s.size()));
        return {b.begin(), b.end()};
    }

    static protocol::JoinGroupRequest join_request(const std::string& group,
                                                   const std::string& member_id,
                                                   const std::string& protocol = "range") {
        protocol::JoinGroupRequest req;
        req.group_id = group;
        // Short, so that a join the coordinator never answers fails the test in ~20 s rather
        // than hanging (group_wait.h gives up after 2 x rebalance + session + 10 s).
        req.session_timeout_ms = 6000;
        req.rebalance_timeout_ms = 2000;
        req.member_id = member_id;
        req.protocol_type = "consumer";
        req.protocols.push_back({protocol, bytes_of("meta-" + protocol)});
        return req;
    }

    static protocol::SyncGroupRequest sync_request(
        const std::string& group, const Member& m,
        const std::vector<std::pair<std::string, std::string>>& assignments = {}) {
        protocol::SyncGroupRequest req;
        req.group_id = group;
        req.generation_id = m.generation;
        req.member_id = m.id;
        req.protocol_type = "consumer";
        req.protocol_name = "range";
        for (const auto& [id, a] : assignments)
            req.assignments.push_back({id, bytes_of(a)});
        return req;
    }

    // The member id the broker hands out with MEMBER_ID_REQUIRED (JoinGroup v4+).
    std::string member_id_for(const std::string& group) {
        auto r = run(handle_join_group, join_request(group, ""), kJoinVersion);
        EXPECT_EQ(r.error_code, ErrorCode::member_id_required);
        return r.member_id;
    }

    // A member that joined alone (so it leads) and synced `assignment` to itself: the group is
    // Stable at the returned generation.
    Member stable_member(const std::string& group, const std::string& assignment = "a") {
        Member m;
        m.id = member_id_for(group);
        auto joined = run(handle_join_group, join_request(group, m.id), kJoinVersion);
        EXPECT_EQ(joined.error_code, ErrorCode::none);
        EXPECT_EQ(joined.leader, m.id);
        m.generation = joined.generation_id;
        auto synced =
            run(handle_sync_group, sync_request(group, m, {{m.id, assignment}}), kSyncVersion);
        EXPECT_EQ(synced.error_code, ErrorCode::none);
        return m;
    }
};

}  // namespace skiff::broker::test
