// The benchmark's client workloads, one librdkafka client per run (C API).
//
//   bench_client produce --bootstrap H:P --topic T --size BYTES --acks 1|all
//                        --max-bytes N --seconds S [--broker-pid PID]
//   bench_client consume --bootstrap H:P --topic T --pass-bytes N --max-bytes N --seconds S
//                        [--broker-pid PID]
//   bench_client latency --bootstrap H:P --topic T --size BYTES --count N --seconds S
//   bench_client fill --bootstrap H:P --topic T --partitions P --bytes N --size BYTES
//                     [--batch-size BYTES]
//
// Each prints one machine-readable line "result key=value ..." on stdout. Everything but fill goes
// to partition 0. Throughput counts value bytes only (MB = 10^6 bytes). broker_cpu_s is the broker
// process's utime+stime (all threads, from /proc/PID/stat) spent between the start and the end
// of the timed part; connection set-up and topic creation happen before it.
//
// consume reads in passes: start partition 0 at offset 0 (legacy consumer, no group), read to
// the end of the partition, stop, repeat. The peer keeps only about 5 MiB per partition, so the
// topic consumed must hold less than that (run.sh produces 4 MiB into it first); then both
// brokers serve exactly the same bytes, and reading to the end means nothing is prefetched in
// vain. fetch.wait.max.ms is 1 so that the fetch parked at the end of the log (long poll)
// returns at once and the next pass starts without waiting for it.
#include <librdkafka/rdkafka.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
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

void produce_one(rd_kafka_t* rk, const std::string& topic, std::vector<char>& value) {
    for (;;) {
        rd_kafka_resp_err_t e =
            rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                              RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
            return;
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            die(std::string("produce: ") + rd_kafka_err2str(e));
        rd_kafka_poll(rk, 1);
    }
}

// Creates the topic (skiff auto-creates on metadata) and opens the connection, untimed.
void warm_up(rd_kafka_t* rk, const std::string& topic, std::vector<char>& value,
             Delivery& delivery) {
    produce_one(rk, topic, value);
    rd_kafka_flush(rk, 30000);
    if (delivery.ok != 1)
        die("warm-up message not delivered: " + delivery.first_error);
    delivery = {};
}

int run_produce(const Args& args) {
    const std::string topic = args.get("topic");
    const int64_t size = args.num("size");
    const int64_t max_bytes = args.num("max-bytes");
    const double seconds = std::stod(args.get("seconds"));
    const int64_t pid = args.num("broker-pid", "0");
    std::string acks = args.get("acks");
    Delivery delivery;
    rd_kafka_t* rk = make_producer(args, delivery, acks == "all" ? "-1" : acks, false);
    auto value = make_value(size);
    warm_up(rk, topic, value, delivery);

    const double cpu0 = process_cpu_seconds(pid);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    int64_t sent = 0;
    while (sent * size < max_bytes) {
        produce_one(rk, topic, value);
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
        "result workload=produce msgs=%lld bytes=%.0f seconds=%.4f msgs_per_s=%.1f mb_per_s=%.2f "
        "broker_cpu_s=%.3f\n",
        static_cast<long long>(delivery.ok), bytes, elapsed, delivery.ok / elapsed,
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

}  // namespace

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
    die("unknown command " + command);
}
