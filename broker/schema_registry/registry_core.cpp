#include "broker/schema_registry/registry_core.h"

#include <algorithm>
#include <utility>

namespace skiff::schema_registry {
namespace {

// Stored references nest; a chain deeper than this is a cycle or an attack, not a schema.
constexpr int kMaxReferenceDepth = 64;
// Parsed stored versions kept; past this the cache starts over (it only saves parse time).
constexpr size_t kMaxParsedVersions = 8192;

std::string invalid_schema_message(std::string_view schema_type, std::string_view detail) {
    return "Invalid schema of type " + std::string(schema_type) +
           ", details: " + std::string(detail);
}

}  // namespace

RegistryCore::RegistryCore(SchemaLog& log, RegistrySettings settings)
    : log_(log), settings_(std::move(settings)) {
    if (!settings_.formats)
        settings_.formats = find_format;
}

const SchemaFormat* RegistryCore::format(std::string_view schema_type) const {
    return settings_.formats(schema_type);
}

Expected<void, RestError> RegistryCore::write(const RecordKey& key,
                                              const std::optional<std::string>& value,
                                              std::string_view operation) {
    const std::string key_text = encode_key(key);
    std::optional<std::string_view> value_text;
    if (value)
        value_text = *value;
    if (std::optional<std::string> failure = log_.append(key_text, value_text))
        return unexpected(errors::store_error(operation, *failure));
    {
        std::unique_lock<std::shared_mutex> lock(state_mutex_);
        apply_record(state_, key_text, value_text);
    }
    // A stored version that is gone may have been what another one's references resolved to.
    if ((key.kind == RecordKind::kSchema && !value) || key.kind == RecordKind::kClearSubject)
        forget_parsed_versions();
    return {};
}

int32_t RegistryCore::reserve_schema_id() {
    reserved_id_ = std::max(reserved_id_, state_.max_id()) + 1;
    return reserved_id_;
}

ApplyOutcome RegistryCore::replay(std::string_view key, std::optional<std::string_view> value) {
    std::unique_lock<std::mutex> writer(write_mutex_);
    ApplyOutcome outcome;
    {
        std::unique_lock<std::shared_mutex> lock(state_mutex_);
        outcome = apply_record(state_, key, value);
    }
    switch (outcome) {
        case ApplyOutcome::kApplied:
            replay_applied_.fetch_add(1, std::memory_order_relaxed);
            break;
        case ApplyOutcome::kUnreadable:
            replay_unreadable_.fetch_add(1, std::memory_order_relaxed);
            break;
        case ApplyOutcome::kConflictingId:
            replay_conflicting_ids_.fetch_add(1, std::memory_order_relaxed);
            break;
    }
    forget_parsed_versions();
    return outcome;
}

ReplayStats RegistryCore::replay_stats() const {
    return {replay_applied_.load(std::memory_order_relaxed),
            replay_unreadable_.load(std::memory_order_relaxed),
            replay_conflicting_ids_.load(std::memory_order_relaxed)};
}

RegistryMode RegistryCore::mode_in_scope(std::string_view subject) const {
    if (std::optional<RegistryMode> mode = state_.mode(subject))
        return *mode;
    return state_.mode(std::nullopt).value_or(RegistryMode::kReadWrite);
}

CompatibilityLevel RegistryCore::compatibility_in_scope(std::string_view subject) const {
    if (std::optional<CompatibilityLevel> level = state_.compatibility(subject))
        return *level;
    return state_.compatibility(std::nullopt).value_or(settings_.default_compatibility);
}

std::optional<std::string> RegistryCore::collect_references(
    const std::vector<SchemaReference>& references, ReferencePolicy policy, int depth,
    std::vector<std::string>& visited, std::vector<ResolvedReference>& resolved,
    std::vector<SchemaReference>* top_level) const {
    if (depth > kMaxReferenceDepth)
        return "References nest more than " + std::to_string(kMaxReferenceDepth) + " deep";
    for (size_t i = 0; i < references.size(); ++i) {
        const SchemaReference& ref = references[i];
        if (ref.name.empty() || ref.subject.empty()) {
            return "Invalid reference: SchemaReference{name='" + ref.name + "', subject='" +
                   ref.subject + "', version=" + std::to_string(ref.version) + "}";
        }
        const SchemaVersion* target = ref.version == -1
                                          ? state_.latest_live_version(ref.subject)
                                          : state_.find_version(ref.subject, ref.version);
        if (target != nullptr && target->deleted && policy == ReferencePolicy::kLiveOnly)
            target = nullptr;
        if (target == nullptr) {
            return "No schema reference found for subject \"" + ref.subject + "\" and version " +
                   std::to_string(ref.version);
        }
        if (top_level != nullptr)
            (*top_level)[i].version = target->version;
        // A name already resolved (a diamond, or a cycle) is taken once, as Confluent does.
        if (std::find(visited.begin(), visited.end(), ref.name) != visited.end())
            continue;
        visited.push_back(ref.name);
        if (auto failure = collect_references(target->references, policy, depth + 1, visited,
                                              resolved, nullptr))
            return failure;
        resolved.push_back({ref.name, ref.subject, target->version, target->schema});
    }
    return std::nullopt;
}

Expected<std::shared_ptr<const ResolvedSchema>, RestError> RegistryCore::resolve(
    std::string_view schema_type, std::string_view text,
    const std::vector<SchemaReference>& references, ReferencePolicy policy, bool normalize) {
    const SchemaFormat* format = settings_.formats(schema_type);
    if (format == nullptr)
        return unexpected(
            errors::invalid_schema("Invalid schema type " + std::string(schema_type)));
    auto result = std::make_shared<ResolvedSchema>();
    result->format = format;
    result->schema_type = std::string(format->type());
    result->references = references;
    std::vector<std::string> visited;
    std::vector<ResolvedReference> resolved;
    if (auto failure =
            collect_references(references, policy, 0, visited, resolved, &result->references))
        return unexpected(errors::invalid_schema(invalid_schema_message(format->type(), *failure)));
    ParseOutcome parsed = format->parse(text, resolved, normalize);
    if (!parsed.schema)
        return unexpected(
            errors::invalid_schema(invalid_schema_message(format->type(), parsed.error)));
    result->parsed = std::move(parsed.schema);
    result->identity =
        schema_identity(result->schema_type, result->parsed->canonical(), result->references);
    return std::shared_ptr<const ResolvedSchema>(std::move(result));
}

std::shared_ptr<const ResolvedBody> RegistryCore::resolve_body(std::string_view body,
                                                               ReferencePolicy policy,
                                                               bool normalize) {
    std::string cache_key;
    cache_key.reserve(body.size() + 2);
    cache_key.push_back(policy == ReferencePolicy::kLiveOnly ? 'L' : 'D');
    cache_key.push_back(normalize ? 'N' : '-');
    cache_key.append(body);
    const uint64_t generation = state_.generation();
    {
        std::shared_lock<std::shared_mutex> lock(body_cache_mutex_);
        auto it = body_cache_.find(cache_key);
        if (it != body_cache_.end() && it->second.generation == generation)
            return it->second.body;
    }
    auto result = std::make_shared<ResolvedBody>();
    result->request = parse_schema_request(body);
    if (result->request && !result->request->schema.empty()) {
        const SchemaRequest& request = *result->request;
        auto schema =
            resolve(request.schema_type, request.schema, request.references, policy, normalize);
        if (schema)
            result->schema = *schema;
        else
            result->schema_error = schema.error();
    }
    const size_t cost = 3 * cache_key.size() + 256;
    if (cost <= settings_.parse_cache_bytes) {
        std::unique_lock<std::shared_mutex> lock(body_cache_mutex_);
        if (body_cache_bytes_ + cost > settings_.parse_cache_bytes) {
            body_cache_.clear();  // rare: starting over is cheaper than tracking age
            body_cache_bytes_ = 0;
        }
        auto [it, inserted] =
            body_cache_.insert_or_assign(std::move(cache_key), CachedBody{generation, result});
        if (inserted)
            body_cache_bytes_ += cost;
    }
    return result;
}

Expected<std::shared_ptr<const ParsedSchema>, RestError> RegistryCore::parsed_version(
    const SchemaVersion& v) {
    {
        std::lock_guard<std::mutex> lock(parsed_mutex_);
        auto it = parsed_by_id_.find(v.id);
        if (it != parsed_by_id_.end())
            return it->second;
    }
    auto resolved =
        resolve(v.schema_type, v.schema, v.references, ReferencePolicy::kIncludeDeleted, false);
    if (!resolved)
        return unexpected(resolved.error());
    std::lock_guard<std::mutex> lock(parsed_mutex_);
    if (parsed_by_id_.size() >= kMaxParsedVersions)
        parsed_by_id_.clear();
    parsed_by_id_[v.id] = (*resolved)->parsed;
    return (*resolved)->parsed;
}

void RegistryCore::forget_parsed_versions() {
    std::lock_guard<std::mutex> lock(parsed_mutex_);
    parsed_by_id_.clear();
}

}  // namespace skiff::schema_registry
