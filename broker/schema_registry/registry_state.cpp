#include "broker/schema_registry/registry_state.h"

#include <algorithm>

namespace skiff::schema_registry {

std::string schema_identity(std::string_view schema_type, std::string_view schema,
                            const std::vector<SchemaReference>& references) {
    // Unit and record separators cannot appear in a type name or a subject; a schema text may
    // hold them, but it comes after the type and its length is written out.
    std::string identity;
    identity.reserve(schema_type.size() + schema.size() + 32);
    identity.append(schema_type).push_back('\x1f');
    identity.append(std::to_string(schema.size())).push_back('\x1f');
    identity.append(schema);
    for (const SchemaReference& r : references) {
        identity.push_back('\x1e');
        identity.append(std::to_string(r.name.size())).push_back('\x1f');
        identity.append(r.name).push_back('\x1f');
        identity.append(std::to_string(r.subject.size())).push_back('\x1f');
        identity.append(r.subject).push_back('\x1f');
        identity.append(std::to_string(r.version));
    }
    return identity;
}

const VersionMap* RegistryState::versions(std::string_view subject) const {
    auto it = subjects_.find(subject);
    return it == subjects_.end() ? nullptr : &it->second;
}

const SchemaVersion* RegistryState::find_version(std::string_view subject, int version) const {
    const VersionMap* vm = versions(subject);
    if (vm == nullptr)
        return nullptr;
    auto it = vm->find(version);
    return it == vm->end() ? nullptr : &it->second;
}

const SchemaVersion* RegistryState::latest_live_version(std::string_view subject) const {
    const VersionMap* vm = versions(subject);
    if (vm == nullptr)
        return nullptr;
    for (auto it = vm->rbegin(); it != vm->rend(); ++it) {
        if (!it->second.deleted)
            return &it->second;
    }
    return nullptr;
}

bool RegistryState::has_subject(std::string_view subject, bool include_deleted) const {
    const VersionMap* vm = versions(subject);
    if (vm == nullptr)
        return false;
    return include_deleted || latest_live_version(subject) != nullptr;
}

int RegistryState::next_version(std::string_view subject) const {
    const VersionMap* vm = versions(subject);
    return vm == nullptr || vm->empty() ? 1 : vm->rbegin()->first + 1;
}

bool RegistryState::has_live_version_with_id(std::string_view subject, int32_t id) const {
    const SchemaById* s = schema_by_id(id);
    if (s == nullptr)
        return false;
    auto uses = s->uses.find(subject);
    if (uses == s->uses.end())
        return false;
    for (int version : uses->second) {
        const SchemaVersion* v = find_version(subject, version);
        if (v != nullptr && !v->deleted)
            return true;
    }
    return false;
}

const SchemaById* RegistryState::schema_by_id(int32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
}

std::optional<int32_t> RegistryState::id_for_identity(const std::string& identity) const {
    auto it = id_by_identity_.find(identity);
    if (it == id_by_identity_.end())
        return std::nullopt;
    return it->second;
}

std::vector<int32_t> RegistryState::referenced_by(std::string_view subject, int version) const {
    std::vector<int32_t> ids;
    auto it = referenced_by_.find({std::string(subject), version});
    if (it != referenced_by_.end()) {
        for (const auto& [id, count] : it->second)
            ids.push_back(id);
    }
    return ids;  // sorted: the map is
}

std::optional<CompatibilityLevel> RegistryState::compatibility(
    std::optional<std::string_view> subject) const {
    if (!subject)
        return global_compatibility_;
    auto it = subject_compatibility_.find(*subject);
    if (it == subject_compatibility_.end())
        return std::nullopt;
    return it->second;
}

std::optional<RegistryMode> RegistryState::mode(std::optional<std::string_view> subject) const {
    if (!subject)
        return global_mode_;
    auto it = subject_modes_.find(*subject);
    if (it == subject_modes_.end())
        return std::nullopt;
    return it->second;
}

bool RegistryState::put_version(SchemaVersion version) {
    const std::string identity =
        schema_identity(version.schema_type, version.schema, version.references);
    auto holder = by_id_.find(version.id);
    if (holder != by_id_.end() && holder->second.identity != identity)
        return false;
    VersionMap& vm = subjects_[version.subject];
    auto existing = vm.find(version.version);
    if (existing != vm.end()) {
        unindex(existing->second);
        existing->second = std::move(version);
        index(existing->second);
    } else {
        auto [it, inserted] = vm.emplace(version.version, std::move(version));
        index(it->second);
    }
    ++generation_;
    return true;
}

void RegistryState::remove_version(std::string_view subject, int version) {
    auto s = subjects_.find(subject);
    if (s == subjects_.end())
        return;
    auto v = s->second.find(version);
    if (v == s->second.end())
        return;
    unindex(v->second);
    s->second.erase(v);
    if (s->second.empty())
        subjects_.erase(s);
    ++generation_;
}

void RegistryState::soft_delete_subject(std::string_view subject, int up_to_version) {
    auto s = subjects_.find(subject);
    if (s == subjects_.end())
        return;
    for (auto& [number, v] : s->second) {
        if (number > up_to_version)
            break;
        if (!v.deleted) {
            count_references(v, -1);
            v.deleted = true;
        }
    }
    ++generation_;
}

void RegistryState::clear_soft_deleted(std::optional<std::string_view> subject) {
    std::vector<std::pair<std::string, int>> doomed;
    for (const auto& [name, vm] : subjects_) {
        if (subject && name != *subject)
            continue;
        for (const auto& [number, v] : vm) {
            if (v.deleted)
                doomed.emplace_back(name, number);
        }
    }
    for (const auto& [name, number] : doomed)
        remove_version(name, number);
    ++generation_;
}

void RegistryState::set_compatibility(std::optional<std::string_view> subject,
                                      std::optional<CompatibilityLevel> level) {
    if (!subject) {
        global_compatibility_ = level;
    } else if (level) {
        subject_compatibility_.insert_or_assign(std::string(*subject), *level);
    } else if (auto it = subject_compatibility_.find(*subject);
               it != subject_compatibility_.end()) {
        subject_compatibility_.erase(it);
    }
}

void RegistryState::set_mode(std::optional<std::string_view> subject,
                             std::optional<RegistryMode> mode) {
    if (!subject) {
        global_mode_ = mode;
    } else if (mode) {
        subject_modes_.insert_or_assign(std::string(*subject), *mode);
    } else if (auto it = subject_modes_.find(*subject); it != subject_modes_.end()) {
        subject_modes_.erase(it);
    }
}

void RegistryState::index(const SchemaVersion& v) {
    SchemaById& holder = by_id_[v.id];
    if (holder.uses.empty()) {
        holder.schema_type = v.schema_type;
        holder.references = v.references;
        holder.schema = v.schema;
        holder.identity = schema_identity(v.schema_type, v.schema, v.references);
    }
    holder.uses[v.subject].insert(v.version);
    id_by_identity_[holder.identity] = v.id;
    max_id_ = std::max(max_id_, v.id);
    if (!v.deleted)
        count_references(v, +1);
}

void RegistryState::unindex(const SchemaVersion& v) {
    if (!v.deleted)
        count_references(v, -1);
    auto holder = by_id_.find(v.id);
    if (holder == by_id_.end())
        return;
    auto uses = holder->second.uses.find(v.subject);
    if (uses != holder->second.uses.end()) {
        uses->second.erase(v.version);
        if (uses->second.empty())
            holder->second.uses.erase(uses);
    }
    if (!holder->second.uses.empty())
        return;
    // The id has no use left: it is gone (its number stays taken, see max_id_). Another id
    // may hold the same schema (registered in IMPORT mode with its own id); it takes over.
    const std::string identity = std::move(holder->second.identity);
    by_id_.erase(holder);
    auto named = id_by_identity_.find(identity);
    if (named == id_by_identity_.end() || named->second != v.id)
        return;
    id_by_identity_.erase(named);
    for (const auto& [id, other] : by_id_) {
        if (other.identity == identity) {
            id_by_identity_[identity] = id;
            break;
        }
    }
}

void RegistryState::count_references(const SchemaVersion& v, int delta) {
    for (const SchemaReference& r : v.references) {
        auto key = std::make_pair(r.subject, r.version);
        auto& ids = referenced_by_[key];
        int& count = ids[v.id];
        count += delta;
        if (count <= 0)
            ids.erase(v.id);
        if (ids.empty())
            referenced_by_.erase(key);
    }
}

}  // namespace skiff::schema_registry
