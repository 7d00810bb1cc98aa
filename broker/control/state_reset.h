// The test-control API's reset (broker/control/): the broker back to empty, in process, without a
// restart, for test suites that use one skiff for many tests.
//
// After reset_broker(): no user topic (their partition dirs renamed for deletion at once and
// removed by the maintenance thread, as DeleteTopics leaves them), no consumer group or committed
// offset, no transactional id or open transaction, no producer state (it lives in the partition
// dirs), no schema registry subject; with the options, no ACL and no SCRAM user either. Topics
// created afterwards get new topic ids and start at offset 0. The cluster id, the broker's
// settings (static and dynamic) and the producer id block (ids stay unique across a reset, as
// across restarts, so a stale client never collides with a new one) are kept.
//
// How the internal topics are emptied: __consumer_offsets, __transaction_state and _schemas are
// removed like every other topic (their dirs renamed to *-delete, one fsync of the log dir for
// all the renames) and created again empty, with new topic ids; the coordinators then reload
// from the new, empty logs (Broker::reopen_internal_state). Crash-safe: a rename is atomic, and
// a *-delete dir is removed at start-up, so after a crash each internal topic is either its old
// log (the reset had not returned: nothing was promised) or gone (created empty at start) or the
// new one; never a mix that replays part of the old state. Fast: no record is written or read,
// nothing of the removed logs is flushed (PartitionLog::abandon), and the fsyncs are a handful.
//
// The caller guarantees that no client request is being handled (the server closed every
// connection and refuses new ones until this returns). Background work may run meanwhile; it is
// safe because the logs leave the LogManager the way DeleteTopics' do: taken out of the map under
// its lock, closed (appends refused), kept alive in its removed list for the grace period, so the
// maintenance thread (retention, flush, checkpoints) and the cleaner threads, which work on log
// pointers taken from the map, fail harmlessly on a closed log or work on a renamed directory.
// The group coordinator's tick (main io_context) and the transaction coordinator's timeouts
// (maintenance thread) take their own mutexes, which the reopen takes too (see
// GroupCoordinator::clear_groups, OffsetStore::reopen, TransactionCoordinator::reopen).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "broker/broker.h"

namespace skiff::broker::control {

struct ResetOptions {
    bool acls = false;   // also remove every ACL (when an authorizer is configured)
    bool users = false;  // also remove every SCRAM user
};

struct ResetReport {
    size_t topics = 0;  // user topics removed (not the internal ones, which are re-created)
    size_t groups = 0;  // consumer groups, with members or only offsets
    size_t transactional_ids = 0;
    size_t acls = 0;
    size_t users = 0;
    size_t quota_entities = 0;  // client quotas removed (always: a test's client id must not
                                // inherit the last test's throttling)
    std::chrono::microseconds took{};
    std::string error;  // empty on success; otherwise what failed (the reset went on regardless)
};

ResetReport reset_broker(Broker& broker, const ResetOptions& options);

// Whether `topic` is one of the broker's own (__consumer_offsets, __transaction_state, and
// _schemas when the schema registry is on).
bool is_broker_topic(Broker& broker, const std::string& topic);

}  // namespace skiff::broker::control
