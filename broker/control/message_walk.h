// Walks over any Kafka request or response through its describe(), as the codecs do, to find
// what the test-control API needs without code per API: the topics, partitions, groups and
// transactional ids a request names (fault rules match on them, the request capture shows them),
// and the error codes of a response (fault rules overwrite them). Field names follow Kafka's
// message schemas, so the conventions below hold for every API: a topic is an element of an
// array whose name has "topic" in it (Produce's and DeleteTopics' responses call it "responses",
// CreatePartitions' "results"), named by its "name" or "topic" field or its "topic_id"; a
// partition is an element of an array with "partition" in its name, numbered by "index",
// "partition_index" or "partition", or an int32 in "partition_indexes" / "partitions".
// Only the fields on the wire at the request's version are looked at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::broker::control {

struct TopicFacts {
    std::string name;                 // empty when named by id only (resolve with the topic id)
    protocol::Uuid topic_id;          // zero when named by name
    std::vector<int32_t> partitions;  // empty: the topic as a whole
};

// What a request names, as far as fault rules and the capture care.
struct RequestFacts {
    std::vector<TopicFacts> topics;
    std::vector<std::string> groups;
    std::vector<std::string> transactional_ids;
    std::optional<int16_t> acks;
    std::optional<int8_t> isolation_level;
};

namespace walk {

inline bool is_topic_array(std::string_view name) {
    return (name.find("topic") != std::string_view::npos &&
            name.find("forgotten") == std::string_view::npos) ||
           name == "responses" || name == "results";
}
inline bool is_partition_array(std::string_view name) {
    return name.find("partition") != std::string_view::npos;
}
inline bool is_partition_number(std::string_view name) {
    return name == "index" || name == "partition_index" || name == "partition";
}
inline bool is_topic_name(std::string_view name) {
    return name == "name" || name == "topic";
}

template <class V, class T>
constexpr bool describable() {
    return requires(V & v, T & m) {
        T::describe(v, m);
    };
}

// The name, id or number of one array element, from its own fields (Metadata puts the error
// code before the name, so a walk must know the key before it reaches the error codes).
class KeyFinder {
  public:
    explicit KeyFinder(int16_t version) : version_(version) {}

    template <class T, class... Opts>
    void field(const char* name, const T& value, protocol::Versions present, Opts...) {
        if (!present.contains(version_))
            return;
        const std::string_view n(name);
        if constexpr (std::is_same_v<T, std::string>) {
            if (is_topic_name(n))
                topic = value;
        } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
            if (is_topic_name(n) && value)
                topic = *value;
        } else if constexpr (std::is_same_v<T, protocol::Uuid>) {
            if (n == "topic_id")
                topic_id = value;
        } else if constexpr (std::is_same_v<T, int32_t>) {
            if (is_partition_number(n))
                partition = value;
        }
    }

    std::string topic;
    protocol::Uuid topic_id;
    std::optional<int32_t> partition;

  private:
    int16_t version_;
};

template <class T>
KeyFinder find_key(const T& element, int16_t version) {
    KeyFinder finder(version);
    T::describe(finder, element);
    return finder;
}

// Collects RequestFacts.
class FactsCollector {
  public:
    FactsCollector(int16_t version, RequestFacts& out) : version_(version), out_(out) {}

    template <class T, class... Opts>
    void field(const char* name, const T& value, protocol::Versions present, Opts...) {
        if (!present.contains(version_))
            return;
        const std::string_view n(name);
        if constexpr (std::is_same_v<T, std::string>) {
            scalar_string(n, value);
        } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
            if (value)
                scalar_string(n, *value);
        } else if constexpr (std::is_same_v<T, int16_t>) {
            if (n == "acks")
                out_.acks = value;
        } else if constexpr (std::is_same_v<T, int8_t>) {
            if (n == "isolation_level")
                out_.isolation_level = value;
            else if (n == "key_type")
                key_type_ = value;
        } else if constexpr (protocol::is_vector<T>::value) {
            array(n, value);
        } else if constexpr (protocol::is_optional_vector<T>::value) {
            if (value)
                array(n, *value);
        } else if constexpr (protocol::is_optional<T>::value) {
            if constexpr (describable<FactsCollector, const typename T::value_type>())
                if (value)
                    T::value_type::describe(*this, *value);
        } else if constexpr (describable<FactsCollector, const T>()) {
            T::describe(*this, value);
        }
    }

    // FindCoordinator names its keys before saying what they are.
    void finish() {
        auto& into = key_type_ == 1 ? out_.transactional_ids : out_.groups;
        into.insert(into.end(), keys_.begin(), keys_.end());
    }

  private:
    void scalar_string(std::string_view n, const std::string& value) {
        if (n == "group_id")
            add_unique(out_.groups, value);
        else if (n == "transactional_id" || n == "v3_and_below_transactional_id")
            add_unique(out_.transactional_ids, value);
        else if (n == "key")
            keys_.push_back(value);
    }

    static void add_unique(std::vector<std::string>& into, const std::string& value) {
        for (const auto& v : into)
            if (v == value)
                return;
        into.push_back(value);
    }

    template <class E>
    void array(std::string_view n, const std::vector<E>& elements) {
        if constexpr (std::is_same_v<E, std::string>) {
            if (n == "topic_names" || (n == "topics" && depth_ == 0))
                for (const auto& t : elements)
                    out_.topics.push_back({t, {}, {}});
            else if (n == "groups" || n == "groups_names")
                for (const auto& g : elements)
                    add_unique(out_.groups, g);
            else if (n == "transactional_ids")
                for (const auto& t : elements)
                    add_unique(out_.transactional_ids, t);
            else if (n == "coordinator_keys")
                keys_.insert(keys_.end(), elements.begin(), elements.end());
        } else if constexpr (std::is_same_v<E, int32_t>) {
            if (topic_ && (n == "partition_indexes" || n == "partitions"))
                topic_->partitions.insert(topic_->partitions.end(), elements.begin(),
                                          elements.end());
        } else if constexpr (describable<FactsCollector, const E>()) {
            const bool topics = !topic_ && is_topic_array(n);
            const bool partitions = topic_ && is_partition_array(n);
            ++depth_;
            for (const auto& e : elements) {
                if (topics || partitions) {
                    auto key = find_key(e, version_);
                    if (topics) {
                        out_.topics.push_back({key.topic, key.topic_id, {}});
                        topic_ = &out_.topics.back();
                    } else if (key.partition) {
                        topic_->partitions.push_back(*key.partition);
                    }
                }
                E::describe(*this, e);
                if (topics)
                    topic_ = nullptr;
            }
            --depth_;
        }
    }

    int16_t version_;
    RequestFacts& out_;
    TopicFacts* topic_ = nullptr;  // the topic element being walked
    int depth_ = 0;
    std::vector<std::string> keys_;
    int8_t key_type_ = 0;
};

// Overwrites error codes: every one when `all`, else those inside the topic (and partition)
// elements that `matches` accepts.
template <class Matches>
class ErrorWriter {
  public:
    ErrorWriter(int16_t version, protocol::ErrorCode code, bool all, Matches& matches)
        : version_(version), code_(code), all_(all), selected_(all), matches_(matches) {}

    template <class T, class... Opts>
    void field(const char* name, T& value, protocol::Versions present, Opts...) {
        if (!present.contains(version_))
            return;
        const std::string_view n(name);
        if constexpr (std::is_same_v<T, protocol::ErrorCode>) {
            if (selected_)
                value = code_;
        } else if constexpr (protocol::is_vector<T>::value) {
            array(n, value);
        } else if constexpr (protocol::is_optional_vector<T>::value) {
            if (value)
                array(n, *value);
        } else if constexpr (protocol::is_optional<T>::value) {
            if constexpr (describable<ErrorWriter, typename T::value_type>())
                if (value)
                    T::value_type::describe(*this, *value);
        } else if constexpr (describable<ErrorWriter, T>()) {
            T::describe(*this, value);
        }
    }

  private:
    template <class E>
    void array(std::string_view n, std::vector<E>& elements) {
        if constexpr (describable<ErrorWriter, E>()) {
            const bool topics = !all_ && !inside_ && is_topic_array(n);
            const bool partitions = !all_ && inside_ && is_partition_array(n);
            for (auto& e : elements) {
                const bool saved = selected_;
                if (topics) {
                    auto key = find_key(e, version_);
                    topic_ = key.topic;
                    topic_id_ = key.topic_id;
                    inside_ = true;
                    selected_ = matches_(topic_, topic_id_, std::optional<int32_t>{});
                } else if (partitions) {
                    auto key = find_key(e, version_);
                    if (key.partition)
                        selected_ = matches_(topic_, topic_id_, key.partition);
                }
                E::describe(*this, e);
                selected_ = saved;
                if (topics)
                    inside_ = false;
            }
        }
    }

    int16_t version_;
    protocol::ErrorCode code_;
    bool all_;
    bool selected_;
    Matches& matches_;
    bool inside_ = false;
    std::string topic_;
    protocol::Uuid topic_id_;
};

}  // namespace walk

template <class Request>
RequestFacts request_facts(const Request& request, int16_t version) {
    RequestFacts facts;
    walk::FactsCollector collector(version, facts);
    Request::describe(collector, request);
    collector.finish();
    return facts;
}

// Sets `code` in every error code of the response when `all`, else in the topic and partition
// elements that matches(topic name, topic id, partition, or nullopt for the topic itself)
// accepts.
template <class Response, class Matches>
void overwrite_errors(Response& response, int16_t version, protocol::ErrorCode code, bool all,
                      Matches&& matches) {
    walk::ErrorWriter<std::remove_reference_t<Matches>> writer(version, code, all, matches);
    Response::describe(writer, response);
}

}  // namespace skiff::broker::control
