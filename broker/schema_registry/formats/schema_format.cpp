#include "broker/schema_registry/formats/schema_format.h"

namespace skiff::schema_registry {

std::string Incompatibility::to_string() const {
    return "{errorType:'" + error_type + "', description:'" + description + "', additionalInfo:'" +
           additional_info + "'}";
}

const SchemaFormat* find_format(std::string_view type) {
    if (type.empty() || type == "AVRO")
        return &avro_format();
    if (type == "JSON")
        return &json_schema_format();
    if (type == "PROTOBUF")
        return &protobuf_format();
    return nullptr;
}

std::vector<std::string_view> format_types() {
    return {"JSON", "PROTOBUF", "AVRO"};
}

}  // namespace skiff::schema_registry
