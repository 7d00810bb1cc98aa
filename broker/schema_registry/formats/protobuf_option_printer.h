// The options of a resolved schema element (FileOptions, MessageOptions, FieldOptions...) as
// .proto assignments, for the canonical text.
#pragma once

#include <google/protobuf/descriptor.h>
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

}  // namespace skiff::schema_registry::protobuf
