// broker/share/share_membership.h over the group coordinator's share groups and the group
// configs: what ShareFetch and ShareAcknowledge ask of share-group membership. Owned by the
// Broker, set with Broker::set_share_membership at start-up.
#pragma once

#include "broker/group/group_configs.h"
#include "broker/group/group_coordinator.h"
#include "broker/share/share_membership.h"

namespace skiff::broker::group::share {

class CoordinatorShareMembership final : public broker::share::ShareMembership {
  public:
    CoordinatorShareMembership(GroupCoordinator& groups, GroupConfigs& configs)
        : groups_(groups), configs_(configs) {}

    protocol::ErrorCode check_member(const std::string& group_id,
                                     const std::string& member_id) const override {
        return groups_.share_check_member(group_id, member_id);
    }
    broker::share::ShareGroupConfig config(const std::string& group_id) const override {
        return configs_.share_config(group_id);
    }
    std::optional<int32_t> share_group_size(const std::string& group_id) const override {
        return groups_.share_group_size(group_id);
    }
    void set_listener(Listener listener) override {
        groups_.set_share_listener(std::move(listener));
    }

  private:
    GroupCoordinator& groups_;
    GroupConfigs& configs_;
};

}  // namespace skiff::broker::group::share
