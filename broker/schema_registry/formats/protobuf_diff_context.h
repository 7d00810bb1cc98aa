// What the compatibility walk (protobuf_compatibility.cpp, protobuf_field_compatibility.cpp)
// carries: both schemas, the path of the element being compared ("#/Person/2"), the messages
// being compared (recursive types end there) and the differences found so far.
#pragma once

#include "broker/schema_registry/formats/protobuf_difference.h"
#include "broker/schema_registry/formats/protobuf_schema.h"

#include <google/protobuf/descriptor.h>

#include <set>
#include <string>
#include <vector>

namespace skiff::schema_registry::protobuf {

class DiffContext {
  public:
    DiffContext(const ProtobufSchema& writer, const ProtobufSchema& reader)
        : original(writer), update(reader) {}

    void add(DifferenceType type, std::string detail = {}) {
        std::string text = "#/";
        for (size_t i = 0; i < path.size(); ++i)
            text += (i ? "/" : "") + path[i];
        differences.push_back({type, std::move(text), std::move(detail)});
    }

    // One more path segment for the lifetime of the scope.
    class PathScope {
      public:
        PathScope(DiffContext& context, std::string segment) : context_(context) {
            context_.path.push_back(std::move(segment));
        }
        ~PathScope() { context_.path.pop_back(); }
        PathScope(const PathScope&) = delete;
        PathScope& operator=(const PathScope&) = delete;

      private:
        DiffContext& context_;
    };

    const ProtobufSchema& original;  // the writer's (previous) schema
    const ProtobufSchema& update;    // the reader's (updated) schema
    std::vector<std::string> path;
    std::set<const google::protobuf::Descriptor*> comparing;  // original messages on the stack
    std::vector<Difference> differences;
};

void compare_messages(DiffContext& context, const google::protobuf::Descriptor& original,
                      const google::protobuf::Descriptor& update);
void compare_fields(DiffContext& context, const google::protobuf::FieldDescriptor& original,
                    const google::protobuf::FieldDescriptor& update);

}  // namespace skiff::schema_registry::protobuf
