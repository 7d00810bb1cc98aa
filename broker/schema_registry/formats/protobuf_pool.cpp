#include "broker/schema_registry/formats/protobuf_pool.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/api.pb.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/source_context.pb.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/type.pb.h>
#include <google/protobuf/wrappers.pb.h>

#include <algorithm>
#include <array>
#include <set>

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

// The files of google/protobuf/ that libprotobuf compiles in. Confluent's registry knows a few
// more (google/type/*, confluent/meta.proto): those need a reference here (see the doc's limits).
constexpr std::array<const char*, 11> kWellKnownImports = {
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/descriptor.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
};

// Each well-known file is in the generated pool only when its generated code is linked in: in the
// static binary an archive member nobody refers to is left out, and its file with it. Asking each
// file's descriptor once refers to every one of them (and registers it).
void link_well_known_files() {
    static const bool linked = [] {
        const gp::Descriptor* files[] = {
            gp::Any::descriptor(),
            gp::Api::descriptor(),
            gp::FileDescriptorProto::descriptor(),
            gp::Duration::descriptor(),
            gp::Empty::descriptor(),
            gp::FieldMask::descriptor(),
            gp::SourceContext::descriptor(),
            gp::Struct::descriptor(),
            gp::Timestamp::descriptor(),
            gp::Type::descriptor(),
            gp::DoubleValue::descriptor(),
        };
        return std::all_of(std::begin(files), std::end(files), [](auto* d) { return d; });
    }();
    (void)linked;
}

// Turns the pool's errors into one message. libprotobuf names the element at fault; where the
// file came as text, the parser's location table turns that into a line and column as well.
class PoolErrors final : public gp::DescriptorPool::ErrorCollector {
  public:
    explicit PoolErrors(const gp::compiler::SourceLocationTable* locations)
        : locations_(locations) {}

    void AddError(const std::string& filename, const std::string& element_name,
                  const gp::Message* descriptor, ErrorLocation location,
                  const std::string& message) override {
        if (!text_.empty())
            text_ += "; ";
        int line = 0;
        int column = 0;
        if (locations_ && locations_->Find(descriptor, location, &line, &column))
            text_ += std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": ";
        else if (!element_name.empty())
            text_ += element_name + ": ";
        text_ += message;
        if (filename != kDefaultFileName)
            text_ += " (in " + filename + ")";
    }
    const std::string& text() const { return text_; }

  private:
    const gp::compiler::SourceLocationTable* locations_;
    std::string text_;
};

// Builds files depth first, dependencies before the files that import them, so that a missing
// import is reported as such rather than as the pool's "has not been loaded".
class PoolBuilder {
  public:
    PoolBuilder(gp::DescriptorPool& pool, std::map<std::string, ProtoSource>& referenced)
        : pool_(pool), referenced_(referenced) {}

    const gp::FileDescriptor* build(const gp::FileDescriptorProto& file,
                                    const gp::compiler::SourceLocationTable* locations,
                                    std::string& error) {
        if (!in_progress_.insert(file.name()).second) {
            error = "import cycle through \"" + file.name() + "\"";
            return nullptr;
        }
        for (const auto& dependency : file.dependency()) {
            if (!ensure(dependency, file.name(), error))
                return nullptr;
        }
        PoolErrors errors(locations);
        const auto* built = pool_.BuildFileCollectingErrors(file, &errors);
        in_progress_.erase(file.name());
        if (!built)
            error = errors.text().empty() ? "the schema does not resolve" : errors.text();
        return built;
    }

  private:
    bool ensure(const std::string& import_path, const std::string& importer, std::string& error) {
        if (pool_.FindFileByName(import_path))
            return true;
        if (auto it = referenced_.find(import_path); it != referenced_.end())
            return build(it->second.file, it->second.locations.get(), error) != nullptr;
        if (is_well_known_import(import_path)) {
            link_well_known_files();
            const auto* compiled =
                gp::DescriptorPool::generated_pool()->FindFileByName(import_path);
            if (compiled) {
                gp::FileDescriptorProto file;
                compiled->CopyTo(&file);
                return build(file, nullptr, error) != nullptr;
            }
        }
        error = "import \"" + import_path + "\" of " +
                (importer == kDefaultFileName ? std::string("the schema") : importer) +
                " is not found: the schema needs a reference named \"" + import_path + "\"";
        return false;
    }

    gp::DescriptorPool& pool_;
    std::map<std::string, ProtoSource>& referenced_;
    std::set<std::string> in_progress_;
};

}  // namespace

bool is_well_known_import(const std::string& import_path) {
    return std::find(kWellKnownImports.begin(), kWellKnownImports.end(), import_path) !=
           kWellKnownImports.end();
}

ResolveOutcome resolve_schema(ProtoSource& source,
                              const std::vector<ResolvedReference>& references) {
    ResolvedSchema resolved;
    std::map<std::string, ProtoSource> referenced;
    for (const auto& reference : references) {
        // The same file can come twice when two references share a dependency; the first wins.
        if (referenced.count(reference.name))
            continue;
        auto read = read_proto_source(reference.schema);
        if (!read.source)
            return {std::nullopt, "reference \"" + reference.name + "\" (subject " +
                                      reference.subject + ", version " +
                                      std::to_string(reference.version) +
                                      ") is not a valid PROTOBUF schema: " + read.error};
        // The import path is the file's name in the pool, whatever a serialized descriptor says.
        read.source->file.set_name(reference.name);
        referenced.emplace(reference.name, std::move(*read.source));
        resolved.origins[reference.name] = FileOrigin{reference.subject, reference.version};
    }

    // Naming the file in place keeps the parser's location table, which points into it, valid.
    if (source.file.name().empty() || referenced.count(source.file.name()))
        source.file.set_name(kDefaultFileName);
    resolved.origins[source.file.name()] = FileOrigin{};

    auto pool = std::make_shared<gp::DescriptorPool>();
    PoolBuilder builder(*pool, referenced);
    std::string error;
    const auto* built = builder.build(source.file, source.locations.get(), error);
    if (!built)
        return {std::nullopt, error};
    resolved.file = built;
    resolved.pool = std::move(pool);
    return {std::move(resolved), {}};
}

}  // namespace skiff::schema_registry::protobuf
