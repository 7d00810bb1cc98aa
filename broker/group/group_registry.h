// Every group the coordinator knows, by id, whatever its type; in id order, so listings and
// timer passes are deterministic. A group type's requests look up only groups of their own
// type (find_as), so a group id names one group of one type.
//
// Not thread-safe: the GroupCoordinator's mutex guards it.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "broker/group/group.h"

namespace skiff::broker::group {

class GroupRegistry {
  public:
    Group* find(const std::string& group_id) {
        auto it = groups_.find(group_id);
        return it == groups_.end() ? nullptr : it->second.get();
    }
    const Group* find(const std::string& group_id) const {
        auto it = groups_.find(group_id);
        return it == groups_.end() ? nullptr : it->second.get();
    }
    bool contains(const std::string& group_id) const { return groups_.count(group_id) > 0; }

    // The group if it exists and is a T (T::kType), else nullptr.
    template <class T>
    T* find_as(const std::string& group_id) {
        Group* g = find(group_id);
        return g && g->type() == T::kType ? static_cast<T*>(g) : nullptr;
    }
    template <class T>
    const T* find_as(const std::string& group_id) const {
        const Group* g = find(group_id);
        return g && g->type() == T::kType ? static_cast<const T*>(g) : nullptr;
    }

    // For an id no group has yet, of any type: callers look it up first. An id already taken
    // (say a lookup by find_as missed a group of another type) is a bug, not a request error.
    template <class T>
    T& add(std::unique_ptr<T> group) {
        T& added = *group;
        auto [it, inserted] = groups_.try_emplace(added.group_id(), std::move(group));
        if (!inserted)
            throw std::logic_error("group " + added.group_id() + " exists already");
        return added;
    }
    void erase(const std::string& group_id) { groups_.erase(group_id); }
    // Every group gone at once (broker/control's reset and restore).
    void clear() { groups_.clear(); }

    // f(Group&) for every group, in id order.
    template <class F>
    void for_each(F&& f) const {
        for (const auto& [id, g] : groups_)
            f(static_cast<const Group&>(*g));
    }
    // f(Group&) for every group, in id order, mutable.
    template <class F>
    void for_each_mutable(F&& f) {
        for (auto& [id, g] : groups_)
            f(*g);
    }
    // f(T&) for every group of type T, in id order.
    template <class T, class F>
    void for_each_of(F&& f) {
        for (auto& [id, g] : groups_)
            if (g->type() == T::kType)
                f(static_cast<T&>(*g));
    }

  private:
    std::map<std::string, std::unique_ptr<Group>> groups_;
};

}  // namespace skiff::broker::group
