#include "broker/control/control_plane.h"

namespace skiff::broker::control {

std::string_view outage_mode_name(OutageMode mode) {
    return mode == OutageMode::refuse ? "refuse" : "blackhole";
}

size_t ControlPlane::start_outage(const Outage& outage) {
    {
        std::lock_guard lock(outage_mutex_);
        outage_ = outage;
        outage_active_.store(true, std::memory_order_release);
    }
    outages_.fetch_add(1, std::memory_order_relaxed);
    // Blackholed connections stay open and silent; refused ones go now, in-flight requests
    // with them, as when a broker's process dies.
    if (outage.mode == OutageMode::refuse && closer_)
        return closer_(outage.listener);
    return 0;
}

bool ControlPlane::end_outage() {
    std::lock_guard lock(outage_mutex_);
    const bool was = outage_.has_value();
    outage_.reset();
    outage_active_.store(false, std::memory_order_release);
    return was;
}

std::optional<Outage> ControlPlane::outage() const {
    std::lock_guard lock(outage_mutex_);
    if (outage_ && std::chrono::steady_clock::now() >= outage_->until)
        return std::nullopt;
    return outage_;
}

bool ControlPlane::covers(std::string_view listener, OutageMode mode) const {
    if (!outage_active_.load(std::memory_order_acquire))
        return false;
    std::lock_guard lock(outage_mutex_);
    if (!outage_ || outage_->mode != mode || std::chrono::steady_clock::now() >= outage_->until)
        return false;
    return !outage_->listener || *outage_->listener == listener;
}

}  // namespace skiff::broker::control
