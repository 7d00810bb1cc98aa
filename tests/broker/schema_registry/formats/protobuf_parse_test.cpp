// Reading PROTOBUF schemas: .proto text and base64 descriptors, references and well-known types,
// and the errors the registry answers 42201 with.
#include "broker/schema_registry/formats/protobuf_source.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

namespace skiff::schema_registry {
namespace {

using protobuf::base64_decode;
using protobuf::base64_encode;

ParseOutcome parse(std::string_view text, const std::vector<ResolvedReference>& references = {},
                   bool normalize = false) {
    return protobuf_format().parse(text, references, normalize);
}

std::string canonical(std::string_view text, const std::vector<ResolvedReference>& references = {},
                      bool normalize = false) {
    auto outcome = parse(text, references, normalize);
    EXPECT_TRUE(outcome.schema) << outcome.error;
    return outcome.schema ? outcome.schema->canonical() : "";
}

TEST(ProtobufParse, AValidSchemaIsPrintedInConfluentsLayout) {
    const auto text = canonical(R"(
        syntax = "proto3";
        package acme.v1;
        message Person {
            string name = 1;
            repeated Phone phones = 2;
            message Phone { string number = 1; }
        }
        enum Kind { UNKNOWN = 0; HOME = 1; })");
    EXPECT_EQ(text,
              "syntax = \"proto3\";\n"
              "package acme.v1;\n"
              "\n"
              "message Person {\n"
              "  string name = 1;\n"
              "  repeated Phone phones = 2;\n"
              "\n"
              "  message Phone {\n"
              "    string number = 1;\n"
              "  }\n"
              "}\n"
              "enum Kind {\n"
              "  UNKNOWN = 0;\n"
              "  HOME = 1;\n"
              "}\n");
}

TEST(ProtobufParse, ASyntaxErrorNamesItsLineAndColumn) {
    auto outcome = parse("syntax = \"proto3\";\nmessage A {\n  int32 x = 1\n}\n");
    EXPECT_FALSE(outcome.schema);
    EXPECT_NE(outcome.error.find("4:1: Expected \";\""), std::string::npos) << outcome.error;
}

TEST(ProtobufParse, AnUndefinedTypeIsRefusedWhereItIsUsed) {
    auto outcome = parse("syntax = \"proto3\";\nmessage A {\n  Missing m = 1;\n}\n");
    EXPECT_FALSE(outcome.schema);
    EXPECT_NE(outcome.error.find("3:3: \"Missing\" is not defined."), std::string::npos)
        << outcome.error;
}

TEST(ProtobufParse, TheDescriptorPoolChecksWhatTheParserCannot) {
    auto duplicate = parse("syntax = \"proto3\";\nmessage A { int32 x = 1; int32 y = 1; }");
    EXPECT_NE(duplicate.error.find("Field number 1 has already been used"), std::string::npos)
        << duplicate.error;
    auto required = parse("syntax = \"proto3\";\nmessage A { required int32 x = 1; }");
    EXPECT_NE(required.error.find("Required fields are not allowed in proto3"), std::string::npos)
        << required.error;
    auto enum_zero = parse("syntax = \"proto3\";\nenum E { ONE = 1; }");
    EXPECT_NE(enum_zero.error.find("first enum value must be zero"), std::string::npos)
        << enum_zero.error;
}

TEST(ProtobufParse, TextThatIsNeitherProtoNorADescriptorIsRefused) {
    for (const char* text : {"hello", "{\"type\": \"record\"}", "AAAA", "message {"}) {
        auto outcome = parse(text);
        EXPECT_FALSE(outcome.schema) << text;
        EXPECT_EQ(outcome.error.rfind("Invalid PROTOBUF schema: ", 0), 0u) << outcome.error;
    }
}

TEST(ProtobufParse, ASchemaWithoutSyntaxIsProto2) {
    EXPECT_EQ(canonical("message A { optional int32 x = 1; }"),
              "syntax = \"proto2\";\n\nmessage A {\n  optional int32 x = 1;\n}\n");
}

// What confluent-kafka-python 1.7's ProtobufSerializer registers: the base64 of the generated
// file's serialized FileDescriptorProto, type names fully qualified, and one reference per import.
TEST(ProtobufParse, ABase64SerializedDescriptorIsAcceptedAndStoredAsProtoText) {
    google::protobuf::FileDescriptorProto file;
    file.set_name("user.proto");
    file.set_package("shop");
    file.set_syntax("proto3");
    file.add_dependency("google/protobuf/timestamp.proto");
    auto* user = file.add_message_type();
    user->set_name("User");
    auto* name = user->add_field();
    name->set_name("name");
    name->set_number(1);
    name->set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
    name->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
    auto* created = user->add_field();
    created->set_name("created");
    created->set_number(2);
    created->set_type(google::protobuf::FieldDescriptorProto::TYPE_MESSAGE);
    created->set_type_name(".google.protobuf.Timestamp");
    created->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);

    EXPECT_EQ(canonical(base64_encode(file.SerializeAsString())),
              "syntax = \"proto3\";\n"
              "package shop;\n"
              "\n"
              "import \"google/protobuf/timestamp.proto\";\n"
              "\n"
              "message User {\n"
              "  string name = 1;\n"
              "  .google.protobuf.Timestamp created = 2;\n"
              "}\n");
}

TEST(ProtobufParse, ASerializedDescriptorAndItsTextHaveTheSameNormalizedForm) {
    const char* text = R"(syntax = "proto3"; package p;
        message A { B b = 1; map<string, B> bs = 2; }
        message B { int32 x = 1; })";
    auto schema = parse(text);
    ASSERT_TRUE(schema.schema) << schema.error;
    auto serialized = schema.schema->formatted("serialized");
    ASSERT_TRUE(serialized);
    EXPECT_EQ(canonical(*serialized, {}, true), canonical(text, {}, true));
}

TEST(ProtobufParse, SerializedIsTheBase64OfTheResolvedFileDescriptorProto) {
    auto schema = parse("syntax = \"proto3\"; package p; message A { B b = 1; } message B {}");
    ASSERT_TRUE(schema.schema) << schema.error;
    auto serialized = schema.schema->formatted("serialized");
    ASSERT_TRUE(serialized);
    auto bytes = base64_decode(*serialized);
    ASSERT_TRUE(bytes);
    google::protobuf::FileDescriptorProto file;
    ASSERT_TRUE(file.ParseFromString(*bytes));
    EXPECT_EQ(file.package(), "p");
    EXPECT_EQ(file.syntax(), "proto3");
    ASSERT_EQ(file.message_type_size(), 2);
    EXPECT_EQ(file.message_type(0).field(0).type_name(), ".p.B");
    EXPECT_FALSE(schema.schema->formatted("resolved"));
}

TEST(ProtobufParse, Base64IsStandardWithPaddingAndStrictWhenRead) {
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_encode("f"), "Zg==");
    EXPECT_EQ(base64_encode("fo"), "Zm8=");
    EXPECT_EQ(base64_encode("foo"), "Zm9v");
    EXPECT_EQ(base64_encode("\xff\xfe"), "//4=");
    EXPECT_EQ(base64_decode("Zm8="), "fo");
    EXPECT_EQ(base64_decode("//4="), "\xff\xfe");
    EXPECT_FALSE(base64_decode("Zm8"));       // not a multiple of 4
    EXPECT_FALSE(base64_decode("Zm9=\n"));    // whitespace
    EXPECT_FALSE(base64_decode("Zm9v-_=="));  // the URL alphabet
    EXPECT_FALSE(base64_decode("Zm9="));      // non-zero padding bits
}

const char* kAddress = R"(syntax = "proto3";
package geo;
message Address { string city = 1; })";

TEST(ProtobufParse, AnImportIsResolvedFromTheReferenceOfThatName) {
    const std::vector<ResolvedReference> references = {
        {"geo/address.proto", "address", 1, kAddress}};
    EXPECT_EQ(canonical(R"(syntax = "proto3";
        import "geo/address.proto";
        message Person { geo.Address home = 1; })",
                        references),
              "syntax = \"proto3\";\n\nimport \"geo/address.proto\";\n\n"
              "message Person {\n  geo.Address home = 1;\n}\n");
}

TEST(ProtobufParse, AnImportWithoutAReferenceIsRefusedByName) {
    auto outcome = parse(R"(syntax = "proto3";
        import "geo/address.proto";
        message Person { geo.Address home = 1; })");
    EXPECT_FALSE(outcome.schema);
    EXPECT_NE(outcome.error.find("import \"geo/address.proto\""), std::string::npos)
        << outcome.error;
    EXPECT_NE(outcome.error.find("needs a reference named \"geo/address.proto\""),
              std::string::npos)
        << outcome.error;
}

TEST(ProtobufParse, ReferencesResolveTransitivelyDependenciesFirst) {
    const std::vector<ResolvedReference> references = {
        {"geo/address.proto", "address", 1, kAddress},
        {"people.proto", "people", 3,
         "syntax = \"proto3\"; package people; import \"geo/address.proto\";\n"
         "import \"google/protobuf/timestamp.proto\";\n"
         "message Person { geo.Address home = 1; google.protobuf.Timestamp born = 2; }"},
    };
    auto outcome = parse(R"(syntax = "proto3";
        import "people.proto";
        message Team { repeated people.Person members = 1; })",
                         references);
    EXPECT_TRUE(outcome.schema) << outcome.error;
}

TEST(ProtobufParse, AnInvalidReferenceIsNamedInTheError) {
    auto outcome = parse("syntax = \"proto3\"; import \"bad.proto\"; message A {}",
                         {{"bad.proto", "bad", 2, "message {"}});
    EXPECT_FALSE(outcome.schema);
    EXPECT_NE(outcome.error.find("reference \"bad.proto\" (subject bad, version 2)"),
              std::string::npos)
        << outcome.error;
}

TEST(ProtobufParse, AReferenceMayBeABase64Descriptor) {
    auto address = parse(kAddress);
    ASSERT_TRUE(address.schema);
    const std::vector<ResolvedReference> references = {
        {"geo/address.proto", "address", 1, *address.schema->formatted("serialized")}};
    auto outcome = parse(R"(syntax = "proto3"; import "geo/address.proto";
        message Person { geo.Address home = 1; })",
                         references);
    EXPECT_TRUE(outcome.schema) << outcome.error;
}

TEST(ProtobufParse, WellKnownTypesImportWithoutAReference) {
    auto outcome = parse(R"(syntax = "proto3";
        import "google/protobuf/any.proto";
        import "google/protobuf/duration.proto";
        import "google/protobuf/empty.proto";
        import "google/protobuf/field_mask.proto";
        import "google/protobuf/struct.proto";
        import "google/protobuf/timestamp.proto";
        import "google/protobuf/wrappers.proto";
        import "google/protobuf/api.proto";
        message Event {
            google.protobuf.Timestamp at = 1;
            google.protobuf.Duration took = 2;
            google.protobuf.Any payload = 3;
            google.protobuf.Struct attributes = 4;
            google.protobuf.StringValue note = 5;
            google.protobuf.FieldMask mask = 6;
            google.protobuf.Empty nothing = 7;
            google.protobuf.Api api = 8;
        })");
    EXPECT_TRUE(outcome.schema) << outcome.error;
}

// confluent-kafka-python 1.7 registers every import, well-known ones included, as a reference.
TEST(ProtobufParse, AWellKnownTypeGivenAsAReferenceIsUsed) {
    auto timestamp = parse(R"(syntax = "proto3"; package google.protobuf;
        message Timestamp { int64 seconds = 1; int32 nanos = 2; })");
    ASSERT_TRUE(timestamp.schema) << timestamp.error;
    auto outcome = parse(R"(syntax = "proto3"; import "google/protobuf/timestamp.proto";
        message Event { google.protobuf.Timestamp at = 1; })",
                         {{"google/protobuf/timestamp.proto", "google/protobuf/timestamp.proto", 1,
                           *timestamp.schema->formatted("serialized")}});
    EXPECT_TRUE(outcome.schema) << outcome.error;
}

TEST(ProtobufParse, GoogleTypeImportsNeedAReference) {
    auto outcome = parse(R"(syntax = "proto3"; import "google/type/date.proto";
        message Event { google.type.Date on = 1; })");
    EXPECT_FALSE(outcome.schema);
    EXPECT_NE(outcome.error.find("google/type/date.proto"), std::string::npos) << outcome.error;
}

TEST(ProtobufParse, CustomOptionsAreResolvedAndPrinted) {
    const auto text = canonical(R"(syntax = "proto3"; package p;
        import "google/protobuf/descriptor.proto";
        extend google.protobuf.FieldOptions { string pii = 50000; }
        message A { string email = 1 [(pii) = "high", deprecated = true]; })");
    EXPECT_NE(text.find("string email = 1 [(p.pii) = \"high\", deprecated = true];"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("extend google.protobuf.FieldOptions {\n  string pii = 50000;\n}"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace skiff::schema_registry
