// AlterClientQuotas (KIP-546): sets or removes producer_byte_rate and consumer_byte_rate of user,
// client-id and user + client-id entities, names or defaults, as Kafka's controller does: each
// entry is checked on its own (entity, keys, values; a key twice in one entry or an entity twice
// in the request is INVALID_REQUEST) and the valid ones are applied together in one durable write
// (docs/quotas.md), unless validate_only. Needs ALTER_CONFIGS on the cluster, else every entry
// answers CLUSTER_AUTHORIZATION_FAILED. Keys skiff does not enforce (request_percentage,
// controller_mutation_rate, ip entities' connection_creation_rate) are refused, not kept.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/quotas/client_quota_store.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

asio::awaitable<protocol::AlterClientQuotasResponse> handle_alter_client_quotas(
    RequestContext& ctx, const protocol::AlterClientQuotasRequest& req) {
    using protocol::ErrorCode;
    protocol::AlterClientQuotasResponse resp;
    const bool allowed = authorized_on_cluster(ctx, security::AclOperation::alter_configs);
    std::vector<quotas::QuotaChange> changes;
    std::set<quotas::QuotaEntity> seen;
    for (const auto& entry : req.entries) {
        protocol::QuotaAlterResult result;
        result.entity = entry.entity;
        const auto fail = [&](ErrorCode code, std::string message) {
            result.error_code = code;
            result.error_message = std::move(message);
        };
        quotas::QuotaEntity entity;
        std::set<std::string> keys;
        std::vector<quotas::QuotaChange> mine;
        if (!allowed) {
            fail(ErrorCode::cluster_authorization_failed, "Cluster authorization failed.");
        } else if (auto bad = quotas::parse_entity(entry.entity, entity)) {
            fail(bad->code, bad->message);
        } else if (!seen.insert(entity).second) {
            fail(ErrorCode::invalid_request, "Ignoring duplicate entity " + entity.describe());
        } else {
            for (const auto& op : entry.ops) {
                if (!keys.insert(op.key).second) {
                    fail(ErrorCode::invalid_request, "Duplicate quota key " + op.key +
                                                         " not updating quota for this entity " +
                                                         entity.describe());
                    break;
                }
                if (op.remove) {
                    if (op.key != quotas::kProducerByteRate &&
                        op.key != quotas::kConsumerByteRate) {
                        fail(ErrorCode::invalid_request, "Invalid configuration key " + op.key);
                        break;
                    }
                    mine.push_back({entity, op.key, std::nullopt});
                    continue;
                }
                if (auto bad = quotas::check_quota_value(op.key, op.value)) {
                    fail(bad->code, bad->message);
                    break;
                }
                mine.push_back({entity, op.key, op.value});
            }
        }
        if (result.error_code == ErrorCode::none)
            changes.insert(changes.end(), mine.begin(), mine.end());
        resp.entries.push_back(std::move(result));
    }
    if (!req.validate_only && !changes.empty()) {
        if (auto written = ctx.broker.client_quotas().apply(changes); !written) {
            for (auto& result : resp.entries) {
                if (result.error_code == ErrorCode::none) {
                    result.error_code = ErrorCode::unknown_server_error;
                    result.error_message = "the quotas could not be stored: " + written.error();
                }
            }
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
