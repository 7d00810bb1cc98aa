// The field rules of the PROTOBUF compatibility check, each in both directions: check(a, b) asks
// whether a reader with `a` reads data written with `b`. Every difference is asserted, the
// compatible ones (which the registry never sees) through compare_schemas.
#include "broker/schema_registry/formats/protobuf_compatibility.h"
#include "broker/schema_registry/formats/schema_format.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace skiff::schema_registry {
namespace {

using Lines = std::vector<std::string>;

struct Verdict {
    Lines differences;  // every difference, "TYPE #/path", sorted
    Lines errors;       // what check() answers, "errorType additionalInfo", sorted
};

std::shared_ptr<const ParsedSchema> parse(std::string_view text) {
    auto outcome = protobuf_format().parse(text, {}, false);
    EXPECT_TRUE(outcome.schema) << outcome.error << "\n" << text;
    return outcome.schema;
}

Verdict judge(std::string_view reader_text, std::string_view writer_text) {
    auto reader = parse(reader_text);
    auto writer = parse(writer_text);
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

std::string proto3(const std::string& fields) {
    return "syntax = \"proto3\";\npackage p;\nmessage M {\n" + fields + "\n}\n";
}

std::string proto2(const std::string& fields) {
    return "syntax = \"proto2\";\npackage p;\nmessage M {\n" + fields + "\n}\n";
}

TEST(ProtobufFieldCompatibility, AddingOrRemovingAFieldIsCompatible) {
    const auto one = proto3("string a = 1;");
    const auto two = proto3("string a = 1; int64 b = 2;");
    EXPECT_EQ(judge(two, one).differences, Lines{"FIELD_ADDED #/M/2"});
    EXPECT_EQ(judge(two, one).errors, Lines{});
    EXPECT_EQ(judge(one, two).differences, Lines{"FIELD_REMOVED #/M/2"});
    EXPECT_EQ(judge(one, two).errors, Lines{});
}

TEST(ProtobufFieldCompatibility, RenamingAFieldIsCompatibleTheWireUsesNumbers) {
    const auto before = proto3("string name = 1;");
    const auto after = proto3("string full_name = 1;");
    EXPECT_EQ(judge(after, before).differences, Lines{"FIELD_NAME_CHANGED #/M/1"});
    EXPECT_EQ(judge(after, before).errors, Lines{});
    EXPECT_EQ(judge(before, after).differences, Lines{"FIELD_NAME_CHANGED #/M/1"});
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

// Confluent sees a renumbered field as one removed and one added, both compatible.
TEST(ProtobufFieldCompatibility, RenumberingAFieldIsARemovalAndAnAddition) {
    const auto before = proto3("string name = 1;");
    const auto after = proto3("string name = 2;");
    EXPECT_EQ(judge(after, before).differences,
              (Lines{"FIELD_ADDED #/M/2", "FIELD_REMOVED #/M/1"}));
    EXPECT_EQ(judge(after, before).errors, Lines{});
    EXPECT_EQ(judge(before, after).differences,
              (Lines{"FIELD_ADDED #/M/1", "FIELD_REMOVED #/M/2"}));
    EXPECT_EQ(judge(before, after).errors, Lines{});
}

struct ScalarPair {
    const char* a;
    const char* b;
};

class CompatibleScalars : public testing::TestWithParam<ScalarPair> {};

TEST_P(CompatibleScalars, AreInterchangeableBothWays) {
    const auto enum_decl = std::string("enum E { Z = 0; }\n");
    const auto a = proto3(std::string(GetParam().a) + " f = 1;") + enum_decl;
    const auto b = proto3(std::string(GetParam().b) + " f = 1;") + enum_decl;
    EXPECT_EQ(judge(a, b).differences, Lines{});
    EXPECT_EQ(judge(b, a).differences, Lines{});
}

INSTANTIATE_TEST_SUITE_P(
    ProtobufFieldCompatibility, CompatibleScalars,
    testing::Values(ScalarPair{"int32", "int64"}, ScalarPair{"int32", "uint32"},
                    ScalarPair{"int32", "uint64"}, ScalarPair{"int64", "uint64"},
                    ScalarPair{"uint32", "bool"}, ScalarPair{"int32", "bool"},
                    ScalarPair{"int32", "E"}, ScalarPair{"uint64", "E"},
                    ScalarPair{"sint32", "sint64"}, ScalarPair{"fixed32", "sfixed32"},
                    ScalarPair{"fixed64", "sfixed64"}, ScalarPair{"string", "bytes"}));

class IncompatibleScalars : public testing::TestWithParam<ScalarPair> {};

TEST_P(IncompatibleScalars, AreAScalarKindChangeBothWays) {
    const auto enum_decl = std::string("enum E { Z = 0; }\n");
    const auto a = proto3(std::string(GetParam().a) + " f = 1;") + enum_decl;
    const auto b = proto3(std::string(GetParam().b) + " f = 1;") + enum_decl;
    EXPECT_EQ(judge(a, b).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/1"});
    EXPECT_EQ(judge(b, a).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/1"});
}

INSTANTIATE_TEST_SUITE_P(
    ProtobufFieldCompatibility, IncompatibleScalars,
    testing::Values(ScalarPair{"int32", "sint32"}, ScalarPair{"int64", "sint64"},
                    ScalarPair{"int32", "string"}, ScalarPair{"int32", "fixed32"},
                    ScalarPair{"fixed32", "fixed64"}, ScalarPair{"sfixed32", "sfixed64"},
                    ScalarPair{"float", "double"}, ScalarPair{"float", "fixed32"},
                    ScalarPair{"double", "fixed64"}, ScalarPair{"bytes", "int64"},
                    ScalarPair{"bool", "string"}, ScalarPair{"E", "sint32"},
                    ScalarPair{"E", "string"}));

TEST(ProtobufFieldCompatibility, AScalarBecomingAMessageChangesTheFieldsKind) {
    const auto scalar = proto3("string f = 1;") + "message N { string s = 1; }\n";
    const auto message = proto3("N f = 1;") + "message N { string s = 1; }\n";
    EXPECT_EQ(judge(message, scalar).errors, Lines{"FIELD_KIND_CHANGED #/M/1"});
    EXPECT_EQ(judge(scalar, message).errors, Lines{"FIELD_KIND_CHANGED #/M/1"});
}

TEST(ProtobufFieldCompatibility, AMapBecomingARepeatedMessageChangesTheFieldsKind) {
    const auto map = proto3("map<string, int32> f = 1;");
    const auto repeated =
        proto3("repeated N f = 1;") + "message N { string k = 1; int32 v = 2; }\n";
    EXPECT_EQ(judge(repeated, map).differences,
              (Lines{"FIELD_KIND_CHANGED #/M/1", "MESSAGE_ADDED #/N"}));
    EXPECT_EQ(judge(repeated, map).errors, Lines{"FIELD_KIND_CHANGED #/M/1"});
    // The other way round the message N is gone too, which is incompatible of its own.
    EXPECT_EQ(judge(map, repeated).errors,
              (Lines{"FIELD_KIND_CHANGED #/M/1", "MESSAGE_REMOVED #/N"}));
}

TEST(ProtobufFieldCompatibility, AMapsKeyAndValueAreComparedAsScalars) {
    const auto narrow = proto3("map<string, int32> f = 1;");
    const auto wide = proto3("map<string, int64> f = 1;");
    const auto text = proto3("map<string, string> f = 1;");
    const auto signed_key = proto3("map<sint32, int32> f = 1;");
    EXPECT_EQ(judge(wide, narrow).differences, Lines{});
    EXPECT_EQ(judge(narrow, wide).differences, Lines{});
    EXPECT_EQ(judge(text, narrow).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/1"});
    EXPECT_EQ(judge(narrow, text).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/1"});
    EXPECT_EQ(judge(signed_key, narrow).errors, Lines{"FIELD_SCALAR_KIND_CHANGED #/M/1"});
}

TEST(ProtobufFieldCompatibility, AMessageFieldChangingTypeIsANamedTypeChange) {
    const auto types = std::string("message A { string s = 1; }\nmessage B { string s = 1; }\n");
    const auto a = proto3("A f = 1;") + types;
    const auto b = proto3("B f = 1;") + types;
    EXPECT_EQ(judge(b, a).differences, Lines{"FIELD_NAMED_TYPE_CHANGED #/M/1"});
    EXPECT_EQ(judge(b, a).errors, Lines{"FIELD_NAMED_TYPE_CHANGED #/M/1"});
    EXPECT_EQ(judge(a, b).errors, Lines{"FIELD_NAMED_TYPE_CHANGED #/M/1"});
}

TEST(ProtobufFieldCompatibility, QualifyingATypeNameChangesNothing) {
    const auto types = std::string("message A { string s = 1; }\n");
    EXPECT_EQ(judge(proto3(".p.A f = 1;") + types, proto3("A f = 1;") + types).differences,
              Lines{});
    EXPECT_EQ(judge(proto3("A f = 1;") + types, proto3(".p.A f = 1;") + types).differences,
              Lines{});
}

TEST(ProtobufFieldCompatibility, ANumericFieldsLabelChangeIsIncompatible) {
    const auto optional = proto2("optional int32 f = 1;");
    const auto repeated = proto2("repeated int32 f = 1;");
    EXPECT_EQ(judge(repeated, optional).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
    EXPECT_EQ(judge(optional, repeated).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
    const auto optional3 = proto3("optional double f = 1;");
    const auto repeated3 = proto3("repeated double f = 1;");
    EXPECT_EQ(judge(repeated3, optional3).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
    EXPECT_EQ(judge(optional3, repeated3).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
}

TEST(ProtobufFieldCompatibility, AStringOrBytesFieldsLabelChangeIsCompatible) {
    for (const char* type : {"string", "bytes"}) {
        const auto optional = proto2(std::string("optional ") + type + " f = 1;");
        const auto repeated = proto2(std::string("repeated ") + type + " f = 1;");
        EXPECT_EQ(judge(repeated, optional).differences,
                  Lines{"FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/1"});
        EXPECT_EQ(judge(repeated, optional).errors, Lines{});
        EXPECT_EQ(judge(optional, repeated).differences,
                  Lines{"FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/1"});
        EXPECT_EQ(judge(optional, repeated).errors, Lines{});
    }
}

TEST(ProtobufFieldCompatibility, AMessageFieldsLabelIsNotCompared) {
    const auto types = std::string("message N { optional string s = 1; }\n");
    EXPECT_EQ(
        judge(proto2("repeated N f = 1;") + types, proto2("optional N f = 1;") + types).differences,
        Lines{});
    EXPECT_EQ(
        judge(proto2("optional N f = 1;") + types, proto2("repeated N f = 1;") + types).differences,
        Lines{});
}

// Confluent compares only labels written on both sides: a proto3 field without `optional` has
// none, so making it repeated is not a label change there.
TEST(ProtobufFieldCompatibility, AProto3SingularFieldHasNoLabelToCompare) {
    EXPECT_EQ(judge(proto3("repeated int32 f = 1;"), proto3("int32 f = 1;")).differences, Lines{});
    EXPECT_EQ(judge(proto3("int32 f = 1;"), proto3("repeated int32 f = 1;")).differences, Lines{});
    EXPECT_EQ(judge(proto3("optional int32 f = 1;"), proto3("int32 f = 1;")).differences, Lines{});
}

TEST(ProtobufFieldCompatibility, AddingARequiredFieldIsIncompatible) {
    const auto before = proto2("optional string a = 1;");
    const auto after = proto2("optional string a = 1; required int32 b = 2;");
    EXPECT_EQ(judge(after, before).differences, Lines{"REQUIRED_FIELD_ADDED #/M/2"});
    EXPECT_EQ(judge(after, before).errors, Lines{"REQUIRED_FIELD_ADDED #/M/2"});
    // The other way round the same change is the removal of a required field.
    EXPECT_EQ(judge(before, after).errors, Lines{"REQUIRED_FIELD_REMOVED #/M/2"});
}

TEST(ProtobufFieldCompatibility, RemovingARequiredFieldIsIncompatible) {
    const auto before = proto2("required string a = 1; required int32 b = 2;");
    const auto after = proto2("required string a = 1;");
    EXPECT_EQ(judge(after, before).differences, Lines{"REQUIRED_FIELD_REMOVED #/M/2"});
    EXPECT_EQ(judge(after, before).errors, Lines{"REQUIRED_FIELD_REMOVED #/M/2"});
    EXPECT_EQ(judge(before, after).errors, Lines{"REQUIRED_FIELD_ADDED #/M/2"});
}

TEST(ProtobufFieldCompatibility, MakingARequiredNumberOptionalIsALabelChange) {
    const auto required = proto2("required int32 a = 1;");
    const auto optional = proto2("optional int32 a = 1;");
    EXPECT_EQ(judge(optional, required).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
    EXPECT_EQ(judge(required, optional).errors, Lines{"FIELD_NUMERIC_LABEL_CHANGED #/M/1"});
}

TEST(ProtobufFieldCompatibility, AnIncompatibilityIsReportedAsConfluentReportsIt) {
    auto reader = parse(proto3("string f = 1;"));
    auto writer = parse(proto3("int32 f = 1;"));
    ASSERT_TRUE(reader && writer);
    const auto found = protobuf_format().check(*reader, *writer);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].error_type, "FIELD_SCALAR_KIND_CHANGED");
    EXPECT_EQ(found[0].additional_info, "#/M/1");
    EXPECT_NE(found[0].description.find("'#/M/1'"), std::string::npos) << found[0].description;
    EXPECT_NE(found[0].description.find("int32 -> string"), std::string::npos)
        << found[0].description;
}

}  // namespace
}  // namespace skiff::schema_registry
