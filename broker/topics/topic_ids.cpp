#include "broker/topics/topic_ids.h"

namespace skiff::broker {

std::vector<FetchTopicRef> resolve_fetch_topics(const TopicRegistry& topics,
                                                const protocol::FetchRequest& req,
                                                int16_t version) {
    std::vector<FetchTopicRef> out;
    out.reserve(req.topics.size());
    for (const auto& t : req.topics) {
        FetchTopicRef ref;
        if (version < 13) {
            ref.name = t.topic;
        } else {
            ref.topic_id = t.topic_id;
            // The zero id is no topic's (Kafka looks it up and finds none either).
            if (auto name = topic_name_of(topics, t.topic_id))
                ref.name = std::move(*name);
            else
                ref.error = protocol::ErrorCode::unknown_topic_id;
        }
        out.push_back(std::move(ref));
    }
    return out;
}

}  // namespace skiff::broker
