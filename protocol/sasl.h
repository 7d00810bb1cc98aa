// SaslHandshake (key 17, versions 0-1, never flexible) and SaslAuthenticate (key 36, versions
// 0-2, flexible from 2): a client on a SASL listener names its mechanism, then sends the
// mechanism's tokens, each answered with the server's.
//   SaslHandshake v0: after it the tokens go unframed (a 4-byte size, then the token, no request
//   header), as clients before Kafka 1.0 sent them. v1: the tokens go in SaslAuthenticate.
//   SaslAuthenticate v1 adds session_lifetime_ms (KIP-368: how long the authentication holds
//   before the client must re-authenticate; 0 = for as long as the connection lasts).
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

struct SaslHandshakeRequest {
    static constexpr ApiKey api_key = ApiKey::sasl_handshake;
    std::string mechanism;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("mechanism", m.mechanism, since(0));
    }
};

struct SaslHandshakeResponse {
    static constexpr ApiKey api_key = ApiKey::sasl_handshake;
    ErrorCode error_code = ErrorCode::none;
    std::vector<std::string> mechanisms;  // the ones the listener enables

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("mechanisms", m.mechanisms, since(0));
    }
};

struct SaslAuthenticateRequest {
    static constexpr ApiKey api_key = ApiKey::sasl_authenticate;
    std::vector<std::byte> auth_bytes;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("auth_bytes", m.auth_bytes, since(0));
    }
};

struct SaslAuthenticateResponse {
    static constexpr ApiKey api_key = ApiKey::sasl_authenticate;
    ErrorCode error_code = ErrorCode::none;
    std::optional<std::string> error_message;
    std::vector<std::byte> auth_bytes;
    int64_t session_lifetime_ms = 0;

    template <class V, class Self>
    static void describe(V& v, Self& m) {
        v.field("error_code", m.error_code, since(0));
        v.field("error_message", m.error_message, since(0), nullable(since(0)));
        v.field("auth_bytes", m.auth_bytes, since(0));
        v.field("session_lifetime_ms", m.session_lifetime_ms, since(1));
    }
};

}  // namespace skiff::protocol

SKIFF_DECLARE_CODEC(skiff::protocol::SaslHandshakeRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::SaslHandshakeResponse)
SKIFF_DECLARE_CODEC(skiff::protocol::SaslAuthenticateRequest)
SKIFF_DECLARE_CODEC(skiff::protocol::SaslAuthenticateResponse)
