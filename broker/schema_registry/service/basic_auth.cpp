#include "broker/schema_registry/service/basic_auth.h"

#include "broker/security/scram.h"

namespace skiff::broker::schema_registry_service {
namespace {
constexpr auto kRemember = std::chrono::minutes(1);
constexpr size_t kMaxRemembered = 10000;  // bounded even under a flood of distinct passwords
}  // namespace

std::optional<std::string> BasicAuthenticator::authenticate(
    std::optional<std::string_view> authorization) {
    if (!authorization)
        return std::nullopt;
    std::string_view value = *authorization;
    constexpr std::string_view kScheme = "Basic ";
    if (value.size() <= kScheme.size() || value.substr(0, kScheme.size()) != kScheme)
        return std::nullopt;
    value.remove_prefix(kScheme.size());
    while (!value.empty() && value.front() == ' ')
        value.remove_prefix(1);
    auto decoded = security::base64_decode(value);
    if (!decoded)
        return std::nullopt;
    const auto colon = decoded->find(':');
    if (colon == std::string::npos || colon == 0)
        return std::nullopt;
    const std::string user = decoded->substr(0, colon);
    if (!check_password(user, std::string_view(*decoded).substr(colon + 1)))
        return std::nullopt;
    return "User:" + user;
}

bool BasicAuthenticator::check_password(const std::string& user, std::string_view password) {
    using security::ScramMechanism;
    const auto now = std::chrono::steady_clock::now();
    const std::string key =
        user + '\0' + security::scram_hash(ScramMechanism::sha256, std::string(password));
    for (auto mechanism : {ScramMechanism::sha512, ScramMechanism::sha256}) {
        auto credential = users_.lookup(user, mechanism);
        if (!credential)
            continue;
        {
            std::lock_guard lock(mutex_);
            auto it = remembered_.find(key);
            if (it != remembered_.end() && it->second.until > now &&
                it->second.stored_key == credential->stored_key)
                return true;
        }
        const std::string salted = security::scram_salted_password(
            mechanism, password, credential->salt, credential->iterations);
        const std::string stored =
            security::scram_hash(mechanism, security::scram_hmac(mechanism, salted, "Client Key"));
        if (!security::scram_equal_constant_time(stored, credential->stored_key))
            return false;
        std::lock_guard lock(mutex_);
        if (remembered_.size() >= kMaxRemembered)
            remembered_.clear();
        remembered_[key] = {credential->stored_key, now + kRemember};
        return true;
    }
    return false;
}

}  // namespace skiff::broker::schema_registry_service
