#include "broker/control/state_reset.h"

#include <spdlog/spdlog.h>

#include <set>
#include <stdexcept>

#include "broker/schema_registry/service/schemas_topic.h"

namespace skiff::broker::control {

bool is_broker_topic(Broker& broker, const std::string& topic) {
    return topic == group::kOffsetsTopic || topic == txn::kTransactionStateTopic ||
           topic == share::kShareGroupStateTopic ||
           (broker.schema_registry() && topic == schema_registry_service::kSchemasTopic);
}

ResetReport reset_broker(Broker& broker, const ResetOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    ResetReport report;
    auto fail = [&](const std::string& what) {
        if (!report.error.empty())
            report.error += "; ";
        report.error += what;
    };
    for (const auto& t : broker.topics().list())
        if (!is_broker_topic(broker, t.name))
            ++report.topics;
    std::set<std::string> groups;
    for (const auto& g : broker.groups().list())
        groups.insert(g.group_id);
    for (auto& g : broker.groups().offsets().groups())
        groups.insert(std::move(g));
    report.groups = groups.size();
    report.transactional_ids = broker.transactions().list().size();

    broker.topics().remove_all();
    try {
        broker.reopen_internal_state();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    // Group configs (consumer.session.timeout.ms, share.*) outlive their groups otherwise, and a
    // test's group id reused by the next test would inherit them.
    if (!broker.group_configs().clear())
        fail("removing the group configs");
    // Client quotas likewise: the next test's client id would be throttled by this one's.
    report.quota_entities = broker.client_quotas().snapshot().size();
    if (auto cleared = broker.client_quotas().replace_all({}); !cleared) {
        fail("removing the client quotas: " + cleared.error());
        report.quota_entities = 0;
    }
    // And what the clients sent: a quota set again by the next test starts from nothing.
    broker.quota_manager().forget_rates();
    if (options.acls && broker.authorizer()) {
        auto removed = broker.authorizer()->acls().remove({security::AclBindingFilter{}});
        if (removed.error)
            fail("removing the ACLs: " + *removed.error);
        else if (!removed.per_filter.empty())
            report.acls = removed.per_filter.front().size();
    }
    if (options.users) {
        std::vector<security::CredentialStore::Change> changes;
        for (const auto& user : broker.credentials().list())
            for (const auto& [mechanism, iterations] : user.mechanisms)
                changes.push_back({user.user, mechanism, std::nullopt});
        report.users = broker.credentials().list().size();
        if (auto applied = broker.credentials().apply(changes); !applied) {
            fail("removing the SCRAM users: " + applied.error().message);
            report.users = 0;
        }
    }
    // The checkpoints without the removed logs, so a restart does not carry their entries on.
    if (auto written = broker.logs().checkpoint(); !written)
        fail("writing the checkpoints: " + written.error().message);
    report.took = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - started);
    if (report.error.empty())
        spdlog::info("reset: {} topic(s), {} group(s), {} transactional id(s) removed in {} us",
                     report.topics, report.groups, report.transactional_ids, report.took.count());
    else
        spdlog::error("reset: {}", report.error);
    return report;
}

}  // namespace skiff::broker::control
