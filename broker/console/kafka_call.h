// The console's way into the broker: a Kafka request, built as a client would build it, served
// by the same handler that serves it on a Kafka listener, as the console's caller. So a topic
// created, a config altered or a record produced from the console is checked exactly as the
// Kafka request would be (ACLs for the caller's principal and address, topic and config
// validation, read-only internal topics), and the console has no second copy of any of it.
//
// The request runs on the calling thread (an HTTP server thread, never one of the Kafka I/O
// threads) in an io_context of its own, until the handler has answered. File ranges in the
// answer (a Fetch's records, which a Kafka connection sends with sendfile) are read into memory
// here, so the decoded message's byte fields are views into KafkaReply::bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "broker/net/session.h"
#include "protocol/codec.h"
#include "protocol/expected.h"

namespace skiff::broker {
class Broker;
class RequestRouter;
}  // namespace skiff::broker

namespace skiff::broker::console {

// Who is asking: the principal the console authenticated ("User:ANONYMOUS" without
// authentication) and the HTTP client's address, which ACLs may name as the host.
struct Caller {
    std::string principal = "User:ANONYMOUS";
    std::string host = "127.0.0.1";
};

template <class Resp>
struct KafkaReply {
    std::vector<std::byte> bytes;  // the response body; `message` points into it
    Resp message;
};

class KafkaCall {
  public:
    // `listener`: the Kafka listener whose name the requests are served as (Metadata answers
    // with its advertised address); the first configured one when empty.
    KafkaCall(Broker& broker, const RequestRouter& router, Caller caller,
              std::string listener = {});

    // Sends `request` at `version` and decodes the answer, or says why there is none (the
    // handler closed the "connection": a request it could not serve; or an undecodable answer).
    template <class Resp, class Req>
    Expected<KafkaReply<Resp>, std::string> call(const Req& request, int16_t version) {
        auto frame = protocol::encode_request(request, version, ++correlation_id_, kClientId);
        auto body = exchange(std::span<const std::byte>(frame).subspan(4),
                             static_cast<int16_t>(Req::api_key), version);
        if (!body)
            return unexpected(body.error());
        KafkaReply<Resp> reply{std::move(*body), {}};
        auto decoded = protocol::decode_message<Resp>(reply.bytes, version);
        if (!decoded)
            return unexpected(std::string("undecodable answer from the broker"));
        reply.message = std::move(*decoded);
        return reply;
    }

    const Caller& caller() const { return caller_; }

    static constexpr const char* kClientId = "skiff-console";

  private:
    // Dispatches one request frame (without its size) and returns the response body (after
    // the response header), file ranges read in.
    Expected<std::vector<std::byte>, std::string> exchange(std::span<const std::byte> frame,
                                                           int16_t api_key, int16_t version);

    Broker& broker_;
    const RequestRouter& router_;
    Caller caller_;
    std::string listener_;
    Session session_;
    int32_t correlation_id_ = 0;
};

}  // namespace skiff::broker::console
