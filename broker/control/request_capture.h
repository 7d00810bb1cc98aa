// The test-control API's record of the last requests (docs/control-api.md): what each client
// sent (API, version, client id and software, principal, listener, and a summary of the body:
// topics and partitions, acks, isolation level, groups, transactional ids), and which fault
// rule acted on it, so that a test can assert what its client did. A ring of fixed capacity
// (control.api.capture.requests; 0 keeps none); thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/control/message_walk.h"

namespace skiff::broker::control {

struct CapturedRequest {
    uint64_t sequence = 0;  // 1, 2, ... since the broker started; never reused
    std::chrono::system_clock::time_point at;
    int16_t api_key = -1;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::string client_id;
    std::string software_name;  // ApiVersions v3+ (KIP-511); empty before
    std::string software_version;
    std::string principal;
    std::string listener;
    std::string peer;
    RequestFacts facts;
    std::optional<uint64_t> fault_rule;  // the rule that acted on it
};

struct CaptureFilter {
    std::optional<int16_t> api_key;
    std::optional<std::string> client_id;
    uint64_t after = 0;  // only sequences above this
    size_t limit = 0;    // 0: all kept
};

class RequestCapture {
  public:
    explicit RequestCapture(size_t capacity) : capacity_(capacity) {}

    bool enabled() const { return capacity_ > 0; }
    void add(CapturedRequest request);
    // Oldest first.
    std::vector<CapturedRequest> query(const CaptureFilter& filter) const;
    size_t clear();
    uint64_t total() const;

  private:
    size_t capacity_;
    mutable std::mutex mutex_;
    std::deque<CapturedRequest> ring_;
    uint64_t next_ = 1;
};

nlohmann::json to_json(const CapturedRequest& request);

}  // namespace skiff::broker::control
