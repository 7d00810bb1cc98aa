// Share sessions (KIP-932; Kafka's ShareSessionCache): one per share consumer, keyed by (group,
// member id), holding the partitions the member fetches and the epoch its next request must
// carry. A ShareFetch with epoch 0 opens a session (replacing the member's old one, whose
// acquired records the caller releases), -1 closes it, any other epoch must be the session's
// next one (INVALID_SHARE_SESSION_EPOCH; no session: SHARE_SESSION_NOT_FOUND). The session's
// partitions are the union of those fetched, minus forgotten_topics_data, so that a steady-state
// ShareFetch names only the partitions it acknowledges. The broker holds at most
// `group.share.max.share.sessions` of them (SHARE_SESSION_LIMIT_REACHED beyond).
//
// The membership side tells the cache when a member leaves or a group is deleted: member_left
// and group_deleted are what the ShareMembership listener must call (the broker composes that
// listener at start-up; the cache never registers itself).
//
// Thread-safety: every method may be called from any I/O thread (one mutex; lookups by
// string_view, no allocation for a request that adds no partition).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::broker::share {

// One partition of a share session, by topic id as ShareFetch names it.
struct SessionPartition {
    protocol::Uuid topic_id;
    int32_t partition = 0;
    friend bool operator==(const SessionPartition&, const SessionPartition&) = default;
};

// The epochs of ShareRequestMetadata: 0 opens, -1 closes.
inline constexpr int32_t kInitialShareSessionEpoch = 0;
inline constexpr int32_t kFinalShareSessionEpoch = -1;

// The epoch after `epoch` (wrapping past INT32_MAX to 1, never to 0 or -1), as Kafka's.
int32_t next_share_session_epoch(int32_t epoch);

class ShareSessionCache {
  public:
    explicit ShareSessionCache(int32_t max_sessions) : max_sessions_(max_sessions) {}

    // ShareFetch epoch 0: a new session of `partitions` (next epoch 1), opened on connection
    // `connection_id` (Session::connection_id; 0: none). `replaced` says whether the member had
    // a session, which this one replaces (its acquired records must be released).
    // SHARE_SESSION_LIMIT_REACHED when the cache is full and the member had none.
    protocol::ErrorCode open(std::string_view group_id, std::string_view member_id,
                             std::span<const SessionPartition> partitions, bool& replaced,
                             uint64_t connection_id = 0);

    // The connection that opened sessions closed: as Kafka does (its ShareSessionCache listens
    // for disconnects), those sessions go, and are returned so that the caller releases what
    // their members hold, for the other members to have at once rather than when the locks
    // time out. A client that reconnects opens a new session (epoch 0), as after any loss.
    std::vector<std::pair<std::string, std::string>> connection_closed(uint64_t connection_id);

    // ShareFetch with epoch > 0: checks the epoch, adds `added`, removes `forgotten`, moves to
    // the next epoch and copies the session's partitions into `out` (reused by the caller).
    protocol::ErrorCode update(std::string_view group_id, std::string_view member_id, int32_t epoch,
                               std::span<const SessionPartition> added,
                               std::span<const SessionPartition> forgotten,
                               std::vector<SessionPartition>& out);

    // ShareAcknowledge with epoch > 0: checks the epoch and moves to the next one.
    protocol::ErrorCode acknowledge(std::string_view group_id, std::string_view member_id,
                                    int32_t epoch);

    // Epoch -1 (ShareFetch or ShareAcknowledge): the session goes; SHARE_SESSION_NOT_FOUND
    // when there is none.
    protocol::ErrorCode close(std::string_view group_id, std::string_view member_id);

    // The membership's listener: the member was fenced (or its session must go at once) / the
    // group was deleted.
    void member_left(std::string_view group_id, std::string_view member_id);
    void group_deleted(std::string_view group_id);

    // A member left the group on its own (ShareGroupHeartbeat with epoch -1): a closing client
    // sends its final ShareAcknowledge / ShareFetch (epoch -1) at the same time on another
    // connection (librdkafka does), which may arrive after the leave. Its session is kept as
    // "closing" for `kClosingGraceMs` so that those final acknowledgements are applied, as Kafka
    // applies them (it does not tie share sessions to group membership). False when the member
    // has no session (then nothing will close it: the caller releases what it holds).
    static constexpr int64_t kClosingGraceMs = 5000;
    bool member_leaving(std::string_view group_id, std::string_view member_id, int64_t now_ms);
    // Whether the member has a session. A member the group no longer knows that still has one
    // has just left on its own: its last acknowledgements are accepted. (Fenced members and
    // deleted groups lose their sessions at once; sessions do not outlive a restart.) Also true
    // in the moment between the leave and the listener's member_leaving.
    bool has_session(std::string_view group_id, std::string_view member_id) const;
    // Closing sessions past their grace: removed, and returned so that the caller releases what
    // their members still hold.
    std::vector<std::pair<std::string, std::string>> expire_closing(int64_t now_ms);

    size_t size() const;

  private:
    struct Session {
        int32_t epoch = 1;  // the epoch the next request must carry
        // When its member left the group (member_leaving), -1 while it is a member.
        int64_t left_at_ms = -1;
        uint64_t connection_id = 0;  // the connection that opened it (0: none known)
        std::vector<SessionPartition> partitions;
    };
    using Members = std::map<std::string, Session, std::less<>>;

    Session* find(std::string_view group_id, std::string_view member_id);
    const Session* find(std::string_view group_id, std::string_view member_id) const {
        return const_cast<ShareSessionCache*>(this)->find(group_id, member_id);
    }
    static void add(std::vector<SessionPartition>& to, std::span<const SessionPartition> ps);
    void erase(std::string_view group_id, std::string_view member_id);

    const int32_t max_sessions_;
    mutable std::mutex mutex_;
    std::map<std::string, Members, std::less<>> groups_;
    size_t size_ = 0;
};

}  // namespace skiff::broker::share
