#include "broker/share/share_session_cache.h"

#include <algorithm>
#include <limits>

namespace skiff::broker::share {

using protocol::ErrorCode;

int32_t next_share_session_epoch(int32_t epoch) {
    if (epoch < 0)
        return kFinalShareSessionEpoch;
    return epoch == std::numeric_limits<int32_t>::max() ? 1 : epoch + 1;
}

ShareSessionCache::Session* ShareSessionCache::find(std::string_view group_id,
                                                    std::string_view member_id) {
    auto g = groups_.find(group_id);
    if (g == groups_.end())
        return nullptr;
    auto m = g->second.find(member_id);
    return m == g->second.end() ? nullptr : &m->second;
}

void ShareSessionCache::add(std::vector<SessionPartition>& to,
                            std::span<const SessionPartition> ps) {
    for (const auto& p : ps)
        if (std::find(to.begin(), to.end(), p) == to.end())
            to.push_back(p);
}

void ShareSessionCache::erase(std::string_view group_id, std::string_view member_id) {
    auto g = groups_.find(group_id);
    if (g == groups_.end())
        return;
    auto m = g->second.find(member_id);
    if (m == g->second.end())
        return;
    g->second.erase(m);
    --size_;
    if (g->second.empty())
        groups_.erase(g);
}

ErrorCode ShareSessionCache::open(std::string_view group_id, std::string_view member_id,
                                  std::span<const SessionPartition> partitions, bool& replaced,
                                  uint64_t connection_id) {
    std::lock_guard lock(mutex_);
    Session* session = find(group_id, member_id);
    replaced = session != nullptr;
    if (!session) {
        if (size_ >= static_cast<size_t>(std::max(max_sessions_, 0)))
            return ErrorCode::share_session_limit_reached;
        auto g = groups_.find(group_id);
        if (g == groups_.end())
            g = groups_.emplace(std::string(group_id), Members{}).first;
        session = &g->second.emplace(std::string(member_id), Session{}).first->second;
        ++size_;
    }
    session->epoch = next_share_session_epoch(kInitialShareSessionEpoch);
    session->connection_id = connection_id;
    session->partitions.clear();
    add(session->partitions, partitions);
    return ErrorCode::none;
}

std::vector<std::pair<std::string, std::string>> ShareSessionCache::connection_closed(
    uint64_t connection_id) {
    std::vector<std::pair<std::string, std::string>> gone;
    if (connection_id == 0)
        return gone;
    std::lock_guard lock(mutex_);
    for (const auto& [group_id, members] : groups_)
        for (const auto& [member_id, session] : members)
            if (session.connection_id == connection_id)
                gone.emplace_back(group_id, member_id);
    for (const auto& [group_id, member_id] : gone)
        erase(group_id, member_id);
    return gone;
}

ErrorCode ShareSessionCache::update(std::string_view group_id, std::string_view member_id,
                                    int32_t epoch, std::span<const SessionPartition> added,
                                    std::span<const SessionPartition> forgotten,
                                    std::vector<SessionPartition>& out) {
    std::lock_guard lock(mutex_);
    Session* session = find(group_id, member_id);
    if (!session)
        return ErrorCode::share_session_not_found;
    if (session->epoch != epoch)
        return ErrorCode::invalid_share_session_epoch;
    add(session->partitions, added);
    if (!forgotten.empty())
        std::erase_if(session->partitions, [&](const SessionPartition& p) {
            return std::find(forgotten.begin(), forgotten.end(), p) != forgotten.end();
        });
    session->epoch = next_share_session_epoch(session->epoch);
    out.assign(session->partitions.begin(), session->partitions.end());
    return ErrorCode::none;
}

ErrorCode ShareSessionCache::acknowledge(std::string_view group_id, std::string_view member_id,
                                         int32_t epoch) {
    std::lock_guard lock(mutex_);
    Session* session = find(group_id, member_id);
    if (!session)
        return ErrorCode::share_session_not_found;
    if (session->epoch != epoch)
        return ErrorCode::invalid_share_session_epoch;
    session->epoch = next_share_session_epoch(session->epoch);
    return ErrorCode::none;
}

ErrorCode ShareSessionCache::close(std::string_view group_id, std::string_view member_id) {
    std::lock_guard lock(mutex_);
    if (!find(group_id, member_id))
        return ErrorCode::share_session_not_found;
    erase(group_id, member_id);
    return ErrorCode::none;
}

void ShareSessionCache::member_left(std::string_view group_id, std::string_view member_id) {
    std::lock_guard lock(mutex_);
    erase(group_id, member_id);
}

void ShareSessionCache::group_deleted(std::string_view group_id) {
    std::lock_guard lock(mutex_);
    auto g = groups_.find(group_id);
    if (g == groups_.end())
        return;
    size_ -= g->second.size();
    groups_.erase(g);
}

bool ShareSessionCache::member_leaving(std::string_view group_id, std::string_view member_id,
                                       int64_t now_ms) {
    std::lock_guard lock(mutex_);
    Session* s = find(group_id, member_id);
    if (!s)
        return false;
    s->left_at_ms = now_ms;
    return true;
}

bool ShareSessionCache::has_session(std::string_view group_id, std::string_view member_id) const {
    std::lock_guard lock(mutex_);
    return find(group_id, member_id) != nullptr;
}

std::vector<std::pair<std::string, std::string>> ShareSessionCache::expire_closing(int64_t now_ms) {
    std::vector<std::pair<std::string, std::string>> expired;
    std::lock_guard lock(mutex_);
    for (auto g = groups_.begin(); g != groups_.end();) {
        for (auto m = g->second.begin(); m != g->second.end();) {
            if (m->second.left_at_ms >= 0 && now_ms - m->second.left_at_ms >= kClosingGraceMs) {
                expired.emplace_back(g->first, m->first);
                m = g->second.erase(m);
                --size_;
            } else {
                ++m;
            }
        }
        g = g->second.empty() ? groups_.erase(g) : std::next(g);
    }
    return expired;
}

size_t ShareSessionCache::size() const {
    std::lock_guard lock(mutex_);
    return size_;
}

}  // namespace skiff::broker::share
