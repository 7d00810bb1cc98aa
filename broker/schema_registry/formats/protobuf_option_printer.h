// The options of a resolved schema element (FileOptions, MessageOptions, FieldOptions...) as
// .proto assignments, for the canonical text (protobuf_printer.h).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/message.h>

#include <string>
#include <vector>

namespace skiff::schema_registry::protobuf {

// "name = value" for every option set on `options`, custom options as "(full.name) = value",
// message values in aggregate syntax ("{ a: 1 }"). Sorted by name (a repeated option's elements
// keep their order), so that the order in which an author wrote options never changes the
// canonical text. `pool` is the schema's: it knows the
// custom options (extensions of google.protobuf.*Options) the schema's imports declare.
std::vector<std::string> option_assignments(const google::protobuf::Message& options,
                                            const google::protobuf::DescriptorPool& pool);

// " [a = 1, b = 2]" as written after a field, an enum value or an extension range; "" when there
// are no assignments.
std::string bracketed(const std::vector<std::string>& assignments);

// The bracketed list after a field: its options, and its default and json_name, which are fields
// of the descriptor rather than options but are written as options. json_name only when it is
// not the one protoc derives from the name, so that descriptors that spell out the derived one
// (as protoc writes them) print as the text that did not. `written` is the field as read.
std::string field_option_list(const google::protobuf::FieldDescriptor& field,
                              const google::protobuf::FieldDescriptorProto& written,
                              const google::protobuf::DescriptorPool& pool);

}  // namespace skiff::schema_registry::protobuf
