#include "broker/schema_registry/formats/schema_format.h"

#include <gtest/gtest.h>

namespace skiff::schema_registry {
namespace {

TEST(SchemaFormat, TypesAreFoundByTheirApiNamesAndAvroIsTheDefault) {
    EXPECT_EQ(find_format("")->type(), "AVRO");
    EXPECT_EQ(find_format("AVRO")->type(), "AVRO");
    EXPECT_EQ(find_format("JSON")->type(), "JSON");
    EXPECT_EQ(find_format("PROTOBUF")->type(), "PROTOBUF");
    EXPECT_EQ(find_format("avro"), nullptr);
    EXPECT_EQ(find_format("XML"), nullptr);
    EXPECT_EQ(format_types().size(), 3u);
}

TEST(SchemaFormat, AnIncompatibilityPrintsAsConfluentPrintsIt) {
    Incompatibility i{"READER_FIELD_MISSING_DEFAULT_VALUE", "The field 'f' has no default", "f"};
    EXPECT_EQ(i.to_string(),
              "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The "
              "field 'f' has no default', additionalInfo:'f'}");
}

}  // namespace
}  // namespace skiff::schema_registry
