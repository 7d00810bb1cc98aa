// The console's Protobuf JSON printer (broker/console/protobuf_json.h) against libprotobuf's own
// (util::MessageToJsonString with preserve_proto_field_names), which skiff no longer links but
// this test does: for every kind of field and the well-known types, both must print the same
// JSON. Any is the one documented difference.
#include "broker/console/protobuf_json.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/type.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace skiff::broker::console {
namespace {

namespace gp = google::protobuf;

nlohmann::json reference(const gp::Message& message) {
    std::string text;
    gp::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    EXPECT_TRUE(gp::util::MessageToJsonString(message, &text, options).ok());
    return nlohmann::json::parse(text);
}

void expect_same_as_protobuf(const gp::Message& message) {
    EXPECT_EQ(protobuf_to_json(message), reference(message)) << message.ShortDebugString();
}

TEST(ProtobufJson, ScalarsEnumsRepeatedAndNestedMessagesPrintAsProtobufDoes) {
    gp::Type type;
    type.set_name("acme.Order");
    type.set_syntax(gp::SYNTAX_PROTO3);  // an enum
    type.add_oneofs("choice");           // repeated strings
    auto* field = type.add_fields();     // repeated messages
    field->set_kind(gp::Field::TYPE_INT64);
    field->set_cardinality(gp::Field::CARDINALITY_REPEATED);
    field->set_number(7);
    field->set_packed(true);
    field->set_json_name("amountCents");
    type.add_fields()->set_name("\"quoted\" \\ and \xc3\xa9 and \n");
    type.mutable_source_context()->set_file_name("a.proto");  // a nested message
    expect_same_as_protobuf(type);
    expect_same_as_protobuf(gp::Type());  // nothing set: {}
}

TEST(ProtobufJson, SixtyFourBitIntegersBytesAndDoublesFollowTheJsonMapping) {
    gp::UninterpretedOption option;
    option.set_positive_int_value(std::numeric_limits<uint64_t>::max());  // as a string
    option.set_negative_int_value(std::numeric_limits<int64_t>::min());
    option.set_double_value(0.1);
    option.set_string_value(std::string("\x00\xff\x10 bytes", 9));  // bytes: base64
    option.set_identifier_value("id");
    option.add_name()->set_name_part("part");
    option.mutable_name(0)->set_is_extension(false);  // proto2: a false that was set prints
    expect_same_as_protobuf(option);
    for (double special : {std::nan(""), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), -0.0, 1e300}) {
        option.set_double_value(special);
        expect_same_as_protobuf(option);
    }
    gp::FloatValue f;
    f.set_value(1.1F);  // the shortest text that reads back as this float
    expect_same_as_protobuf(f);
    EXPECT_EQ(protobuf_to_json(f).dump(), "1.1");
}

TEST(ProtobufJson, WellKnownTypesPrintTheirOwnJson) {
    gp::Timestamp at;
    at.set_seconds(1733443200);  // 2024-12-06T00:00:00Z
    expect_same_as_protobuf(at);
    for (int32_t nanos : {500000000, 1000, 7}) {
        at.set_nanos(nanos);
        expect_same_as_protobuf(at);
    }
    at.set_seconds(-62135596800);  // 0001-01-01, the first instant a Timestamp may hold
    at.set_nanos(0);
    expect_same_as_protobuf(at);
    EXPECT_EQ(protobuf_to_json(at), "0001-01-01T00:00:00Z");

    gp::Duration d;
    d.set_seconds(-3);
    d.set_nanos(-500000000);
    expect_same_as_protobuf(d);
    d.set_seconds(0);
    d.set_nanos(-1000);
    expect_same_as_protobuf(d);
    EXPECT_EQ(protobuf_to_json(d), "-0.000001s");

    gp::Int64Value i64;
    i64.set_value(-42);
    expect_same_as_protobuf(i64);
    gp::BytesValue bytes;
    bytes.set_value("\x01\x02");
    expect_same_as_protobuf(bytes);
    gp::BoolValue unset;  // a wrapper at its default prints its default
    expect_same_as_protobuf(unset);

    gp::Struct object;  // a map<string, Value> of every kind of Value
    (*object.mutable_fields())["n"].set_number_value(1.5);
    (*object.mutable_fields())["s"].set_string_value("x");
    (*object.mutable_fields())["b"].set_bool_value(false);
    (*object.mutable_fields())["z"].set_null_value(gp::NULL_VALUE);
    auto* list = (*object.mutable_fields())["l"].mutable_list_value();
    list->add_values()->set_number_value(2);
    list->add_values()->mutable_struct_value();
    expect_same_as_protobuf(object);

    gp::FieldMask mask;
    mask.add_paths("user.display_name");
    mask.add_paths("photo");
    expect_same_as_protobuf(mask);
}

TEST(ProtobufJson, AnyIsPrintedWithoutResolvingItsType) {
    gp::Any any;
    any.set_type_url("type.googleapis.com/acme.Unknown");
    any.set_value("\x08\x01");
    EXPECT_EQ(protobuf_to_json(any),
              nlohmann::json::parse(R"({"@type": "type.googleapis.com/acme.Unknown",
                                        "value": "CAE="})"));
}

}  // namespace
}  // namespace skiff::broker::console
