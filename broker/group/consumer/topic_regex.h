// Regular-expression subscriptions (ConsumerGroupHeartbeat v1's subscribed_topic_regex),
// resolved on the broker as Kafka does: RE2 syntax (Kafka uses RE2J, the same dialect; Debian's
// libre2 rather than a hand-written or std::regex matcher, whose ECMAScript dialect and
// backtracking differ), matched against the whole topic name, internal topics (__*) left out.
//
// A group re-resolves each of its members' patterns at most once per kRefreshMs, on a member's
// heartbeat: a topic created or deleted after a member subscribed reaches the group within that
// interval plus a heartbeat.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace skiff::broker::group::consumer {

inline constexpr int64_t kRegexRefreshMs = 1000;

class TopicRegex {
  public:
    // The compiled pattern, or the reason it does not compile.
    static std::shared_ptr<const TopicRegex> compile(const std::string& pattern,
                                                     std::string* error);

    // The topics among `topics` whose whole name matches, internal ones excluded.
    std::set<std::string> resolve(const std::vector<std::string>& topics) const;
    bool matches(const std::string& topic) const;

    explicit TopicRegex(std::unique_ptr<re2::RE2> re);
    ~TopicRegex();
    TopicRegex(const TopicRegex&) = delete;
    TopicRegex& operator=(const TopicRegex&) = delete;

  private:
    std::unique_ptr<re2::RE2> re_;
};

}  // namespace skiff::broker::group::consumer
