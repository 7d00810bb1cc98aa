// Topic ids between the wire (protocol::Uuid) and storage (storage::TopicId, partition.metadata),
// and the id -> topic resolution Fetch v13+ needs before it can read a log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/topics/topic_registry.h"
#include "protocol/error_code.h"
#include "protocol/fetch.h"
#include "protocol/field_spec.h"
#include "storage/partition_metadata.h"

namespace skiff::broker {

inline protocol::Uuid to_uuid(const storage::TopicId& id) {
    return protocol::Uuid{id.bytes};
}
inline storage::TopicId to_topic_id(const protocol::Uuid& id) {
    return storage::TopicId{id.bytes};
}

// The name of the topic that holds `id` now; nullopt for an id no topic holds (deleted,
// re-created under a new id, never made) and for the zero id. Produce v13, Fetch v13+ and
// OffsetCommit/OffsetFetch v10 resolve ids through this.
inline std::optional<std::string> topic_name_of(const TopicRegistry& topics,
                                                const protocol::Uuid& id) {
    auto found = topics.find_by_id(to_topic_id(id));
    if (!found)
        return std::nullopt;
    return std::move(found->name);
}

// One topic of a Fetch request, by name. Up to v12 the request names it; from v13 the name is
// looked up from the id, and an id no topic holds (deleted, or never made) leaves the name empty
// and `error` UNKNOWN_TOPIC_ID, which Kafka answers for each of that topic's partitions.
struct FetchTopicRef {
    std::string name;
    protocol::Uuid topic_id;
    protocol::ErrorCode error = protocol::ErrorCode::none;
};
std::vector<FetchTopicRef> resolve_fetch_topics(const TopicRegistry& topics,
                                                const protocol::FetchRequest& req, int16_t version);

}  // namespace skiff::broker
