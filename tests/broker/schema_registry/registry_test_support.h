// What the registry's tests share: an in-memory _schemas log that can be told to fail, a
// test-only schema type with deterministic verdicts, and a small client that calls Registry the
// way the HTTP server will.
//
// The test schema type reads JSON objects {"fields": ["a", "b?"], "refs": ["x"]}: a field ending
// in '?' has a default. Its canonical text is the JSON re-dumped compactly with sorted keys
// (normalize also sorts "fields"). A reader can read a writer's data unless the reader has a field
// without a default that the writer lacks (Avro's rule, reduced to names). "refs" names the
// references the schema needs: each must be among those the registry resolved.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/schema_registry/formats/schema_format.h"
#include "broker/schema_registry/registry.h"
#include "broker/schema_registry/schema_log.h"

namespace skiff::schema_registry::testing {

class MemorySchemaLog final : public SchemaLog {
  public:
    struct Record {
        std::string key;
        std::optional<std::string> value;
    };

    std::optional<std::string> append(std::string_view key,
                                      std::optional<std::string_view> value) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++attempts_;
        if (passes_before_failure_ == 0) {
            passes_before_failure_ = -1;
            return std::string("the disk is full");
        }
        if (passes_before_failure_ > 0)
            --passes_before_failure_;
        if (fail_always_ || fail_next_ > 0) {
            if (fail_next_ > 0)
                --fail_next_;
            return std::string("the disk is full");
        }
        records_.push_back({std::string(key), value
                                                  ? std::optional<std::string>(std::string(*value))
                                                  : std::nullopt});
        return std::nullopt;
    }

    void fail_next(int count = 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        fail_next_ = count;
    }
    // Lets `passes` appends through, then fails one.
    void fail_after(int passes) {
        std::lock_guard<std::mutex> lock(mutex_);
        passes_before_failure_ = passes;
    }
    void fail_always(bool on) {
        std::lock_guard<std::mutex> lock(mutex_);
        fail_always_ = on;
    }
    std::vector<Record> records() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return records_;
    }
    size_t size() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return records_.size();
    }
    int attempts() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return attempts_;
    }

  private:
    mutable std::mutex mutex_;
    std::vector<Record> records_;
    int fail_next_ = 0;
    int passes_before_failure_ = -1;
    bool fail_always_ = false;
    int attempts_ = 0;
};

class TestParsedSchema final : public ParsedSchema {
  public:
    TestParsedSchema(std::string canonical, std::vector<std::string> fields)
        : canonical_(std::move(canonical)), fields_(std::move(fields)) {}
    const std::string& canonical() const override { return canonical_; }
    std::optional<std::string> formatted(std::string_view format) const override {
        if (format == "serialized")
            return "serialized:" + canonical_;
        return std::nullopt;
    }
    const std::vector<std::string>& fields() const { return fields_; }

  private:
    std::string canonical_;
    std::vector<std::string> fields_;
};

class TestFormat final : public SchemaFormat {
  public:
    explicit TestFormat(std::string type) : type_(std::move(type)) {}
    std::string_view type() const override { return type_; }

    ParseOutcome parse(std::string_view text, const std::vector<ResolvedReference>& references,
                       bool normalize) const override {
        parses.fetch_add(1);
        nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
        if (json.is_discarded() || !json.is_object() || !json.contains("fields") ||
            !json["fields"].is_array())
            return {nullptr, "not a test schema: " + std::string(text)};
        std::vector<std::string> fields;
        for (const auto& f : json["fields"]) {
            if (!f.is_string())
                return {nullptr, "a field name must be a string"};
            fields.push_back(f.get<std::string>());
        }
        if (json.contains("refs")) {
            for (const auto& r : json["refs"]) {
                const std::string name = r.is_string() ? r.get<std::string>() : "";
                const bool found = std::any_of(references.begin(), references.end(),
                                               [&](const auto& rr) { return rr.name == name; });
                if (!found)
                    return {nullptr, "unknown reference '" + name + "'"};
            }
        }
        if (normalize) {
            std::sort(fields.begin(), fields.end());
            json["fields"] = fields;
        }
        return {std::make_shared<TestParsedSchema>(json.dump(), fields), ""};
    }

    std::vector<Incompatibility> check(const ParsedSchema& updated,
                                       const ParsedSchema& previous) const override {
        const auto& reader = static_cast<const TestParsedSchema&>(updated).fields();
        const auto& writer = static_cast<const TestParsedSchema&>(previous).fields();
        std::vector<Incompatibility> found;
        for (const std::string& f : reader) {
            if (f.ends_with("?"))
                continue;
            const bool in_writer = std::any_of(writer.begin(), writer.end(), [&](const auto& w) {
                return w == f || w == f + "?";
            });
            if (!in_writer)
                found.push_back({"READER_FIELD_MISSING_DEFAULT_VALUE",
                                 "The field '" + f + "' has no default value", f});
        }
        return found;
    }

    mutable std::atomic<int> parses{0};

  private:
    std::string type_;
};

struct TestFormats {
    TestFormat avro{"AVRO"};
    TestFormat json{"JSON"};
    TestFormat protobuf{"PROTOBUF"};

    const SchemaFormat* find(std::string_view type) const {
        if (type.empty() || type == "AVRO")
            return &avro;
        if (type == "JSON")
            return &json;
        if (type == "PROTOBUF")
            return &protobuf;
        return nullptr;
    }
    int parses() const { return avro.parses + json.parses + protobuf.parses; }
};

// A schema of the test type with these fields, as a registration body's "schema" string.
inline std::string fields_schema(std::vector<std::string> fields,
                                 std::vector<std::string> refs = {}) {
    nlohmann::json json;
    json["fields"] = fields;
    if (!refs.empty())
        json["refs"] = refs;
    return json.dump();
}

struct Answer {
    int status = 0;
    std::string body;
    nlohmann::json json;  // null when the body is not JSON
    int error_code() const { return json.is_object() ? json.value("error_code", 0) : 0; }
};

// One call to a registry; `target` may carry a query string ("/subjects?deleted=true"), which
// is split but not percent-decoded.
inline Answer call_registry(Registry& registry, std::string method, std::string_view target,
                            std::string body = "", std::string principal = "User:ANONYMOUS") {
    RestRequest request;
    request.method = std::move(method);
    request.body = std::move(body);
    request.principal = std::move(principal);
    const size_t question = target.find('?');
    request.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) {
        std::string_view query = target.substr(question + 1);
        while (!query.empty()) {
            const size_t amp = query.find('&');
            const std::string_view pair = query.substr(0, amp);
            const size_t eq = pair.find('=');
            request.query.emplace(
                std::string(pair.substr(0, eq)),
                eq == std::string_view::npos ? std::string() : std::string(pair.substr(eq + 1)));
            query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        }
    }
    RestResponse response = registry.handle(request);
    Answer answer{response.status, response.body, nullptr};
    answer.json = nlohmann::json::parse(response.body, nullptr, false);
    if (answer.json.is_discarded())
        answer.json = nullptr;
    return answer;
}

// A registry on an in-memory log, and calls to it.
class RegistryClient {
  public:
    explicit RegistryClient(RegistrySettings settings = {}) : settings_(std::move(settings)) {
        settings_.formats = [this](std::string_view type) { return formats.find(type); };
        registry = std::make_unique<Registry>(log, settings_);
    }

    Answer call(std::string method, std::string_view target, std::string body = "",
                std::string principal = "User:ANONYMOUS") {
        return call_registry(*registry, std::move(method), target, std::move(body),
                             std::move(principal));
    }
    Answer get(std::string_view target) { return call("GET", target); }
    Answer post(std::string_view target, const nlohmann::json& body) {
        return call("POST", target, body.dump());
    }
    Answer put(std::string_view target, const nlohmann::json& body) {
        return call("PUT", target, body.dump());
    }
    Answer del(std::string_view target) { return call("DELETE", target); }

    // Registers and returns the id; fails the test on any error.
    int register_schema(std::string_view subject, const std::string& schema,
                        const nlohmann::json& extra = nlohmann::json::object()) {
        nlohmann::json body = extra;
        body["schema"] = schema;
        Answer a = post("/subjects/" + std::string(subject) + "/versions", body);
        EXPECT_EQ(a.status, 200) << a.body;
        return a.json.is_object() ? a.json.value("id", -1) : -1;
    }

    // A new registry fed every record this one's log holds: what a restart would rebuild.
    std::unique_ptr<Registry> replayed(MemorySchemaLog& new_log) {
        auto other = std::make_unique<Registry>(new_log, settings_);
        for (const auto& r : log.records()) {
            other->replay(r.key,
                          r.value ? std::optional<std::string_view>(*r.value) : std::nullopt);
        }
        return other;
    }

    TestFormats formats;
    MemorySchemaLog log;
    std::unique_ptr<Registry> registry;

  private:
    RegistrySettings settings_;
};

}  // namespace skiff::schema_registry::testing
