// The benchmark's client workloads, one librdkafka client per run (C API).
//
//   bench_client produce --bootstrap H:P --topic T --size BYTES --acks 1|all
//                        --max-bytes N --seconds S [--partitions P] [--broker-pid PID]
//                        [--compression none|gzip|snappy|lz4|zstd] [--values repeated|text]
//                        [--schema-id ID]
//   bench_client consume --bootstrap H:P --topic T --pass-bytes N --max-bytes N --seconds S
//                        [--broker-pid PID]
//   bench_client latency --bootstrap H:P --topic T --size BYTES --count N --seconds S
//   bench_client fill --bootstrap H:P --topic T --partitions P --bytes N --size BYTES
//                     [--batch-size BYTES]
//   bench_client consume-many --bootstrap H:P --topic T --partitions P --bytes N [--seconds S]
//                             [--broker-pid PID]
//   bench_client clients --bootstrap H:P --topic T --partitions P --producers N
//                        [--consumers M --consumer-mode group|assign] --seconds S [--size 100]
//                        [--acks 1] [--max-outstanding 100] [--rate MSGS_PER_S] [--broker-pid PID]
//   bench_client txn-produce --bootstrap H:P --topic T --size BYTES --seconds S
//                            --transactional true|false [--commit-ms 100] [--commit-msgs 1000]
//                            [--broker-pid PID]
//   bench_client connect --bootstrap H:P --seconds S [--broker-pid PID]
//   Every workload also takes [--debug CONTEXTS]: librdkafka's debug log (e.g. eos,protocol) on
//   stderr, to see where a workload's time goes; and [--conf-file PATH], librdkafka settings
//   (key=value lines) such as security.protocol and ssl.ca.location.
//
// Each prints one machine-readable line "result key=value ..." on stdout. produce sends
// round-robin over partitions 0..P-1 with --partitions P (default 1: partition 0 only, after one
// untimed warm-up message to each partition); consume and latency use partition 0 only.
// consume-many reads every partition of a filled topic from the beginning. clients runs N
// producer and M consumer threads, one librdkafka handle each, in this one process. Throughput
// counts value bytes only (MB = 10^6 bytes). broker_cpu_s is the broker process's utime+stime
// (all threads, from /proc/PID/stat) spent between the start and the end of the timed part;
// connection set-up and topic creation happen before it.
//
// consume reads in passes: start partition 0 at offset 0 (legacy consumer, no group), read to
// the end of the partition, stop, repeat. The peer keeps only about 5 MiB per partition, so the
// topic consumed must hold less than that (run.sh produces 4 MiB into it first); then both
// brokers serve exactly the same bytes, and reading to the end means nothing is prefetched in
// vain. fetch.wait.max.ms is 1 so that the fetch parked at the end of the log (long poll)
// returns at once and the next pass starts without waiting for it.
#include <librdkafka/rdkafka.h>

#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "bench_client: %s\n", message.c_str());
    std::exit(1);
}

struct Args {
    std::map<std::string, std::string> values;
    std::string get(const std::string& key, const char* fallback = nullptr) const {
        auto it = values.find(key);
        if (it != values.end())
            return it->second;
        if (!fallback)
            die("missing --" + key);
        return fallback;
    }
    int64_t num(const std::string& key, const char* fallback = nullptr) const {
        return std::stoll(get(key, fallback));
    }
};

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// utime + stime of every thread of the process, in seconds; 0 when no pid was given.
double process_cpu_seconds(int64_t pid) {
    if (pid <= 0)
        return 0;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = stat.rfind(')');
    if (close == std::string::npos)
        die("cannot read /proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    double ticks = 0;
    // Field 3 (state) comes first; utime and stime are fields 14 and 15.
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i >= 14)
            ticks += std::stod(field);
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

rd_kafka_conf_t* make_conf(const Args& args) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    auto set = [&](const char* k, const std::string& v) {
        if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
            die(std::string(k) + ": " + err);
    };
    set("bootstrap.servers", args.get("bootstrap"));
    set("client.id", "skiff-bench");
    set("log_level", "3");
    // --debug CONTEXTS: librdkafka's own timestamped debug log on stderr (e.g. eos,protocol),
    // to see where a workload's time goes between client and broker.
    if (const std::string debug = args.get("debug", ""); !debug.empty()) {
        set("debug", debug);
        set("log_level", "7");
    }
    // --conf-file PATH: librdkafka settings, one key=value a line (security.protocol, ssl.*,
    // sasl.*: the TLS and SASL runs of tests/bench/tls.sh).
    if (const std::string file = args.get("conf-file", ""); !file.empty()) {
        std::ifstream in(file);
        if (!in)
            die("cannot read " + file);
        std::string line;
        while (std::getline(in, line)) {
            const auto eq = line.find('=');
            if (line.empty() || line[0] == '#' || eq == std::string::npos)
                continue;
            set(line.substr(0, eq).c_str(), line.substr(eq + 1));
        }
    }
    return conf;
}

void set_conf(rd_kafka_conf_t* conf, const char* key, const std::string& value) {
    char err[512];
    if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
        die(std::string(key) + ": " + err);
}

struct Delivery {
    int64_t ok = 0;
    int64_t failed = 0;
    std::string first_error;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* d = static_cast<Delivery*>(opaque);
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++d->ok;
    } else if (d->failed++ == 0) {
        d->first_error = rd_kafka_err2str(m->err);
    }
}

rd_kafka_t* make_producer(const Args& args, Delivery& delivery, const std::string& acks,
                          bool one_in_flight) {
    rd_kafka_conf_t* conf = make_conf(args);
    set_conf(conf, "acks", acks);
    // --compression CODEC: the producer's compression.codec (librdkafka's default: none).
    set_conf(conf, "compression.codec", args.get("compression", "none"));
    if (one_in_flight) {
        set_conf(conf, "linger.ms", "0");
        set_conf(conf, "max.in.flight.requests.per.connection", "1");
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, &delivery);
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        die(std::string("rd_kafka_new: ") + err);
    return rk;
}

// Value bytes are static and never copied: librdkafka only reads them while sending.
std::vector<char> make_value(int64_t size) {
    std::vector<char> v(static_cast<size_t>(size));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
    return v;
}

// --values text: each message a different slice of a pool of random words (log-line-like data
// that lz4 compresses about 2x and zstd about 3x), instead of the one repeated value that
// compresses about 100x within a batch. Only for produce.
struct TextValues {
    std::vector<char> pool;
    uint64_t state = 0x9E3779B97F4A7C15ull;
    explicit TextValues(size_t size) {
        static const char* const kWords[] = {
            "user",  "login", "GET",     "POST",   "200",   "404",   "order",   "id",
            "time",  "ms",    "error",   "warn",   "info",  "debug", "cart",    "item",
            "price", "eur",   "usd",     "paid",   "ship",  "queue", "retry",   "ok",
            "fail",  "node",  "shard",   "region", "west",  "east",  "token",   "session",
            "path",  "/api",  "/v1",     "/users", "/cart", "agent", "mozilla", "curl",
            "ip",    "10.0",  "latency", "bytes",  "gzip",  "json",  "key",     "value"};
        pool.reserve(size + 64);
        while (pool.size() < size) {
            const char* w = kWords[next() % (sizeof kWords / sizeof kWords[0])];
            pool.insert(pool.end(), w, w + std::strlen(w));
            pool.push_back(next() % 8 == 0 ? '\n' : ' ');
            if (next() % 4 == 0) {  // a number, as logs have
                std::string n = std::to_string(next() % 100000);
                pool.insert(pool.end(), n.begin(), n.end());
                pool.push_back(' ');
            }
        }
    }
    uint64_t next() {  // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    }
    void fill(std::vector<char>& value) {
        const size_t at = next() % (pool.size() - value.size());
        std::memcpy(value.data(), pool.data() + at, value.size());
    }
};

// copy: librdkafka copies the value (needed when the caller rewrites it before delivery);
// otherwise it points into `value`, which must stay unchanged.
void produce_one(rd_kafka_t* rk, const std::string& topic, std::vector<char>& value,
                 int32_t partition = 0, void* opaque = nullptr, bool copy = false) {
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
            RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_OPAQUE(opaque),
            RD_KAFKA_V_MSGFLAGS(copy ? RD_KAFKA_MSG_F_COPY : 0), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
            return;
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            die(std::string("produce: ") + rd_kafka_err2str(e));
        rd_kafka_poll(rk, 1);
    }
}

// Creates the topic (skiff auto-creates on metadata) and opens the connection, untimed: one
// message to each of partitions 0..P-1.
void warm_up(rd_kafka_t* rk, const std::string& topic, std::vector<char>& value, Delivery& delivery,
             int32_t partitions = 1) {
    for (int32_t p = 0; p < partitions; ++p) {
        produce_one(rk, topic, value, p);
        if ((p & 63) == 63)
            rd_kafka_poll(rk, 0);
    }
    rd_kafka_flush(rk, 120000);
    if (delivery.ok != partitions)
        die("warm-up messages not delivered: " + std::to_string(delivery.ok) + " of " +
            std::to_string(partitions) + " " + delivery.first_error);
    delivery = {};
}

int run_produce(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t size = args.num("size");
    const int64_t max_bytes = args.num("max-bytes");
    const double seconds = std::stod(args.get("seconds"));
    const int64_t pid = args.num("broker-pid", "0");
    const auto partitions = static_cast<int32_t>(args.num("partitions", "1"));
    if (partitions < 1)
        die("--partitions must be at least 1");
    std::string acks = args.get("acks");
    Delivery delivery;
    rd_kafka_t* rk = make_producer(args, delivery, acks == "all" ? "-1" : acks, false);
    auto value = make_value(size);
    // --schema-id: every value starts with the schema registry's wire-format header (magic byte
    // 0, the id big-endian), as a Confluent serializer writes it, for topics with broker-side
    // schema validation (tests/bench/schema_registry.sh).
    if (const int64_t id = args.num("schema-id", "-1"); id >= 0) {
        if (size < 5)
            die("--schema-id needs --size 5 or more");
        value[0] = 0;
        for (int i = 0; i < 4; ++i)
            value[static_cast<size_t>(1 + i)] = static_cast<char>((id >> (8 * (3 - i))) & 0xff);
    }
    warm_up(rk, topic, value, delivery, partitions);
    std::unique_ptr<TextValues> text;
    if (args.get("values", "repeated") == "text")
        text = std::make_unique<TextValues>(static_cast<size_t>(size) + (64 << 20));

    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    int64_t sent = 0;
    int32_t partition = 0;
    while (sent * size < max_bytes) {
        if (text)
            text->fill(value);
        produce_one(rk, topic, value, partition, nullptr, text != nullptr);
        if (++partition == partitions)
            partition = 0;
        ++sent;
        if ((sent & 63) == 0) {
            rd_kafka_poll(rk, 0);
            if (Clock::now() >= deadline)
                break;
        }
    }
    if (rd_kafka_flush(rk, 120000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        die("flush timed out");
    const double elapsed = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    rd_kafka_destroy(rk);
    if (delivery.failed > 0)
        die(std::to_string(delivery.failed) + " messages failed: " + delivery.first_error);
    const double bytes = static_cast<double>(delivery.ok * size);
    std::printf(
        "result workload=produce partitions=%d msgs=%lld bytes=%.0f seconds=%.4f msgs_per_s=%.1f "
        "mb_per_s=%.2f broker_cpu_s=%.3f\n",
        partitions, static_cast<long long>(delivery.ok), bytes, elapsed, delivery.ok / elapsed,
        bytes / elapsed / 1e6, cpu);
    return 0;
}

// One pass: start partition 0 at offset 0, read to the end (or pass_bytes), stop. Returns the
// value bytes read. This is the legacy (simple) consumer, as kcat -C uses: no group at all.
int64_t consume_pass(rd_kafka_topic_t* rkt, int64_t pass_bytes, int64_t& messages) {
    if (rd_kafka_consume_start(rkt, 0, 0) != 0)
        die(std::string("consume_start: ") + rd_kafka_err2str(rd_kafka_last_error()));
    int64_t bytes = 0;
    bool at_end = false;
    const auto give_up = Clock::now() + std::chrono::seconds(60);
    // One message per call: rd_kafka_consume returns as soon as one is queued, where
    // rd_kafka_consume_batch would wait out its timeout for a partly filled batch at the end.
    while (bytes < pass_bytes && !at_end) {
        rd_kafka_message_t* m = rd_kafka_consume(rkt, 0, 100);
        if (!m) {
            if (Clock::now() > give_up)
                die("consume pass stalled");
            continue;
        }
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            at_end = true;
        } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            die(std::string("consume: ") + rd_kafka_message_errstr(m));
        } else {
            bytes += static_cast<int64_t>(m->len);
            ++messages;
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consume_stop(rkt, 0);
    return bytes;
}

int run_consume(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t pass_bytes = args.num("pass-bytes");
    const int64_t max_bytes = args.num("max-bytes");
    const double seconds = std::stod(args.get("seconds"));
    const int64_t pid = args.num("broker-pid", "0");
    rd_kafka_conf_t* conf = make_conf(args);
    set_conf(conf, "enable.partition.eof", "true");
    set_conf(conf, "fetch.wait.max.ms", "1");
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk)
        die(std::string("rd_kafka_new: ") + err);
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    int64_t messages = 0;
    if (consume_pass(rkt, pass_bytes, messages) == 0)  // connect, untimed
        die("topic " + topic + " is empty");

    messages = 0;
    int64_t bytes = 0, passes = 0;
    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    while (bytes < max_bytes && seconds_since(start) < seconds) {
        bytes += consume_pass(rkt, pass_bytes, messages);
        ++passes;
    }
    const double elapsed = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    std::printf(
        "result workload=consume msgs=%lld bytes=%lld passes=%lld seconds=%.4f msgs_per_s=%.1f "
        "mb_per_s=%.2f broker_cpu_s=%.3f\n",
        static_cast<long long>(messages), static_cast<long long>(bytes),
        static_cast<long long>(passes), elapsed, messages / elapsed, bytes / elapsed / 1e6, cpu);
    return 0;
}

int run_latency(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t size = args.num("size");
    const int64_t count = args.num("count");
    const double seconds = std::stod(args.get("seconds"));
    Delivery delivery;
    rd_kafka_t* rk = make_producer(args, delivery, "-1", true);
    auto value = make_value(size);
    warm_up(rk, topic, value, delivery);

    std::vector<double> micros;
    micros.reserve(static_cast<size_t>(count));
    const auto start = Clock::now();
    for (int64_t i = 0; i < count && seconds_since(start) < seconds; ++i) {
        const auto t0 = Clock::now();
        const int64_t before = delivery.ok + delivery.failed;
        produce_one(rk, topic, value);
        while (delivery.ok + delivery.failed == before)
            rd_kafka_poll(rk, 1000);
        micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    rd_kafka_destroy(rk);
    if (delivery.failed > 0)
        die(std::to_string(delivery.failed) + " messages failed: " + delivery.first_error);
    std::sort(micros.begin(), micros.end());
    auto pct = [&](double p) {
        size_t i = static_cast<size_t>(p * static_cast<double>(micros.size() - 1) + 0.5);
        return micros[std::min(i, micros.size() - 1)];
    };
    std::printf("result workload=latency msgs=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
                micros.size(), pct(0.50), pct(0.99), micros.back());
    return 0;
}

// Writes `bytes` value bytes spread round-robin over partitions 0..P-1 of `topic`, as fast as
// librdkafka batches them (for restart.py: the data a crash leaves behind). The topic must
// exist with P partitions or be auto-created with them (num.partitions).
int run_fill(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t size = args.num("size");
    const int64_t total = args.num("bytes");
    const int32_t partitions = static_cast<int32_t>(args.num("partitions"));
    Delivery delivery;
    rd_kafka_conf_t* conf = make_conf(args);
    set_conf(conf, "acks", "1");
    set_conf(conf, "linger.ms", "20");
    set_conf(conf, "batch.size", args.get("batch-size", "1000000"));
    set_conf(conf, "queue.buffering.max.kbytes", "1048576");
    set_conf(conf, "enable.idempotence", "false");
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, &delivery);
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        die(std::string("rd_kafka_new: ") + err);
    auto value = make_value(size);
    const auto start = Clock::now();
    int64_t sent = 0;
    for (int64_t i = 0; sent < total; ++i) {
        for (;;) {
            rd_kafka_resp_err_t e =
                rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                                  RD_KAFKA_V_PARTITION(static_cast<int32_t>(i % partitions)),
                                  RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_END);
            if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
                break;
            if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                die(std::string("produce: ") + rd_kafka_err2str(e));
            rd_kafka_poll(rk, 1);
        }
        sent += size;
        if ((i & 63) == 0)
            rd_kafka_poll(rk, 0);
    }
    if (rd_kafka_flush(rk, 600000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        die("flush timed out");
    const double elapsed = seconds_since(start);
    rd_kafka_destroy(rk);
    if (delivery.failed > 0)
        die(std::to_string(delivery.failed) + " messages failed: " + delivery.first_error);
    const double bytes = static_cast<double>(delivery.ok * size);
    std::printf("result workload=fill msgs=%lld bytes=%.0f seconds=%.2f mb_per_s=%.1f\n",
                static_cast<long long>(delivery.ok), bytes, elapsed, bytes / elapsed / 1e6);
    return 0;
}

// Sum of the "Fetch" request counters of every broker in one statistics JSON document
// (brokers.*.req.Fetch); -1 when the document has none.
int64_t fetch_requests_in_stats(const char* json) {
    int64_t total = -1;
    const char* key = "\"Fetch\":";
    for (const char* p = std::strstr(json, key); p; p = std::strstr(p + 1, key)) {
        total = std::max<int64_t>(total, 0) + std::strtoll(p + std::strlen(key), nullptr, 10);
    }
    return total;
}

std::atomic<int64_t> g_fetch_requests{-1};
std::atomic<int64_t> g_stats_seen{0};

int on_stats(rd_kafka_t*, char* json, size_t, void*) {
    const int64_t n = fetch_requests_in_stats(json);
    if (n >= 0)
        g_fetch_requests.store(n);
    g_stats_seen.fetch_add(1);
    return 0;  // librdkafka frees json
}

// One consumer of every partition of a topic, from the beginning (no group: rd_kafka_assign
// with OFFSET_BEGINNING), until it has read --bytes value bytes. The topic must already hold
// exactly that (bench_client fill). Reports throughput, broker CPU and the number of Fetch
// requests the client sent (from librdkafka's statistics, brokers.*.req.Fetch) up to the moment
// the last byte arrived, so a caller counting the broker's sendfile calls can divide by it.
int run_consume_many(const Args& args) {
    const std::string topic = args.get("topic");
    const auto partitions = static_cast<int32_t>(args.num("partitions"));
    const int64_t want = args.num("bytes");
    const double seconds = std::stod(args.get("seconds", "120"));
    const int64_t pid = args.num("broker-pid", "0");
    rd_kafka_conf_t* conf = make_conf(args);
    set_conf(conf, "enable.auto.commit", "false");
    // rd_kafka_assign needs a group.id even when the group is never joined (no subscribe).
    set_conf(conf, "group.id", "bench-many-" + topic);
    set_conf(conf, "statistics.interval.ms", "50");
    rd_kafka_conf_set_stats_cb(conf, on_stats);
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk)
        die(std::string("rd_kafka_new: ") + err);
    rd_kafka_poll_set_consumer(rk);
    // Connect and learn the topic's partitions, untimed.
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, rkt, &md, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        die("metadata for " + topic + " failed");
    if (md->topic_cnt != 1 || md->topics[0].partition_cnt != partitions)
        die("topic " + topic + " has " +
            std::to_string(md->topic_cnt ? md->topics[0].partition_cnt : 0) + " partitions, not " +
            std::to_string(partitions));
    rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
    for (int32_t p = 0; p < partitions; ++p)
        rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset =
            RD_KAFKA_OFFSET_BEGINNING;

    // Let one statistics document through so the counter starts from the connection's fetches.
    for (int i = 0; i < 20 && g_stats_seen.load() == 0; ++i)
        rd_kafka_poll(rk, 50);
    const int64_t fetches0 = std::max<int64_t>(g_fetch_requests.load(), 0);
    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    if (rd_kafka_resp_err_t e = rd_kafka_assign(rk, list); e != RD_KAFKA_RESP_ERR_NO_ERROR)
        die(std::string("assign: ") + rd_kafka_err2str(e));
    rd_kafka_topic_partition_list_destroy(list);
    int64_t bytes = 0, messages = 0;
    while (bytes < want) {
        rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
        if (!m) {
            if (seconds_since(start) > seconds)
                die("consume-many: read " + std::to_string(bytes) + " of " + std::to_string(want) +
                    " bytes in " + std::to_string(seconds) + " s");
            continue;
        }
        if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            bytes += static_cast<int64_t>(m->len);
            ++messages;
        } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            die(std::string("consume: ") + rd_kafka_message_errstr(m));
        }
        rd_kafka_message_destroy(m);
    }
    const double elapsed = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    // The next statistics document (at most 50 ms later) holds the fetches sent until now.
    const int64_t seen = g_stats_seen.load();
    for (int i = 0; i < 40 && g_stats_seen.load() < seen + 2; ++i)
        rd_kafka_poll(rk, 25);
    const int64_t fetches = g_fetch_requests.load() - fetches0;
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    std::printf(
        "result workload=consume-many partitions=%d msgs=%lld bytes=%lld seconds=%.4f "
        "msgs_per_s=%.1f mb_per_s=%.2f broker_cpu_s=%.3f fetch_requests=%lld\n",
        partitions, static_cast<long long>(messages), static_cast<long long>(bytes), elapsed,
        messages / elapsed, bytes / elapsed / 1e6, cpu, static_cast<long long>(fetches));
    return 0;
}

// --- clients: N producers and M consumers, one librdkafka handle each, one thread each -------

// CPU seconds (user + system) of this whole process so far.
double own_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct ProducerStats {
    int64_t ok = 0;
    int64_t failed = 0;
    int64_t late = 0;  // --rate: sends more than 1 ms behind their schedule
    std::string first_error;
    std::vector<float> latency_us;
};

void on_timed_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* st = static_cast<ProducerStats*>(opaque);
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (st->failed++ == 0)
            st->first_error = rd_kafka_err2str(m->err);
        return;
    }
    ++st->ok;
    const auto sent_ns = reinterpret_cast<intptr_t>(m->_private);
    if (sent_ns != 0) {
        const auto now_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
                .count();
        st->latency_us.push_back(static_cast<float>((now_ns - sent_ns) / 1000.0));
    }
}

struct ConsumerState {
    std::atomic<int32_t> assigned{0};
    std::atomic<int64_t> messages{0};  // counted only while g_counting
    std::atomic<int64_t> bytes{0};
};

std::atomic<bool> g_counting{false};
std::atomic<bool> g_stop_consumers{false};

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts,
                  void* opaque) {
    auto* st = static_cast<ConsumerState*>(opaque);
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        rd_kafka_assign(rk, parts);
        st->assigned.store(parts->cnt);
    } else {
        rd_kafka_assign(rk, nullptr);
        st->assigned.store(0);
    }
}

int run_clients(const Args& args) {
    const std::string topic = args.get("topic");
    const int producers = static_cast<int>(args.num("producers"));
    const int consumers = static_cast<int>(args.num("consumers", "0"));
    const auto partitions = static_cast<int32_t>(args.num("partitions"));
    const std::string mode = args.get("consumer-mode", "group");  // group | assign
    const int64_t size = args.num("size", "100");
    const double seconds = std::stod(args.get("seconds"));
    const int64_t window = args.num("max-outstanding", "100");
    // --rate N: each producer sends at most N messages per second, on a fixed schedule (open
    // loop), so that latency can be measured at a load the machine carries instead of at
    // saturation; 0 (the default) sends as fast as the window allows.
    const double rate = std::stod(args.get("rate", "0"));
    const int64_t pid = args.num("broker-pid", "0");
    const std::string acks = args.get("acks", "1");
    if (mode != "group" && mode != "assign")
        die("--consumer-mode must be group or assign");
    if (producers < 1)
        die("--producers must be at least 1");

    // Create the topic (skiff: auto-created with num.partitions) and touch every partition.
    {
        Delivery delivery;
        rd_kafka_t* rk = make_producer(args, delivery, acks == "all" ? "-1" : acks, false);
        auto value = make_value(size);
        warm_up(rk, topic, value, delivery, partitions);
        rd_kafka_destroy(rk);
    }

    // Consumers first: each subscribes (one group) or assigns every partition (no group), and
    // reads from the end of what the warm-up wrote (auto.offset.reset=latest / OFFSET_END).
    std::vector<std::unique_ptr<ConsumerState>> cstate;
    std::vector<std::thread> cthreads;
    const std::string group = "bench-" + topic;
    for (int c = 0; c < consumers; ++c) {
        cstate.push_back(std::make_unique<ConsumerState>());
        ConsumerState* st = cstate.back().get();
        cthreads.emplace_back([&, st, c] {
            rd_kafka_conf_t* conf = make_conf(args);
            set_conf(conf, "client.id", "skiff-bench-c" + std::to_string(c));
            set_conf(conf, "enable.auto.commit", mode == "group" ? "true" : "false");
            set_conf(conf, "auto.offset.reset", "latest");
            // assign mode: a group.id of its own that is never joined (rd_kafka_assign needs one).
            set_conf(conf, "group.id",
                     mode == "group" ? group : group + "-own-" + std::to_string(c));
            if (mode == "group") {
                rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
                rd_kafka_conf_set_opaque(conf, st);
            }
            char err[512];
            rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
            if (!rk)
                die(std::string("rd_kafka_new: ") + err);
            rd_kafka_poll_set_consumer(rk);
            rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
            if (mode == "group") {
                rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
                if (rd_kafka_subscribe(rk, list) != RD_KAFKA_RESP_ERR_NO_ERROR)
                    die("subscribe failed");
            } else {
                for (int32_t p = 0; p < partitions; ++p)
                    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset =
                        RD_KAFKA_OFFSET_END;
                if (rd_kafka_resp_err_t e = rd_kafka_assign(rk, list);
                    e != RD_KAFKA_RESP_ERR_NO_ERROR)
                    die(std::string("assign: ") + rd_kafka_err2str(e));
                st->assigned.store(partitions);
            }
            rd_kafka_topic_partition_list_destroy(list);
            while (!g_stop_consumers.load()) {
                rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 50);
                if (!m)
                    continue;
                if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR && g_counting.load()) {
                    st->messages.fetch_add(1, std::memory_order_relaxed);
                    st->bytes.fetch_add(static_cast<int64_t>(m->len), std::memory_order_relaxed);
                }
                rd_kafka_message_destroy(m);
            }
            rd_kafka_consumer_close(rk);
            rd_kafka_destroy(rk);
        });
    }
    // Wait until every partition is assigned (to one member of the group, or to every consumer).
    const auto wait_start = Clock::now();
    double assign_s = 0;
    while (consumers > 0) {
        int64_t total = 0;
        bool all_have = true;
        for (auto& st : cstate) {
            total += st->assigned.load();
            all_have = all_have && (st->assigned.load() > 0 || consumers > partitions);
        }
        const int64_t expected = mode == "group" ? partitions : int64_t{partitions} * consumers;
        if (total == expected && all_have)
            break;
        if (seconds_since(wait_start) > 180)
            die("consumers not assigned after 180 s (" + std::to_string(total) + " of " +
                std::to_string(expected) + " assignments)");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    assign_s = seconds_since(wait_start);
    // The consumers' first fetches (OFFSET_END / latest) need a moment to resolve their offsets.
    std::this_thread::sleep_for(std::chrono::seconds(consumers > 0 ? 2 : 0));

    // Producers: each keeps at most `window` messages unacknowledged and spreads its messages
    // round-robin over all partitions (starting at its own index). Latency is produce() to the
    // delivery report, so it includes the wait in the client's queue behind the window.
    std::vector<ProducerStats> pstats(static_cast<size_t>(producers));
    std::vector<rd_kafka_t*> handles(static_cast<size_t>(producers));
    for (int i = 0; i < producers; ++i) {
        rd_kafka_conf_t* conf = make_conf(args);
        set_conf(conf, "client.id", "skiff-bench-p" + std::to_string(i));
        set_conf(conf, "acks", acks == "all" ? "-1" : acks);
        rd_kafka_conf_set_dr_msg_cb(conf, on_timed_delivery);
        rd_kafka_conf_set_opaque(conf, &pstats[static_cast<size_t>(i)]);
        char err[512];
        handles[static_cast<size_t>(i)] = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
        if (!handles[static_cast<size_t>(i)])
            die(std::string("rd_kafka_new: ") + err);
    }
    // Connect each producer (one untimed message each).
    auto value = make_value(size);
    for (int i = 0; i < producers; ++i)
        produce_one(handles[static_cast<size_t>(i)], topic, value, i % partitions);
    for (int i = 0; i < producers; ++i) {
        rd_kafka_flush(handles[static_cast<size_t>(i)], 60000);
        auto& st = pstats[static_cast<size_t>(i)];
        if (st.ok != 1)
            die("producer warm-up failed: " + st.first_error);
        st = {};
        st.latency_us.reserve(1 << 20);
    }

    g_counting.store(true);
    const double cpu0 = process_cpu_seconds(pid);
    const double own_cpu0 = own_cpu_seconds();
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    std::vector<std::thread> pthreads;
    for (int i = 0; i < producers; ++i) {
        pthreads.emplace_back([&, i] {
            rd_kafka_t* rk = handles[static_cast<size_t>(i)];
            auto& st = pstats[static_cast<size_t>(i)];
            std::vector<char> v = make_value(size);
            int32_t partition = i % partitions;
            int64_t sent = 0;
            // The producers' schedules are staggered evenly so that their sends interleave.
            const Clock::time_point first_send =
                start + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(rate > 0 ? i / (rate * producers) : 0.0));
            while (Clock::now() < deadline) {
                if (sent - st.ok - st.failed >= window) {
                    rd_kafka_poll(rk, 1);
                    continue;
                }
                // With --rate, a send that falls more than 1 ms behind its schedule is counted
                // as late: latency is measured from the send, so a producer held up by a slow
                // answer would otherwise hide the delay of the messages after it.
                if (rate > 0) {
                    const Clock::time_point due =
                        first_send + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(sent / rate));
                    if (due >= deadline)
                        break;
                    if (const auto now = Clock::now(); due > now) {
                        rd_kafka_poll(rk, 0);
                        std::this_thread::sleep_until(due);
                    } else if (now - due > std::chrono::milliseconds(1)) {
                        ++st.late;
                    }
                }
                const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        Clock::now().time_since_epoch())
                                        .count();
                produce_one(rk, topic, v, partition, reinterpret_cast<void*>(intptr_t{now_ns}));
                ++sent;
                if (++partition == partitions)
                    partition = 0;
                if ((sent & 15) == 0)
                    rd_kafka_poll(rk, 0);
            }
            rd_kafka_flush(rk, 120000);
        });
    }
    for (auto& t : pthreads)
        t.join();
    const double produce_s = seconds_since(start);
    int64_t produced = 0, failed = 0, late = 0;
    std::vector<float> lat;
    std::string first_error;
    for (auto& st : pstats) {
        produced += st.ok;
        failed += st.failed;
        late += st.late;
        if (first_error.empty())
            first_error = st.first_error;
        lat.insert(lat.end(), st.latency_us.begin(), st.latency_us.end());
    }
    if (failed > 0)
        die(std::to_string(failed) + " messages failed: " + first_error);
    // Consumers: wait until they have read everything produced (each consumer all of it when
    // each assigns every partition; all of them together once in a group), at most 30 s more.
    const int64_t expect = consumers == 0 ? 0 : mode == "group" ? produced : produced * consumers;
    auto consumed = [&] {
        int64_t n = 0;
        for (auto& st : cstate)
            n += st->messages.load();
        return n;
    };
    const auto drain_deadline = Clock::now() + std::chrono::seconds(30);
    while (consumed() < expect && Clock::now() < drain_deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double consume_s = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    const double own_cpu = own_cpu_seconds() - own_cpu0;
    int64_t consumed_msgs = consumed(), consumed_bytes = 0;
    for (auto& st : cstate)
        consumed_bytes += st->bytes.load();
    g_stop_consumers.store(true);
    for (auto& t : cthreads)
        t.join();
    for (auto* rk : handles)
        rd_kafka_destroy(rk);
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) -> double {
        if (lat.empty())
            return 0;
        size_t i = static_cast<size_t>(p * static_cast<double>(lat.size() - 1) + 0.5);
        return lat[std::min(i, lat.size() - 1)];
    };
    const double bytes = static_cast<double>(produced * size);
    std::printf(
        "result workload=clients producers=%d consumers=%d consumer_mode=%s partitions=%d "
        "window=%lld msgs=%lld bytes=%.0f seconds=%.4f msgs_per_s=%.1f mb_per_s=%.2f "
        "p50_us=%.1f p99_us=%.1f max_us=%.1f consumed_msgs=%lld consumed_of_expected=%.4f "
        "consume_seconds=%.4f consume_msgs_per_s=%.1f consume_mb_per_s=%.2f assign_s=%.2f "
        "broker_cpu_s=%.3f client_cpu_s=%.3f late=%lld\n",
        producers, consumers, consumers ? mode.c_str() : "none", partitions,
        static_cast<long long>(window), static_cast<long long>(produced), bytes, produce_s,
        produced / produce_s, bytes / produce_s / 1e6, pct(0.5), pct(0.99),
        lat.empty() ? 0.0 : lat.back(), static_cast<long long>(consumed_msgs),
        expect ? static_cast<double>(consumed_msgs) / static_cast<double>(expect) : 0.0, consume_s,
        consumed_msgs / consume_s, static_cast<double>(consumed_bytes) / consume_s / 1e6, assign_s,
        cpu, own_cpu, static_cast<long long>(late));
    return 0;
}

// Transactional produce against the same loop without transactions: an idempotent producer
// (acks=all) sends to partition 0; with --transactional true every --commit-msgs messages or
// --commit-ms milliseconds, whichever comes first, ends a transaction (commit_transaction, which
// flushes, then EndTxn) and begins the next. The baseline (false) flushes at the same points, so
// both runs wait for their acknowledgements equally often and the difference is the cost of the
// transaction itself (AddPartitionsToTxn, EndTxn, the markers). Reports the commit (or flush)
// round trip p50/p99.
int run_txn_produce(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t size = args.num("size");
    const double seconds = std::stod(args.get("seconds"));
    const int64_t pid = args.num("broker-pid", "0");
    const bool transactional = args.get("transactional") == "true";
    const int64_t commit_ms = args.num("commit-ms", "100");
    const int64_t commit_msgs = args.num("commit-msgs", "1000");
    Delivery delivery;
    rd_kafka_conf_t* conf = make_conf(args);
    set_conf(conf, "acks", "-1");
    set_conf(conf, "enable.idempotence", "true");
    set_conf(conf, "linger.ms", "5");
    if (transactional)
        set_conf(conf, "transactional.id", "skiff-bench-" + std::to_string(::getpid()));
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, &delivery);
    char err[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk)
        die(std::string("rd_kafka_new: ") + err);
    auto check = [](rd_kafka_error_t* e, const char* what) {
        if (e) {
            std::string m = std::string(what) + ": " + rd_kafka_error_string(e);
            rd_kafka_error_destroy(e);
            die(m);
        }
    };
    auto value = make_value(size);
    if (transactional) {
        check(rd_kafka_init_transactions(rk, 60000), "init_transactions");
        check(rd_kafka_begin_transaction(rk), "begin_transaction");
    }
    warm_up(rk, topic, value, delivery);  // flushes; in a transaction, its first message
    auto end_txn = [&] {
        if (transactional) {
            check(rd_kafka_commit_transaction(rk, 60000), "commit_transaction");
            check(rd_kafka_begin_transaction(rk), "begin_transaction");
        } else if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            die("flush timed out");
        }
    };
    end_txn();

    std::vector<double> commit_micros;
    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    auto txn_start = Clock::now();
    int64_t in_txn = 0;
    int64_t transactions = 0;
    while (Clock::now() < deadline) {
        produce_one(rk, topic, value);
        if ((++in_txn & 63) == 0)
            rd_kafka_poll(rk, 0);
        if (in_txn >= commit_msgs ||
            Clock::now() - txn_start >= std::chrono::milliseconds(commit_ms)) {
            const auto t0 = Clock::now();
            end_txn();
            commit_micros.push_back(
                std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
            ++transactions;
            in_txn = 0;
            txn_start = Clock::now();
        }
    }
    end_txn();
    const double elapsed = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    if (transactional)
        check(rd_kafka_abort_transaction(rk, 60000), "abort_transaction");  // the empty last one
    rd_kafka_destroy(rk);
    if (delivery.failed > 0)
        die(std::to_string(delivery.failed) + " messages failed: " + delivery.first_error);
    if (commit_micros.empty())
        die("no transaction completed");
    std::sort(commit_micros.begin(), commit_micros.end());
    auto pct = [&](double p) {
        size_t i = static_cast<size_t>(p * static_cast<double>(commit_micros.size() - 1) + 0.5);
        return commit_micros[std::min(i, commit_micros.size() - 1)];
    };
    const double bytes = static_cast<double>(delivery.ok * size);
    std::printf(
        "result workload=txn-produce transactional=%s msgs=%lld transactions=%lld seconds=%.4f "
        "msgs_per_s=%.1f mb_per_s=%.2f commit_p50_us=%.1f commit_p99_us=%.1f broker_cpu_s=%.3f\n",
        transactional ? "true" : "false", static_cast<long long>(delivery.ok),
        static_cast<long long>(transactions), elapsed, delivery.ok / elapsed, bytes / elapsed / 1e6,
        pct(0.50), pct(0.99), cpu);
    return 0;
}

}  // namespace

// Connection set-up: a new client, connected, one Metadata request answered, destroyed; as
// many as fit in --seconds. With --conf-file for SSL or SASL each includes the TLS handshake
// and / or the SASL exchange (SCRAM: both sides run PBKDF2, on the same machine).
int run_connect(const Args& args) {
    const double seconds = std::stod(args.get("seconds"));
    const int64_t pid = args.num("broker-pid", "0");
    int64_t connects = 0;
    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    while (seconds_since(start) < seconds) {
        rd_kafka_conf_t* conf = make_conf(args);
        char err[512];
        rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
        if (!rk)
            die(std::string("rd_kafka_new: ") + err);
        const rd_kafka_metadata_t* md = nullptr;
        const auto e = rd_kafka_metadata(rk, 0, nullptr, &md, 10000);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
            die(std::string("metadata: ") + rd_kafka_err2str(e));
        rd_kafka_metadata_destroy(md);
        rd_kafka_destroy(rk);
        ++connects;
    }
    const double elapsed = seconds_since(start);
    const double cpu = process_cpu_seconds(pid) - cpu0;
    std::printf("result workload=connect connects=%lld seconds=%.4f per_s=%.1f broker_cpu_s=%.3f\n",
                static_cast<long long>(connects), elapsed, connects / elapsed, cpu);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2)
        die("usage: bench_client produce|consume|latency|fill --key value ...");
    Args args;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strncmp(argv[i], "--", 2) != 0)
            die(std::string("unexpected argument ") + argv[i]);
        args.values[argv[i] + 2] = argv[i + 1];
    }
    const std::string command = argv[1];
    if (command == "produce")
        return run_produce(args);
    if (command == "consume")
        return run_consume(args);
    if (command == "latency")
        return run_latency(args);
    if (command == "fill")
        return run_fill(args);
    if (command == "consume-many")
        return run_consume_many(args);
    if (command == "clients")
        return run_clients(args);
    if (command == "txn-produce")
        return run_txn_produce(args);
    if (command == "connect")
        return run_connect(args);
    die("unknown command " + command);
}
