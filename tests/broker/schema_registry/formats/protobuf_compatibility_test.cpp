// The file, message, oneof and enum rules of the PROTOBUF compatibility check and the comparison
// of imported types, each in both directions: check(a, b) asks whether a reader with `a` reads
// data written with `b`.
#include "broker/schema_registry/formats/protobuf_compatibility.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace skiff::schema_registry {
namespace {

using Lines = std::vector<std::string>;
using References = std::vector<ResolvedReference>;

struct Verdict {
    Lines differences;  // every difference, "TYPE #/path", sorted
    Lines errors;       // what check() answers, "errorType additionalInfo", sorted
};

std::shared_ptr<const ParsedSchema> parse(std::string_view text, const References& references) {
    auto outcome = protobuf_format().parse(text, references, false);
    EXPECT_TRUE(outcome.schema) << outcome.error << "\n" << text;
    return outcome.schema;
}

Verdict judge(std::string_view reader_text, std::string_view writer_text,
              const References& reader_references = {}, const References& writer_references = {}) {
    auto reader = parse(reader_text, reader_references);
    auto writer = parse(writer_text, writer_references);
    Verdict verdict;
    if (!reader || !writer)
        return verdict;
    for (const auto& d :
         protobuf::compare_schemas(dynamic_cast<const protobuf::ProtobufSchema&>(*writer),
                                   dynamic_cast<const protobuf::ProtobufSchema&>(*reader)))
        verdict.differences.push_back(std::string(protobuf::difference_name(d.type)) + " " +
                                      d.path);
    for (const auto& i : protobuf_format().check(*reader, *writer))
        verdict.errors.push_back(i.error_type + " " + i.additional_info);
    std::sort(verdict.differences.begin(), verdict.differences.end());
    std::sort(verdict.errors.begin(), verdict.errors.end());
    return verdict;
}

std::string proto3(const std::string& body) {
    return "syntax = \"proto3\";\npackage p;\n" + body + "\n";
}

TEST(ProtobufCompatibility, AnIdenticalSchemaHasNoDifference) {
    const auto schema = proto3("message M { string a = 1; map<string, M> children = 2; }");
    EXPECT_EQ(judge(schema, schema).differences, Lines{});
}

TEST(ProtobufCompatibility, ChangingThePackageIsIncompatibleAtTheFile) {
    const auto foo = "syntax = \"proto3\";\npackage foo;\nmessage M { M next = 1; }";
    const auto bar = "syntax = \"proto3\";\npackage bar;\nmessage M { M next = 1; }";
    EXPECT_EQ(judge(bar, foo).differences, Lines{"PACKAGE_CHANGED #/"});
    EXPECT_EQ(judge(bar, foo).errors, Lines{"PACKAGE_CHANGED #/"});
    EXPECT_EQ(judge(foo, bar).errors, Lines{"PACKAGE_CHANGED #/"});
}

TEST(ProtobufCompatibility, RemovingAMessageIsIncompatibleAddingOneIsNot) {
    const auto one = proto3("message A { string a = 1; }");
    const auto two = proto3("message A { string a = 1; }\nmessage B { string b = 1; }");
    EXPECT_EQ(judge(one, two).differences, Lines{"MESSAGE_REMOVED #/B"});
    EXPECT_EQ(judge(one, two).errors, Lines{"MESSAGE_REMOVED #/B"});
    EXPECT_EQ(judge(two, one).differences, Lines{"MESSAGE_ADDED #/B"});
    EXPECT_EQ(judge(two, one).errors, Lines{});
}

TEST(ProtobufCompatibility, ReorderingMessagesIsCompatible) {
    const auto ab = proto3("message A {}\nmessage B {}");
    const auto ba = proto3("message B {}\nmessage A {}");
    EXPECT_EQ(judge(ba, ab).differences, (Lines{"MESSAGE_MOVED #/A", "MESSAGE_MOVED #/B"}));
    EXPECT_EQ(judge(ba, ab).errors, Lines{});
    EXPECT_EQ(judge(ab, ba).errors, Lines{});
}

TEST(ProtobufCompatibility, NestedMessagesAreComparedByTheirPath) {
    const auto before = proto3("message Outer { message Inner { string a = 1; } Inner i = 1; }");
    const auto after = proto3(
        "message Outer { message Inner { string a = 1; int32 b = 2; } Inner i = 1; "
        "message Extra {} }");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"FIELD_ADDED #/Outer/Inner/2", "MESSAGE_ADDED #/Outer/Extra"}));
    EXPECT_EQ(judge(after, before).errors, Lines{});
    EXPECT_EQ(judge(before, after).differences,
              (Lines{"FIELD_REMOVED #/Outer/Inner/2", "MESSAGE_REMOVED #/Outer/Extra"}));
    EXPECT_EQ(judge(before, after).errors, Lines{"MESSAGE_REMOVED #/Outer/Extra"});
}

TEST(ProtobufCompatibility, AnIncompatibleChangeInANestedMessageIsFoundThere) {
    const auto before = proto3("message Outer { message Inner { int32 a = 1; } }");
    const auto after = proto3("message Outer { message Inner { string a = 1; } }");
    EXPECT_EQ(judge(after, before).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/Outer/Inner/1"});
    EXPECT_EQ(judge(before, after).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/Outer/Inner/1"});
}

TEST(ProtobufCompatibility, EnumsAndTheirValuesMayComeAndGo) {
    const auto before = proto3("enum Color { RED = 0; GREEN = 1; BLUE = 2; }");
    const auto after =
        proto3("enum Color { RED = 0; LIME = 1; YELLOW = 3; }\nenum Size { S = 0; }");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"ENUM_ADDED #/Size", "ENUM_CONST_ADDED #/Color/3",
                     "ENUM_CONST_CHANGED #/Color/1", "ENUM_CONST_REMOVED #/Color/2"}));
    EXPECT_EQ(judge(after, before).errors, Lines{});
    EXPECT_EQ(judge(before, after).differences,
              (Lines{"ENUM_CONST_ADDED #/Color/2", "ENUM_CONST_CHANGED #/Color/1",
                     "ENUM_CONST_REMOVED #/Color/3", "ENUM_REMOVED #/Size"}));
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, AMessageReplacingAnEnumOfTheSameNameChangesTheFieldsKind) {
    const auto with_enum = proto3("message M { Status s = 1; }\nenum Status { OK = 0; }");
    const auto with_message = proto3(
        "message M { Status s = 1; message Status { string s = 1; } }\n"
        "enum Status { OK = 0; }");
    EXPECT_EQ(judge(with_message, with_enum).differences,
              (Lines{"FIELD_KIND_CHANGED #/M/1", "MESSAGE_ADDED #/M/Status"}));
    EXPECT_EQ(judge(with_message, with_enum).errors, Lines{"FIELD_KIND_CHANGED #/M/1"});
    EXPECT_EQ(judge(with_enum, with_message).errors,
              (Lines{"FIELD_KIND_CHANGED #/M/1", "MESSAGE_REMOVED #/M/Status"}));
}

TEST(ProtobufCompatibility, AddingAOneofWithNewFieldsIsCompatible) {
    const auto before = proto3("message M { string a = 1; }");
    const auto after = proto3("message M { string a = 1; oneof choice { int32 b = 2; } }");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"ONEOF_ADDED #/M/choice", "ONEOF_FIELD_ADDED #/M/choice/2"}));
    EXPECT_EQ(judge(after, before).errors, Lines{});
    // Deleting a oneof with all its fields is compatible too.
    EXPECT_EQ(judge(before, after).differences, Lines{"ONEOF_REMOVED #/M/choice"});
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, MovingOneFieldIntoANewOneofIsCompatible) {
    const auto before = proto3("message M { string a = 1; int32 b = 2; }");
    const auto after = proto3("message M { string a = 1; oneof choice { int32 b = 2; } }");
    EXPECT_EQ(judge(after, before).differences, Lines{"ONEOF_ADDED #/M/choice"});
    EXPECT_EQ(judge(after, before).errors, Lines{});
    EXPECT_EQ(judge(before, after).differences,
              (Lines{"ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/2", "ONEOF_REMOVED #/M/choice"}));
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, MovingSeveralFieldsIntoAOneofIsIncompatible) {
    const auto before = proto3("message M { string a = 1; int32 b = 2; }");
    const auto after = proto3("message M { oneof choice { string a = 1; int32 b = 2; } }");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/choice", "ONEOF_ADDED #/M/choice"}));
    EXPECT_EQ(judge(after, before).errors, Lines{"MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/choice"});
    EXPECT_EQ(judge(before, after).differences,
              (Lines{"ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/1", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/2",
                     "ONEOF_REMOVED #/M/choice"}));
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, MovingAFieldIntoAnExistingOneofIsIncompatible) {
    const auto before = proto3("message M { string a = 1; oneof choice { int32 b = 2; } }");
    const auto after = proto3("message M { oneof choice { string a = 1; int32 b = 2; } }");
    EXPECT_EQ(judge(after, before).differences, Lines{"FIELD_MOVED_TO_EXISTING_ONEOF #/M/choice"});
    EXPECT_EQ(judge(after, before).errors, Lines{"FIELD_MOVED_TO_EXISTING_ONEOF #/M/choice"});
    EXPECT_EQ(judge(before, after).differences, Lines{"ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/1"});
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, MergingTwoOneofsIsIncompatible) {
    const auto before = proto3("message M { oneof a { int32 x = 1; } oneof b { int32 y = 2; } }");
    const auto after = proto3("message M { oneof c { int32 x = 1; int32 y = 2; } }");
    EXPECT_EQ(judge(after, before).errors, Lines{"FIELD_MOVED_TO_EXISTING_ONEOF #/M/c"});
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, RemovingOneFieldOfAOneofIsIncompatible) {
    const auto before = proto3("message M { oneof choice { int32 a = 1; string b = 2; } }");
    const auto after = proto3("message M { oneof choice { int32 a = 1; } }");
    EXPECT_EQ(judge(after, before).differences, Lines{"ONEOF_FIELD_REMOVED #/M/choice/2"});
    EXPECT_EQ(judge(after, before).errors, Lines{"ONEOF_FIELD_REMOVED #/M/choice/2"});
    EXPECT_EQ(judge(before, after).differences, Lines{"ONEOF_FIELD_ADDED #/M/choice/2"});
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

TEST(ProtobufCompatibility, RenamingAOneofDoesNotHideATypeChange) {
    const auto before = proto3("message M { oneof old { int32 a = 1; int32 b = 2; } }");
    const auto after = proto3("message M { oneof renamed { int32 a = 1; string b = 2; } }");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"FIELD_SCALAR_KIND_CHANGED #/M/renamed/2", "ONEOF_ADDED #/M/renamed",
                     "ONEOF_REMOVED #/M/old"}));
    EXPECT_EQ(judge(after, before).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/renamed/2"});
    EXPECT_EQ(judge(before, after).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/old/2"});
}

TEST(ProtobufCompatibility, Proto3OptionalFieldsAreNotOneofs) {
    const auto plain = proto3("message M { int32 a = 1; }");
    const auto optional = proto3("message M { optional int32 a = 1; }");
    EXPECT_EQ(judge(optional, plain).differences, Lines{});
    EXPECT_EQ(judge(plain, optional).differences, Lines{});
}

// Confluent's rules have no syntax rule: a change of syntax is judged by its fields.
TEST(ProtobufCompatibility, ChangingTheSyntaxIsJudgedByTheFields) {
    const auto two = "syntax = \"proto2\";\npackage p;\nmessage M { optional int32 a = 1; }";
    const auto three = "syntax = \"proto3\";\npackage p;\nmessage M { int32 a = 1; }";
    EXPECT_EQ(judge(three, two).differences, Lines{});
    EXPECT_EQ(judge(two, three).differences, Lines{});
}

TEST(ProtobufCompatibility, ARecursiveTypeIsComparedOnce) {
    const auto before = proto3("message Node { Node next = 1; repeated Node children = 2; }");
    const auto after =
        proto3("message Node { Node next = 1; repeated Node children = 2; string label = 3; }");
    EXPECT_EQ(judge(after, before).differences, Lines{"FIELD_ADDED #/Node/3"});
}

TEST(ProtobufCompatibility, WellKnownTypesCompareEqual) {
    const auto schema = proto3(
        "import \"google/protobuf/timestamp.proto\";\n"
        "message M { google.protobuf.Timestamp at = 1; }");
    EXPECT_EQ(judge(schema, schema).differences, Lines{});
}

const char* kHomeV1 = "syntax = \"proto3\";\npackage home;\nmessage Address { string city = 1; }";
const char* kHomeV2 = "syntax = \"proto3\";\npackage home;\nmessage Address { int32 city = 1; }";
const char* kHomeV3 =
    "syntax = \"proto3\";\npackage home;\nmessage Address { string city = 1; string zip = 2; }";
const char* kPerson =
    "syntax = \"proto3\";\npackage p;\nimport \"home.proto\";\n"
    "message Person { home.Address address = 1; }";

TEST(ProtobufCompatibility, AnImportedTypeIsComparedWhenItsReferenceChanges) {
    const References v1 = {{"home.proto", "home", 1, kHomeV1}};
    const References v2 = {{"home.proto", "home", 2, kHomeV2}};
    const References v3 = {{"home.proto", "home", 3, kHomeV3}};
    EXPECT_EQ(
        judge(kPerson, kPerson, v2, v1).differences,
        (Lines{"FIELD_NAMED_TYPE_CHANGED #/Person/1", "FIELD_SCALAR_KIND_CHANGED #/Address/1"}));
    EXPECT_EQ(
        judge(kPerson, kPerson, v2, v1).errors,
        (Lines{"FIELD_NAMED_TYPE_CHANGED #/Person/1", "FIELD_SCALAR_KIND_CHANGED #/Address/1"}));
    EXPECT_EQ(
        judge(kPerson, kPerson, v1, v2).errors,
        (Lines{"FIELD_NAMED_TYPE_CHANGED #/Person/1", "FIELD_SCALAR_KIND_CHANGED #/Address/1"}));
    // A compatible change of the imported type leaves the field compatible.
    EXPECT_EQ(judge(kPerson, kPerson, v3, v1).differences, Lines{"FIELD_ADDED #/Address/2"});
    EXPECT_EQ(judge(kPerson, kPerson, v3, v1).errors, Lines{});
    EXPECT_EQ(judge(kPerson, kPerson, v1, v3).errors, Lines{});
}

TEST(ProtobufCompatibility, AnImportedTypeFromTheSameSubjectAndVersionIsNotComparedAgain) {
    const References v1 = {{"home.proto", "home", 1, kHomeV1}};
    EXPECT_EQ(judge(kPerson, kPerson, v1, v1).differences, Lines{});
}

TEST(ProtobufCompatibility, MovingAMessageIntoAnImportIsAMessageRemoval) {
    const auto local = proto3(
        "message Address { string city = 1; }\n"
        "message Person { Address address = 1; }");
    const auto imported =
        "syntax = \"proto3\";\npackage p;\nimport \"address.proto\";\n"
        "message Person { Address address = 1; }";
    const References reference = {
        {"address.proto", "address", 1,
         "syntax = \"proto3\";\npackage p;\nmessage Address { string city = 1; }"}};
    EXPECT_EQ(judge(imported, local, reference, {}).errors, Lines{"MESSAGE_REMOVED #/Address"});
    EXPECT_EQ(judge(local, imported, {}, reference).differences,
              (Lines{"MESSAGE_ADDED #/Address", "MESSAGE_MOVED #/Person"}));
    EXPECT_EQ(judge(local, imported, {}, reference).errors, Lines{});
}

}  // namespace
}  // namespace skiff::schema_registry
