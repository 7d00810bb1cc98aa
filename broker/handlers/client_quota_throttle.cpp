#include "broker/handlers/client_quota_throttle.h"

#include <string>

#include "broker/broker.h"

namespace skiff::broker {
namespace {

std::string_view client_id(const RequestContext& ctx) {
    return ctx.header.client_id ? std::string_view(*ctx.header.client_id) : std::string_view();
}

}  // namespace

int32_t record_quota(RequestContext& ctx, quotas::QuotaKind kind, int64_t bytes) {
    auto& manager = ctx.broker.quota_manager();
    if (!manager.enabled(kind))
        return 0;
    const int32_t t = manager.record(kind, quota_user(ctx), client_id(ctx),
                                     static_cast<double>(bytes), quotas::sensor_clock_ms());
    ctx.throttle_ms = std::max(ctx.throttle_ms, t);
    return t;
}

void unrecord_quota(RequestContext& ctx, quotas::QuotaKind kind, int64_t bytes) {
    ctx.broker.quota_manager().unrecord(kind, quota_user(ctx), client_id(ctx),
                                        static_cast<double>(bytes), quotas::sensor_clock_ms());
}

std::optional<int64_t> quota_max_bytes(RequestContext& ctx, quotas::QuotaKind kind) {
    return ctx.broker.quota_manager().max_value_in_window(kind, quota_user(ctx), client_id(ctx));
}

}  // namespace skiff::broker
