// The schema registry's log: the compacted topic `_schemas` (one partition) in skiff's own
// storage, written and read directly (no Kafka client in between), in Confluent's record
// formats, so any Kafka consumer can read it and the registry's state survives as any topic's
// data does.
//
// Every append is fsynced before it returns (registrations are rare and each must survive a
// power cut once acknowledged), and appends are serialized. At open, the log is read from its
// start and every record handed to the registry's replay, in log order.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "broker/schema_registry/schema_log.h"
#include "protocol/expected.h"
#include "storage/partition_log.h"

namespace skiff::broker::schema_registry_service {

inline constexpr std::string_view kSchemasTopic = "_schemas";

class SchemasTopic final : public schema_registry::SchemaLog {
  public:
    using Replay = std::function<void(std::string_view key, std::optional<std::string_view> value)>;

    explicit SchemasTopic(storage::PartitionLog& log) : log_(&log) {}

    // broker/control's reset and restore: appends and replays go to `log` from now on (the
    // registry stays bound to this object, which its HTTP side also holds).
    void rebind(storage::PartitionLog& log) {
        std::lock_guard lock(mutex_);
        log_ = &log;
    }

    // Reads the whole log into `replay`, in log order (records without a key are skipped:
    // Confluent writes none). At start, before the first append.
    Expected<void, std::string> replay(const Replay& replay);

    std::optional<std::string> append(std::string_view key,
                                      std::optional<std::string_view> value) override;

  private:
    storage::PartitionLog* log_;  // a pointer, not a reference: rebind() changes it
    std::mutex mutex_;
};

}  // namespace skiff::broker::schema_registry_service
