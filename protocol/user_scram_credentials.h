// DescribeUserScramCredentials (key 50) and AlterUserScramCredentials (key 51), version 0 of each,
// flexible from 0 (KIP-554): how Kafka's admin clients list SCRAM users and add, change or remove
// their credentials without a password ever reaching the broker. An upsertion carries the salt
// and SaltedPassword (PBKDF2 of the password, computed by the client); the broker derives
// StoredKey and ServerKey from them and keeps only those.
//   Mechanism numbers are Kafka's ScramMechanism: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/api_key.h"
#include "protocol/codec.h"
#include "protocol/error_code.h"
#include "protocol/field_spec.h"

namespace skiff::protocol {

struct UserName {
    std::string name;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
    }
};

struct DescribeUserScramCredentialsRequest {
    static constexpr ApiKey api_key = ApiKey::describe_user_scram_credentials;
    std::optional<std::vector<UserName>> users;  // null or empty: every user

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("users", m.users, since(0), nullable(since(0)));
    }
};

struct CredentialInfo {
    int8_t mechanism = 0;
    int32_t iterations = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("mechanism", m.mechanism, since(0));
        v.field("iterations", m.iterations, since(0));
    }
};

struct DescribeUserScramCredentialsResult {
    std::string user;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<CredentialInfo> credential_infos;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("user", m.user, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("credential_infos", m.credential_infos, since(0));
    }
};

struct DescribeUserScramCredentialsResponse {
    static constexpr ApiKey api_key = ApiKey::describe_user_scram_credentials;
    int32_t throttle_time_ms = 0;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<DescribeUserScramCredentialsResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("results", m.results, since(0));
    }
};

struct ScramCredentialDeletion {
    std::string name;
    int8_t mechanism = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("mechanism", m.mechanism, since(0));
    }
};

struct ScramCredentialUpsertion {
    std::string name;
    int8_t mechanism = 0;
    int32_t iterations = 0;
    std::vector<std::byte> salt;
    std::vector<std::byte> salted_password;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("name", m.name, since(0));
        v.field("mechanism", m.mechanism, since(0));
        v.field("iterations", m.iterations, since(0));
        v.field("salt", m.salt, since(0));
        v.field("salted_password", m.salted_password, since(0));
    }
};

struct AlterUserScramCredentialsRequest {
    static constexpr ApiKey api_key = ApiKey::alter_user_scram_credentials;
    std::vector<ScramCredentialDeletion> deletions;
    std::vector<ScramCredentialUpsertion> upsertions;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("deletions", m.deletions, since(0));
        v.field("upsertions", m.upsertions, since(0));
    }
};

struct AlterUserScramCredentialsResult {
    std::string user;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("user", m.user, since(0));
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
    }
};

struct AlterUserScramCredentialsResponse {
    static constexpr ApiKey api_key = ApiKey::alter_user_scram_credentials;
    int32_t throttle_time_ms = 0;
    std::vector<AlterUserScramCredentialsResult> results;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("throttle_time_ms", m.throttle_time_ms, since(0));
        v.field("results", m.results, since(0));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::DescribeUserScramCredentialsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::DescribeUserScramCredentialsResponse)
SKIFF_DECLARE_CODEC(skiff::protocol::AlterUserScramCredentialsRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::AlterUserScramCredentialsResponse)
