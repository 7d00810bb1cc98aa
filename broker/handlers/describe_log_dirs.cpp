#include <sys/statvfs.h>

#include <filesystem>
#include <map>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "storage/log_manager.h"

namespace skiff::broker {

// One result: skiff's log dir, by its absolute path (Kafka reports the configured path, which
// for Kafka is absolute). Partitions asked for that do not exist are left out, as Kafka does.
asio::awaitable<protocol::DescribeLogDirsResponse> handle_describe_log_dirs(
    RequestContext& ctx, const protocol::DescribeLogDirsRequest& req) {
    // DESCRIBE on the cluster (docs/acls.md), else CLUSTER_AUTHORIZATION_FAILED (v3+) and no
    // result, as in Kafka.
    if (!authorized_on_cluster(ctx, AclOperation::describe)) {
        protocol::DescribeLogDirsResponse refused;
        refused.error_code = protocol::ErrorCode::cluster_authorization_failed;
        co_return refused;
    }
    auto& logs = ctx.broker.logs();
    std::map<std::string, std::vector<int32_t>> wanted;
    if (req.topics) {
        for (const auto& t : *req.topics)
            wanted[t.topic].insert(wanted[t.topic].end(), t.partitions.begin(), t.partitions.end());
    } else {
        for (const auto& tp : logs.partitions())
            wanted[tp.topic].push_back(tp.partition);
    }
    protocol::DescribeLogDirsResult dir;
    std::error_code ec;
    dir.log_dir = std::filesystem::absolute(logs.log_dir(), ec).string();
    for (const auto& [topic, partitions] : wanted) {
        protocol::DescribeLogDirsTopic t;
        t.name = topic;
        for (int32_t p : partitions)
            if (const auto* log = logs.get({topic, p}))
                t.partitions.push_back({p, log->size_bytes(), 0, false});
        if (!t.partitions.empty())
            dir.topics.push_back(std::move(t));
    }
    struct statvfs fs {};
    if (::statvfs(logs.log_dir().c_str(), &fs) == 0) {
        dir.total_bytes = static_cast<int64_t>(fs.f_blocks) * static_cast<int64_t>(fs.f_frsize);
        dir.usable_bytes = static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
    }
    protocol::DescribeLogDirsResponse resp;
    resp.results.push_back(std::move(dir));
    co_return resp;
}

}  // namespace skiff::broker
