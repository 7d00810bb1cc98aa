#include <set>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"

namespace skiff::broker {

using protocol::ErrorCode;

// UpdateFeatures as Kafka's controller answers it, for the one feature skiff finalizes
// (transaction.version, broker/txn/finalized_features.h): ALTER on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED; a duplicate feature or an unknown upgrade type is INVALID_REQUEST;
// each update is checked (INVALID_UPDATE_VERSION with Kafka's message) and, as Kafka's controller
// does, either all are applied or none. The first error is also the top-level one (v2 has no
// per-feature results). validate_only (v1+) checks and changes nothing.
asio::awaitable<protocol::UpdateFeaturesResponse> handle_update_features(
    RequestContext& ctx, const protocol::UpdateFeaturesRequest& req) {
    protocol::UpdateFeaturesResponse resp;
    const auto fail_all = [&](ErrorCode e, const std::string& message) {
        resp.error_code = e;
        resp.error_message = message;
        for (const auto& u : req.feature_updates)
            resp.results.push_back({u.feature, e, message});
    };
    if (!authorized_on_cluster(ctx, AclOperation::alter)) {
        fail_all(ErrorCode::cluster_authorization_failed, "Cluster authorization failed.");
        co_return resp;
    }
    std::set<std::string, std::less<>> seen;
    for (const auto& u : req.feature_updates) {
        if (!seen.insert(u.feature).second) {
            fail_all(ErrorCode::invalid_request, "Duplicate feature update for " + u.feature);
            co_return resp;
        }
        if (ctx.header.api_version >= 1 && (u.upgrade_type < 1 || u.upgrade_type > 3)) {
            fail_all(ErrorCode::invalid_request,
                     "Unknown upgrade type " + std::to_string(u.upgrade_type));
            co_return resp;
        }
    }
    const auto type_of = [&](const protocol::FeatureUpdateKey& u) {
        if (ctx.header.api_version == 0)
            return u.allow_downgrade ? txn::FeatureUpgradeType::safe_downgrade
                                     : txn::FeatureUpgradeType::upgrade;
        return static_cast<txn::FeatureUpgradeType>(u.upgrade_type);
    };
    auto& features = ctx.broker.features();
    // Checked first, all of them: an error anywhere applies nothing.
    for (const auto& u : req.feature_updates) {
        auto r =
            features.update(u.feature, u.max_version_level, type_of(u), /*validate_only=*/true);
        protocol::UpdatableFeatureResult result{u.feature, r.error, std::nullopt};
        if (r.error != ErrorCode::none) {
            result.error_message = r.message;
            if (resp.error_code == ErrorCode::none) {
                resp.error_code = r.error;
                resp.error_message = r.message;
            }
        }
        resp.results.push_back(std::move(result));
    }
    if (resp.error_code != ErrorCode::none || (ctx.header.api_version >= 1 && req.validate_only))
        co_return resp;
    for (size_t i = 0; i < req.feature_updates.size(); ++i) {
        const auto& u = req.feature_updates[i];
        auto r = features.update(u.feature, u.max_version_level, type_of(u), false);
        if (r.error != ErrorCode::none) {  // the file could not be written
            resp.results[i].error_code = r.error;
            resp.results[i].error_message = r.message;
            resp.error_code = r.error;
            resp.error_message = r.message;
        }
    }
    co_return resp;
}

}  // namespace skiff::broker
