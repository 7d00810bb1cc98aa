#include "broker/group/consumer/topic_regex.h"

#include <re2/re2.h>

namespace skiff::broker::group::consumer {

TopicRegex::TopicRegex(std::unique_ptr<re2::RE2> re) : re_(std::move(re)) {}
TopicRegex::~TopicRegex() = default;

std::shared_ptr<const TopicRegex> TopicRegex::compile(const std::string& pattern,
                                                      std::string* error) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<re2::RE2>(pattern, options);
    if (!re->ok()) {
        if (error)
            *error = re->error();
        return nullptr;
    }
    return std::make_shared<const TopicRegex>(std::move(re));
}

bool TopicRegex::matches(const std::string& topic) const {
    return re2::RE2::FullMatch(topic, *re_);
}

std::set<std::string> TopicRegex::resolve(const std::vector<std::string>& topics) const {
    std::set<std::string> out;
    for (const auto& t : topics)
        if (!t.starts_with("__") && matches(t))
            out.insert(t);
    return out;
}

}  // namespace skiff::broker::group::consumer
