// What the REST Proxy v3 routes share (broker/console/rest_v3/).
#pragma once

#include <optional>
#include <string>

#include "broker/console/console_route.h"
#include "protocol/expected.h"
#include "protocol/metadata.h"

namespace skiff::broker::console::rest_v3 {

// "http://<the Host the client used>", the start of every `self` and `related` link.
std::string base_url(const ApiCall& call);
// .../v3/clusters/<skiff's cluster id>
std::string cluster_url(const ApiCall& call);
// 404 in REST Proxy's shape unless the path's {cluster_id} is skiff's.
std::optional<http::HttpResponse> check_cluster(const ApiCall& call);
// Metadata for one topic, or every topic (nullopt), never creating one.
Expected<protocol::MetadataResponse, http::HttpResponse> topic_metadata(
    ApiCall& call, const std::optional<std::string>& topic);

// POST /v3/clusters/{cluster_id}/topics/{topic}/records (rest_v3_produce.cpp).
http::HttpResponse produce_records(ApiCall& call);

}  // namespace skiff::broker::console::rest_v3
