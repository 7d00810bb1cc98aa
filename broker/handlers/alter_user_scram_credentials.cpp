// AlterUserScramCredentials (KIP-554): adds, replaces and removes users' SCRAM credentials. An
// upsertion carries the salt and SaltedPassword; the broker keeps StoredKey and ServerKey derived
// from them (the client's PBKDF2 work is not repeated, and no password reaches the broker).
//
// Needs ALTER on the cluster, else every user's result is CLUSTER_AUTHORIZATION_FAILED. One
// result per user, in the order users first appear (deletions, then upsertions); a user's
// changes are applied together or not at all, and all valid users' changes go in one durable
// write of the credential file. Refused per user, with Kafka's messages
// (ScramControlManager.alterCredentials): an empty name (UNACCEPTABLE_CREDENTIAL), the same
// user and mechanism twice (DUPLICATE_RESOURCE), a mechanism that is not SCRAM-SHA-256/512
// (UNSUPPORTED_SASL_MECHANISM), deleting a credential that does not exist (RESOURCE_NOT_FOUND),
// iterations outside 4096..16384 (UNACCEPTABLE_CREDENTIAL). skiff also refuses an empty salt and
// a SaltedPassword that is not the mechanism's digest size: a credential made from them could
// never be matched by a client.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorize.h"
#include "broker/security/credential_store.h"
#include "broker/security/scram.h"

namespace skiff::broker {
namespace {

using protocol::ErrorCode;
using security::ScramMechanism;

std::optional<ScramMechanism> mechanism_of_type(int8_t type) {
    for (auto m : {ScramMechanism::sha256, ScramMechanism::sha512})
        if (security::scram_mechanism_type(m) == type)
            return m;
    return std::nullopt;
}

std::string as_string(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

struct Refusal {
    ErrorCode code;
    std::string message;
};

// Why this upsertion cannot be applied, if it cannot.
std::optional<Refusal> upsertion_refusal(const protocol::ScramCredentialUpsertion& u) {
    auto mechanism = mechanism_of_type(u.mechanism);
    if (!mechanism)
        return Refusal{ErrorCode::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"};
    if (u.iterations < security::kScramMinIterations)
        return Refusal{ErrorCode::unacceptable_credential, "Too few iterations"};
    if (u.iterations > security::kScramMaxIterations)
        return Refusal{ErrorCode::unacceptable_credential, "Too many iterations"};
    if (u.salt.empty())
        return Refusal{ErrorCode::unacceptable_credential, "The salt must not be empty"};
    if (u.salted_password.size() != security::scram_digest_size(*mechanism))
        return Refusal{ErrorCode::unacceptable_credential,
                       "The salted password must be " +
                           std::to_string(security::scram_digest_size(*mechanism)) + " bytes for " +
                           std::string(security::scram_mechanism_name(*mechanism))};
    return std::nullopt;
}

}  // namespace

asio::awaitable<protocol::AlterUserScramCredentialsResponse> handle_alter_user_scram_credentials(
    RequestContext& ctx, const protocol::AlterUserScramCredentialsRequest& req) {
    protocol::AlterUserScramCredentialsResponse resp;
    // Users in the order they first appear, each with its result so far.
    std::vector<std::string> order;
    std::map<std::string, std::optional<Refusal>> refusal;
    std::map<std::string, int> changes_per_pair;  // "user\0mechanism" -> count
    auto note_user = [&](const std::string& user) {
        if (refusal.emplace(user, std::nullopt).second)
            order.push_back(user);
    };
    auto refuse = [&](const std::string& user, Refusal why) {
        if (!refusal[user])
            refusal[user] = std::move(why);
    };
    auto pair_key = [](const std::string& user, int8_t mechanism) {
        return user + '\0' + std::to_string(mechanism);
    };
    for (const auto& d : req.deletions) {
        note_user(d.name);
        ++changes_per_pair[pair_key(d.name, d.mechanism)];
    }
    for (const auto& u : req.upsertions) {
        note_user(u.name);
        ++changes_per_pair[pair_key(u.name, u.mechanism)];
    }

    if (!authorized_on_cluster(ctx, security::AclOperation::alter)) {
        for (const auto& user : order)
            resp.results.push_back({user, ErrorCode::cluster_authorization_failed, std::nullopt});
        co_return resp;
    }

    auto& store = ctx.broker.credentials();
    for (const auto& user : order) {
        if (user.empty())
            refuse(user, {ErrorCode::unacceptable_credential, "Username must not be empty"});
    }
    for (const auto& d : req.deletions) {
        auto mechanism = mechanism_of_type(d.mechanism);
        if (changes_per_pair[pair_key(d.name, d.mechanism)] > 1)
            refuse(d.name, {ErrorCode::duplicate_resource,
                            "A user credential cannot be altered twice in the same request"});
        else if (!mechanism)
            refuse(d.name, {ErrorCode::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"});
        else if (!store.lookup(d.name, *mechanism))
            refuse(d.name, {ErrorCode::resource_not_found,
                            "Attempt to delete a user credential that does not exist"});
    }
    for (const auto& u : req.upsertions) {
        if (changes_per_pair[pair_key(u.name, u.mechanism)] > 1)
            refuse(u.name, {ErrorCode::duplicate_resource,
                            "A user credential cannot be altered twice in the same request"});
        else if (auto why = upsertion_refusal(u))
            refuse(u.name, std::move(*why));
    }

    // The valid users' changes, in one write.
    std::vector<security::CredentialStore::Change> changes;
    for (const auto& d : req.deletions)
        if (!refusal[d.name])
            changes.push_back({d.name, *mechanism_of_type(d.mechanism), std::nullopt});
    for (const auto& u : req.upsertions) {
        if (refusal[u.name])
            continue;
        auto mechanism = *mechanism_of_type(u.mechanism);
        changes.push_back(
            {u.name, mechanism,
             security::scram_credential_from_salted_password(
                 mechanism, as_string(u.salted_password), as_string(u.salt), u.iterations)});
    }
    std::optional<std::string> write_error;
    if (!changes.empty()) {
        if (auto applied = store.apply(changes); !applied)
            write_error = applied.error().message;
    }

    for (const auto& user : order) {
        protocol::AlterUserScramCredentialsResult result;
        result.user = user;
        if (const auto& why = refusal[user]) {
            result.error_code = why->code;
            result.error_message = why->message;
        } else if (write_error) {
            result.error_code = ErrorCode::unknown_server_error;
            result.error_message = *write_error;
        }
        resp.results.push_back(std::move(result));
    }
    co_return resp;
}

}  // namespace skiff::broker
