// DescribeUserScramCredentials (KIP-554): the SCRAM users with their mechanisms and iterations,
// never a secret. Needs DESCRIBE on the cluster (else CLUSTER_AUTHORIZATION_FAILED for the whole
// request). No names, or an empty list, describes every user; otherwise one result per distinct
// name, in request order: a name asked twice is DUPLICATE_RESOURCE, an unknown one
// RESOURCE_NOT_FOUND, with Kafka's messages (ScramControlManager.describeScramCredentials).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/security/credential_store.h"

namespace skiff::broker {
namespace {

protocol::DescribeUserScramCredentialsResult describe_user(const security::ScramUserInfo& info) {
    protocol::DescribeUserScramCredentialsResult result;
    result.user = info.user;
    for (const auto& [mechanism, iterations] : info.mechanisms)
        result.credential_infos.push_back({security::scram_mechanism_type(mechanism), iterations});
    return result;
}

}  // namespace

asio::awaitable<protocol::DescribeUserScramCredentialsResponse>
handle_describe_user_scram_credentials(RequestContext& ctx,
                                       const protocol::DescribeUserScramCredentialsRequest& req) {
    using protocol::ErrorCode;
    protocol::DescribeUserScramCredentialsResponse resp;
    if (!authorized_on_cluster(ctx, security::AclOperation::describe)) {
        resp.error_code = ErrorCode::cluster_authorization_failed;
        co_return resp;
    }
    std::vector<security::ScramUserInfo> users = ctx.broker.credentials().list();
    if (!req.users || req.users->empty()) {
        for (const auto& info : users)
            resp.results.push_back(describe_user(info));
        co_return resp;
    }
    std::map<std::string_view, int> asked;
    for (const auto& user : *req.users)
        ++asked[user.name];
    for (const auto& user : *req.users) {
        auto count = asked.find(user.name);
        if (count->second == 0)
            continue;  // already answered
        protocol::DescribeUserScramCredentialsResult result;
        result.user = user.name;
        if (count->second > 1) {
            result.error_code = ErrorCode::duplicate_resource;
            result.error_message =
                "Cannot describe SCRAM credentials for the same user twice in a single request: " +
                user.name;
        } else if (auto it = std::find_if(users.begin(), users.end(),
                                          [&](const auto& u) { return u.user == user.name; });
                   it != users.end()) {
            result = describe_user(*it);
        } else {
            result.error_code = ErrorCode::resource_not_found;
            result.error_message =
                "Attempt to describe a user credential that does not exist: " + user.name;
        }
        count->second = 0;
        resp.results.push_back(std::move(result));
    }
    co_return resp;
}

}  // namespace skiff::broker
