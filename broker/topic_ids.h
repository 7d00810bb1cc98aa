// Topic ids between the wire (protocol::Uuid) and storage (storage::TopicId, partition.metadata),
// and the id -> topic resolution Fetch v13+ needs before it can read a log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker/topic_registry.h"
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
