#include "broker/handlers/txn_settle.h"

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/handlers/group_commit_wait.h"

namespace skiff::broker {

using protocol::ErrorCode;

asio::awaitable<ErrorCode> settle(RequestContext& ctx, txn::Deferred& deferred) {
    auto& coordinator = ctx.broker.transactions();
    auto& committer = ctx.broker.logs().group_commit();
    if (auto failed = co_await wait_until_all_durable(committer, deferred.syncs)) {
        spdlog::error("sync of {} failed: {}", txn::kTransactionStateTopic, failed->message);
        if (deferred.completion)
            coordinator.abandon(*deferred.completion);  // no marker before its Prepare is on disk
        co_return ErrorCode::coordinator_not_available;
    }
    if (!deferred.completion)
        co_return ErrorCode::none;
    const txn::Completion& c = *deferred.completion;
    std::vector<txn::MarkerWrite> written;
    auto unfinished = coordinator.write_markers(c, written);
    if (!written.empty()) {
        std::vector<PendingSync> syncs;
        syncs.reserve(written.size());
        for (const auto& w : written)
            syncs.push_back(w.sync);
        auto errors = co_await wait_until_durable(committer, syncs);
        for (size_t i = 0; i < written.size(); ++i) {
            const auto& tp = written[i].tp;
            if (errors[i]) {
                spdlog::warn(
                    "transactional id '{}': the marker for {}-{} was not synced ({}), "
                    "retried later",
                    c.transactional_id, tp.topic, tp.partition, errors[i]->message);
                unfinished.push_back(tp);
            } else {
                // The last stable offset moved once the marker is on disk.
                ctx.broker.waiters().notify(PartitionWaiters::key(tp.topic, tp.partition));
            }
        }
    }
    txn::Deferred completed;
    coordinator.finish(c, unfinished, &completed);
    // Complete is synced soon, but not waited for: if a power cut takes it, the restart finds
    // the transaction prepared and completes it again (the markers, written again, change
    // nothing), with the epoch and producer id its Prepare record holds, which this answer gave.
    // Its next write (the id's next transaction) waits for a sync that covers it anyway.
    for (const auto& sync : completed.syncs)
        committer.request(sync.log);
    co_return ErrorCode::none;
}

}  // namespace skiff::broker
