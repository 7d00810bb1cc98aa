// The console's Protobuf JSON reader (broker/console/protobuf_from_json.h) against libprotobuf's
// own (util::JsonStringToMessage), which skiff does not link but this test does: the same JSON
// read by both must give messages that serialize to the same bytes. The message types are built
// at run time from a .proto text, as the console builds them from a registry's schema, with
// copies of the well-known types in the same pool. Where the two differ on purpose (Any, the
// legacy leniencies the header lists), the test says so.
#include "broker/console/protobuf_from_json.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "broker/console/protobuf_json.h"

namespace skiff::broker::console {
namespace {

namespace gp = google::protobuf;

constexpr const char* kOrderProto = R"(
syntax = "proto3";
package acme;

import "google/protobuf/any.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

enum Status {
  STATUS_UNKNOWN = 0;
  STATUS_ACTIVE = 1;
  STATUS_RETIRED = 2;
}

message Scalars {
  int32 an_int32 = 1;
  int64 an_int64 = 2;
  uint32 a_uint32 = 3;
  uint64 a_uint64 = 4;
  sint32 a_sint32 = 5;
  sint64 a_sint64 = 6;
  fixed32 a_fixed32 = 7;
  fixed64 a_fixed64 = 8;
  sfixed32 an_sfixed32 = 9;
  sfixed64 an_sfixed64 = 10;
  float a_float = 11;
  double a_double = 12;
  bool a_bool = 13;
  string a_string = 14;
  bytes some_bytes = 15;
}

message Price {
  string currency_code = 1;
  int64 amount_cents = 2;
}

message Item {
  string sku = 1;
  Price price = 2;
  repeated string tags = 3;
}

message Order {
  string order_id = 1;
  Scalars scalars = 2;
  Status status = 3;
  repeated Status history = 4;
  repeated Item items = 5;
  repeated int64 quantities = 6;
  repeated double weights = 7;
  repeated bytes blobs = 8;
  map<string, Price> price_by_region = 9;
  map<int32, string> note_by_line = 10;
  map<bool, int32> count_by_flag = 11;
  map<uint64, Status> status_by_id = 12;
  map<sint64, bytes> blob_by_key = 13;
  oneof payment {
    string card_token = 14;
    Price voucher = 15;
    google.protobuf.Int64Value points = 16;
  }
  optional int32 priority = 17;
  Order parent = 18;

  google.protobuf.Timestamp created_at = 20;
  google.protobuf.Duration time_to_live = 21;
  google.protobuf.DoubleValue discount = 22;
  google.protobuf.FloatValue ratio = 23;
  google.protobuf.Int64Value big_count = 24;
  google.protobuf.UInt64Value big_id = 25;
  google.protobuf.Int32Value small_count = 26;
  google.protobuf.UInt32Value small_id = 27;
  google.protobuf.BoolValue gift = 28;
  google.protobuf.StringValue comment = 29;
  google.protobuf.BytesValue signature = 30;
  google.protobuf.Struct attributes = 31;
  google.protobuf.Value extra = 32;
  google.protobuf.ListValue steps = 33;
  google.protobuf.Empty nothing = 34;
  google.protobuf.FieldMask update_mask = 35;
  google.protobuf.Any detail = 36;
  repeated google.protobuf.Timestamp checkpoints = 37;
  map<string, google.protobuf.Value> labels = 38;
  google.protobuf.NullValue no_value = 39;
  repeated google.protobuf.Value extras = 40;
}

message Node {
  int32 value = 1;
  Node next = 2;
}
)";

// proto2: required fields, closed enums and extensions.
constexpr const char* kLegacyProto = R"(
syntax = "proto2";
package legacy;

message Record {
  enum Kind { KIND_A = 1; KIND_B = 2; }
  required int32 id = 1;
  optional Kind kind = 2;
  optional Record child = 3;
  extensions 100 to 199;
}

extend Record {
  optional string note = 100;
  optional Record linked = 101;
}
)";

class ProtoErrors : public gp::io::ErrorCollector {
  public:
    void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
        ADD_FAILURE() << "line " << line + 1 << ":" << column + 1 << ": " << message;
    }
};

// A .proto text built into a pool of its own beside copies of the well-known types, and the
// factory of its messages.
class Schema {
  public:
    explicit Schema(std::string_view proto_text) {
        for (const gp::Descriptor* well_known :
             {gp::Any::descriptor(), gp::Duration::descriptor(), gp::Empty::descriptor(),
              gp::FieldMask::descriptor(), gp::Struct::descriptor(), gp::Timestamp::descriptor(),
              gp::Int32Value::descriptor()}) {
            gp::FileDescriptorProto file;
            well_known->file()->CopyTo(&file);
            EXPECT_NE(pool_.BuildFile(file), nullptr) << file.name();
        }
        gp::io::ArrayInputStream input(proto_text.data(), static_cast<int>(proto_text.size()));
        ProtoErrors errors;
        gp::io::Tokenizer tokenizer(&input, &errors);
        gp::FileDescriptorProto file;
        EXPECT_TRUE(gp::compiler::Parser().Parse(&tokenizer, &file));
        file.set_name("schema.proto");
        EXPECT_NE(pool_.BuildFile(file), nullptr);
    }

    std::unique_ptr<gp::Message> make(const std::string& type) {
        const gp::Descriptor* descriptor = pool_.FindMessageTypeByName(type);
        EXPECT_NE(descriptor, nullptr) << type;
        return std::unique_ptr<gp::Message>(factory_.GetPrototype(descriptor)->New());
    }

  private:
    gp::DescriptorPool pool_;
    gp::DynamicMessageFactory factory_{&pool_};
};

Schema& orders() {
    static Schema schema(kOrderProto);
    return schema;
}

Schema& legacy() {
    static Schema schema(kLegacyProto);
    return schema;
}

// Map entries sorted by key, so equal messages give equal bytes.
std::string deterministic_bytes(const gp::Message& message) {
    std::string bytes;
    {
        gp::io::StringOutputStream stream(&bytes);
        gp::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        EXPECT_TRUE(message.SerializeToCodedStream(&coded));
    }
    return bytes;
}

std::unique_ptr<gp::Message> read_with_protobuf(Schema& schema, const std::string& type,
                                                const std::string& json_text) {
    auto message = schema.make(type);
    const auto status = gp::util::JsonStringToMessage(json_text, message.get());
    EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json_text;
    return message;
}

std::unique_ptr<gp::Message> read_with_skiff(Schema& schema, const std::string& type,
                                             const nlohmann::json& value) {
    auto message = schema.make(type);
    const auto read = protobuf_from_json(value, *message);
    EXPECT_TRUE(read) << read.error() << "\n" << value.dump();
    return message;
}

void expect_same_as_protobuf(const std::string& json_text, const std::string& type = "acme.Order",
                             Schema& schema = orders()) {
    const auto ours = read_with_skiff(schema, type, nlohmann::json::parse(json_text));
    const auto theirs = read_with_protobuf(schema, type, json_text);
    EXPECT_EQ(deterministic_bytes(*ours), deterministic_bytes(*theirs))
        << json_text << "\n  skiff:    " << ours->ShortDebugString()
        << "\n  protobuf: " << theirs->ShortDebugString();
}

// The error skiff gives for `json_text` (and that protobuf refuses it too, unless told it differs
// on purpose).
std::string refusal(const std::string& json_text, bool protobuf_refuses_too = true,
                    const std::string& type = "acme.Order", Schema& schema = orders()) {
    auto message = schema.make(type);
    const auto read = protobuf_from_json(nlohmann::json::parse(json_text), *message);
    EXPECT_FALSE(read) << "accepted " << json_text << " as " << message->ShortDebugString();
    if (protobuf_refuses_too) {
        auto theirs = schema.make(type);
        EXPECT_FALSE(gp::util::JsonStringToMessage(json_text, theirs.get()).ok())
            << "protobuf accepts " << json_text;
    }
    return read ? std::string() : read.error();
}

TEST(ProtobufFromJson, EveryScalarTypeReadsAsProtobufReadsIt) {
    expect_same_as_protobuf(R"({"scalars": {
        "anInt32": -2147483648, "anInt64": "-9223372036854775808", "aUint32": 4294967295,
        "aUint64": "18446744073709551615", "aSint32": -7, "aSint64": "-9007199254740993",
        "aFixed32": 7, "aFixed64": "9007199254740993", "anSfixed32": -8, "anSfixed64": "-9",
        "aFloat": 1.1, "aDouble": 0.1, "aBool": true, "aString": "caf\u00e9 \"quoted\"\n",
        "someBytes": "AP8QIGJ5dGVz"}})");
    // 64-bit integers as JSON numbers, 32-bit ones as text, integral doubles for integers.
    expect_same_as_protobuf(R"({"scalars": {
        "anInt32": "-12", "anInt64": -9223372036854775808, "aUint32": "+4294967295",
        "aUint64": 18446744073709551615, "aSint32": 1e2, "aSint64": 9007199254740993,
        "aFixed32": 7.0, "aFixed64": 1e15, "anSfixed32": "0012", "anSfixed64": -9}})");
    // Floating point: the special values by name, decimal text, the float range's edge.
    expect_same_as_protobuf(R"({"scalars": {"aFloat": "NaN", "aDouble": "Infinity"}})");
    expect_same_as_protobuf(R"({"scalars": {"aFloat": "-Infinity", "aDouble": "NaN"}})");
    expect_same_as_protobuf(R"({"scalars": {"aFloat": "1e5", "aDouble": "-2.5e-300"}})");
    expect_same_as_protobuf(R"({"scalars": {"aFloat": 3.4028235e38, "aDouble": 1.7e308}})");
    expect_same_as_protobuf(R"({"scalars": {"aFloat": -0.0, "aDouble": ".5"}})");
    // Bytes: padded or not, and the URL-safe alphabet.
    expect_same_as_protobuf(R"({"blobs": ["Zm8=", "Zm8", "Zg==", "Zg", "", "-_-_", "+/+/"]})");
    // Proto names as well as JSON names, and null for "leave it at its default".
    expect_same_as_protobuf(R"({"scalars": {"an_int32": 1, "a_uint64": 2, "some_bytes": "AQI",
        "a_string": null, "a_double": null}, "order_id": "o-1"})");
}

TEST(ProtobufFromJson, FieldsAreFoundByJsonNameOrProtoName) {
    const std::string by_json_name = R"({"orderId": "o-1", "priceByRegion": {"eu":
        {"currencyCode": "EUR", "amountCents": "1250"}}, "createdAt": "1972-01-01T10:00:20.021Z"})";
    const std::string by_proto_name = R"({"order_id": "o-1", "price_by_region": {"eu":
        {"currency_code": "EUR", "amount_cents": 1250}}, "created_at": "1972-01-01T10:00:20.021Z"})";
    expect_same_as_protobuf(by_json_name);
    expect_same_as_protobuf(by_proto_name);
    EXPECT_EQ(deterministic_bytes(
                  *read_with_skiff(orders(), "acme.Order", nlohmann::json::parse(by_json_name))),
              deterministic_bytes(
                  *read_with_skiff(orders(), "acme.Order", nlohmann::json::parse(by_proto_name))));
}

TEST(ProtobufFromJson, EnumsByNameOrNumber) {
    expect_same_as_protobuf(R"({"status": "STATUS_ACTIVE", "history": ["STATUS_RETIRED", 1, 0]})");
    expect_same_as_protobuf(R"({"status": 2, "history": ["1", 1.0]})");
    expect_same_as_protobuf(R"({"status": 42, "history": [-3]})");  // open enum: kept
    expect_same_as_protobuf(R"({"status": null, "noValue": null})");
    expect_same_as_protobuf(R"({"noValue": "NULL_VALUE"})");
}

TEST(ProtobufFromJson, RepeatedFieldsMapsAndNestedMessagesReadAsProtobufReadsThem) {
    expect_same_as_protobuf(R"({
        "items": [{"sku": "a", "price": {"currencyCode": "EUR", "amountCents": 5}, "tags": ["x"]},
                  {}, {"sku": "c", "tags": []}],
        "quantities": [1, "2", -3], "weights": [0.5, "NaN", "-Infinity"],
        "priceByRegion": {"eu": {"amountCents": 1}, "": {}},
        "noteByLine": {"1": "one", "-2147483648": "min", "+7": "seven"},
        "countByFlag": {"true": 1, "false": 0},
        "statusById": {"18446744073709551615": "STATUS_ACTIVE", "0": 2},
        "blobByKey": {"-9": "AQI=", "9": ""},
        "parent": {"orderId": "p", "parent": {"orderId": "pp", "items": [{"sku": "deep"}]}},
        "priority": 0
    })");
    expect_same_as_protobuf(
        R"({"items": null, "priceByRegion": null, "parent": null, "labels": null})");

    // What `out` held before is replaced, as ParseFromString replaces it.
    auto order = read_with_skiff(orders(), "acme.Order", {{"orderId", "old"}, {"weights", {1}}});
    ASSERT_TRUE(protobuf_from_json({{"quantities", {2}}}, *order));
    EXPECT_EQ(order->ShortDebugString(), "quantities: 2");
}

TEST(ProtobufFromJson, OneofTakesOneMember) {
    expect_same_as_protobuf(R"({"cardToken": "tok"})");
    expect_same_as_protobuf(R"({"cardToken": ""})");  // a member at its default is still set
    expect_same_as_protobuf(R"({"voucher": {"amountCents": 5}, "cardToken": null})");
    expect_same_as_protobuf(R"({"points": 7, "voucher": null})");
    const std::string error = refusal(R"({"cardToken": "tok", "voucher": {}})");
    EXPECT_NE(error.find("voucher: oneof payment already has card_token"), std::string::npos)
        << error;
    refusal(R"({"card_token": "tok", "points": "7"})");
}

TEST(ProtobufFromJson, WellKnownTypesReadTheirOwnJson) {
    expect_same_as_protobuf(R"({"createdAt": "1972-01-01T10:00:20.021Z",
        "checkpoints": ["1970-01-01T00:00:00Z", "2024-02-29T23:59:59.999999999+05:30",
                        "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.5Z",
                        "1969-12-31T23:59:59.000001-00:45", "2000-01-01T00:00:00.1Z"]})");
    expect_same_as_protobuf(R"({"timeToLive": "1.5s"})");
    expect_same_as_protobuf(R"({"timeToLive": "-0.000001s"})");
    expect_same_as_protobuf(R"({"timeToLive": "-315576000000.999999999s"})");
    expect_same_as_protobuf(R"({"timeToLive": "3s"})");
    expect_same_as_protobuf(R"({"discount": 0.25, "ratio": "NaN", "bigCount": "-9007199254740993",
        "bigId": 18446744073709551615, "smallCount": -1, "smallId": "4294967295", "gift": false,
        "comment": "", "signature": "AQID"})");
    expect_same_as_protobuf(R"({"discount": null, "smallCount": 0, "gift": null})");
    expect_same_as_protobuf(R"({"attributes": {"n": 1.5, "s": "x", "b": true, "z": null,
        "l": [1, "two", [3], {"four": 4}, null, false], "o": {"deep": {"er": []}}}})");
    expect_same_as_protobuf(R"({"extra": null})");
    expect_same_as_protobuf(R"({"extra": 12345678901234567890})");
    expect_same_as_protobuf(R"({"extra": "text"})");
    expect_same_as_protobuf(R"({"extra": [null, {"a": [true]}]})");
    expect_same_as_protobuf(R"({"extra": {}})");
    expect_same_as_protobuf(R"({"steps": [1, null, "x", {}], "labels": {"a": null, "b": [2]},
        "extras": [null, 1, {"a": null}]})");
    expect_same_as_protobuf(R"({"steps": [], "attributes": {}, "nothing": {}})");
    expect_same_as_protobuf(R"({"updateMask": "user.displayName,photo,a.bC.dEf"})");
    expect_same_as_protobuf(R"({"updateMask": ""})");
    expect_same_as_protobuf(R"({"updateMask": "a,,b"})");

    // At the top as well: a Timestamp's JSON is its text, a wrapper's its value.
    auto at = read_with_skiff(orders(), "google.protobuf.Timestamp", "1972-01-01T10:00:20.021Z");
    EXPECT_EQ(at->ShortDebugString(), "seconds: 63108020 nanos: 21000000");
    auto count = read_with_skiff(orders(), "google.protobuf.Int64Value", "-42");
    EXPECT_EQ(count->ShortDebugString(), "value: -42");
    auto mask = read_with_skiff(orders(), "google.protobuf.FieldMask", "user.displayName,photo");
    EXPECT_EQ(mask->ShortDebugString(), R"(paths: "user.display_name" paths: "photo")");
}

TEST(ProtobufFromJson, AnyIsRefusedItsTypeIsNotResolved) {
    const std::string json_text =
        R"({"detail": {"@type": "type.googleapis.com/acme.Price", "amountCents": "5"}})";
    read_with_protobuf(orders(), "acme.Order", json_text);  // protobuf resolves it
    const std::string error = refusal(json_text, /*protobuf_refuses_too=*/false);
    EXPECT_NE(error.find("detail: google.protobuf.Any is not supported"), std::string::npos)
        << error;
}

// What skiff's printer prints of a message reads back as the same message.
TEST(ProtobufFromJson, WhatThePrinterPrintsReadsBack) {
    const auto original = read_with_protobuf(orders(), "acme.Order", R"({
        "orderId": "o-1", "scalars": {"anInt64": "-5", "aFloat": 1.1, "aDouble": "NaN",
        "someBytes": "AP8Q", "aBool": true, "aUint64": "18446744073709551615"},
        "status": 42, "history": ["STATUS_ACTIVE"], "items": [{"sku": "a", "tags": ["x", "y"]}],
        "priceByRegion": {"eu": {"amountCents": 1}}, "noteByLine": {"-1": "m"},
        "countByFlag": {"true": 3}, "statusById": {"5": 1}, "blobByKey": {"2": "AQ=="},
        "voucher": {"currencyCode": "EUR"}, "priority": 0,
        "createdAt": "2024-12-06T00:00:00.500Z", "timeToLive": "-3.5s", "ratio": 0.5,
        "bigId": "9", "signature": "", "attributes": {"a": [1, null, {"b": "c"}]},
        "extra": null, "steps": [true], "nothing": {}, "updateMask": "fooBar,baz",
        "checkpoints": ["1970-01-01T00:00:01Z"], "labels": {"k": "v"}})");
    const nlohmann::json printed = protobuf_to_json(*original);
    const auto read_back = read_with_skiff(orders(), "acme.Order", printed);
    EXPECT_EQ(deterministic_bytes(*read_back), deterministic_bytes(*original)) << printed.dump();
}

TEST(ProtobufFromJson, WrongInputIsAnErrorNamingItsPath) {
    // A JSON value of the wrong kind.
    EXPECT_EQ(refusal(R"({"items": [{}, {"sku": "b"}, {"price": {"amountCents": true}}]})"),
              "items[2].price.amountCents: expected a number");
    EXPECT_EQ(refusal(R"({"scalars": {"aString": 5}})"), "scalars.aString: expected a string");
    EXPECT_EQ(refusal(R"({"scalars": {"aBool": 1}})"), "scalars.aBool: expected true or false");
    EXPECT_EQ(refusal(R"({"parent": []})"), "parent: expected an object for acme.Order");
    EXPECT_EQ(refusal(R"({"quantities": {}})"), "quantities: expected an array");
    refusal(R"({"priceByRegion": []})");
    refusal(R"([])");
    // Numbers out of range, not integral, or not numbers at all.
    EXPECT_EQ(refusal(R"({"scalars": {"anInt32": 2147483648}})"),
              "scalars.anInt32: 2147483648 is not a valid int32");
    refusal(R"({"scalars": {"aUint32": -1}})");
    refusal(R"({"scalars": {"anInt64": "9223372036854775808"}})");
    refusal(R"({"scalars": {"anInt64": 1.5}})");
    refusal(R"({"scalars": {"anInt64": "1e3"}})");
    refusal(R"({"scalars": {"anInt32": " 12"}})");
    refusal(R"({"scalars": {"aUint64": 1e20}})");
    refusal(R"({"scalars": {"aUint64": 18446744073709551616}})");     // 2^64, a double
    refusal(R"({"scalars": {"anInt64": 9.223372036854775808e18}})");  // 2^63
    refusal(R"({"scalars": {"anInt32": -2147483649.0}})");
    refusal(R"({"scalars": {"aFloat": 3.5e38}})");
    refusal(R"({"scalars": {"aDouble": "nan"}})");
    refusal(R"({"scalars": {"aDouble": "inf"}})");
    // Unknown fields, enum values and map keys.
    EXPECT_EQ(refusal(R"({"scalars": {"anInt33": 1}})"),
              "scalars.anInt33: no such field in acme.Scalars");
    refusal(R"({"OrderId": "o-1"})");
    EXPECT_EQ(refusal(R"({"history": ["STATUS_ACTIVE", "STATUS_PURPLE"]})"),
              R"(history[1]: no value named "STATUS_PURPLE" in acme.Status)");
    refusal(R"({"status": "status_active"})");
    refusal(R"({"status": "7"})");
    refusal(R"({"noteByLine": {"1.0": "x"}})");
    EXPECT_EQ(refusal(R"({"noteByLine": {"2147483648": "x"}})"),
              R"(noteByLine["2147483648"]: 2147483648 is not a valid int32)");
    refusal(R"({"statusById": {"-1": 1}})");
    EXPECT_EQ(refusal(R"({"noteByLine": {"7": "a", "+7": "b"}})", /*protobuf_refuses_too=*/false),
              R"(noteByLine["7"]: the key is given twice)");
    // Base64.
    EXPECT_EQ(refusal(R"({"scalars": {"someBytes": "Zm9="}})"),
              "scalars.someBytes: not valid base64");
    refusal(R"({"blobs": ["Z"]})");
    refusal(R"({"blobs": ["A"]})");
    refusal(R"({"blobs": ["QUJDA"]})");
    refusal(R"({"blobs": ["Zm8=="]})");
    refusal(R"({"blobs": ["Zm 8="]})");
    refusal(R"({"blobs": ["+/-_"]})");
    refusal(R"({"blobs": ["Zm8=Zm8="]})");
    refusal(R"({"blobs": ["Zm8*"]})");
    // Timestamps and durations.
    EXPECT_EQ(refusal(R"({"createdAt": "1972-02-30T10:00:20Z"})"),
              R"(createdAt: "1972-02-30T10:00:20Z" is not an RFC 3339 timestamp in 0001 to 9999)");
    for (const char* bad :
         {"yesterday", "1972-01-01T10:00:20", "1972-01-01 10:00:20Z", "1972-01-01T24:00:00Z",
          "1972-01-01T23:59:60Z", "1972-01-01t10:00:20Z", "1972-01-01T10:00:20.Z",
          "1972-01-01T10:00:20+0100", "0000-12-31T23:00:00-01:00", "1972-01-01T10:00:20+24:00"})
        refusal(nlohmann::json{{"createdAt", bad}}.dump());
    refusal(R"({"createdAt": 5})");
    for (const char* bad : {"1", "1S", ".5s", "-s", "315576000001s", "1.0000000001s", "s"})
        refusal(nlohmann::json{{"timeToLive", bad}}.dump());
    // FieldMask, Struct, ListValue.
    refusal(R"({"updateMask": ["a"]})");
    refusal(R"({"attributes": []})");
    refusal(R"({"nothing": {"a": 1}})");
    EXPECT_EQ(refusal(R"({"updateMask": "a,b c"})", /*protobuf_refuses_too=*/false),
              R"(updateMask: "b c" is not a path of field names)");
    // A field given twice, under its two names.
    EXPECT_EQ(refusal(R"({"orderId": "a", "order_id": "b"})", /*protobuf_refuses_too=*/false),
              "order_id: the field is given twice, by its proto name and its JSON name");
}

// JsonStringToMessage's legacy leniencies, which skiff's reader does not take (the header lists
// them): checked here so that a change in either is seen.
TEST(ProtobufFromJson, LegacyLeniencesOfProtobufAreRefused) {
    for (const char* lenient : {
             R"({"scalars": {"aBool": "true"}})",
             R"({"quantities": 5})",
             R"({"quantities": [1, null]})",
             R"({"noteByLine": {"1": null}})",
             R"({"smallCount": {"value": 1}})",
             R"({"countByFlag": {"t": 1}})",
             R"({"scalars": {"aDouble": "0x10"}})",
             R"json({"updateMask": "a(b,c)"})json",
             R"({"createdAt": "72-01-01T10:00:20Z"})",
             R"({"createdAt": "9999-12-31T23:59:59-01:00"})",
             R"({"createdAt": "1972-01-01T10:00:20.1234567891Z"})",
             R"({"timeToLive": "+1s"})",
             R"({"steps": {}})",
         }) {
        read_with_protobuf(orders(), "acme.Order", lenient);
        refusal(lenient, /*protobuf_refuses_too=*/false);
    }
    // null for a repeated Value field leaves it empty, as for any field; protobuf 3.21 reads it as
    // a single value, a list of one NULL_VALUE.
    EXPECT_EQ(read_with_protobuf(orders(), "acme.Order", R"({"extras": null})")->ShortDebugString(),
              "extras { null_value: NULL_VALUE }");
    EXPECT_EQ(read_with_skiff(orders(), "acme.Order", {{"extras", nullptr}})->ShortDebugString(),
              "");
}

TEST(ProtobufFromJson, NestingIsBounded) {
    // Messages inside messages: a value kProtobufJsonMaxDepth keys below the top is read (the
    // innermost "value" of 64 nodes), one more level is refused.
    const auto nested_nodes = [](size_t levels) {
        nlohmann::json value = {{"value", 1}};
        for (size_t i = 1; i < levels; ++i)
            value = {{"value", 1}, {"next", std::move(value)}};
        return value;
    };
    expect_same_as_protobuf(nested_nodes(kProtobufJsonMaxDepth).dump(), "acme.Node");
    auto node = orders().make("acme.Node");
    const auto too_deep = protobuf_from_json(nested_nodes(kProtobufJsonMaxDepth + 1), *node);
    ASSERT_FALSE(too_deep);
    EXPECT_NE(too_deep.error().find("nested deeper than 64 levels"), std::string::npos)
        << too_deep.error();
    EXPECT_EQ(too_deep.error().rfind("next.next.next", 0), 0U) << too_deep.error();

    // A Value of arrays in arrays, far deeper than any bound: refused, and without recursing
    // through all of it.
    nlohmann::json arrays = nlohmann::json::array();
    for (int i = 0; i < 100000; ++i)
        arrays = nlohmann::json::array({std::move(arrays)});
    const nlohmann::json order = {{"extra", std::move(arrays)}};
    auto message = orders().make("acme.Order");
    const auto read = protobuf_from_json(order, *message);
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().find("nested deeper than"), std::string::npos) << read.error();
}

TEST(ProtobufFromJson, Proto2RequiredFieldsClosedEnumsAndExtensions) {
    expect_same_as_protobuf(R"({"id": 1, "kind": "KIND_B", "child": {"id": 2, "kind": 1}})",
                            "legacy.Record", legacy());
    // A missing required field, at the top or inside.
    EXPECT_EQ(refusal(R"({"kind": "KIND_A"})", true, "legacy.Record", legacy()),
              "missing required fields: id");
    EXPECT_EQ(refusal(R"({"id": 1, "child": {}})", true, "legacy.Record", legacy()),
              "missing required fields: child.id");
    // A closed enum takes only the numbers it declares (protobuf keeps others as unknown fields).
    EXPECT_EQ(refusal(R"({"id": 1, "kind": 5})", false, "legacy.Record", legacy()),
              "kind: no value numbered 5 in legacy.Record.Kind");
    // Extensions by the key the printer writes for them.
    auto record = read_with_skiff(
        legacy(), "legacy.Record",
        nlohmann::json::parse(R"({"id": 1, "[legacy.note]": "n", "[legacy.linked]": {"id": 2}})"));
    EXPECT_EQ(record->ShortDebugString(), R"(id: 1 [legacy.note]: "n" [legacy.linked] { id: 2 })");
    EXPECT_EQ(
        protobuf_to_json(*record),
        nlohmann::json::parse(R"({"id": 1, "[legacy.note]": "n", "[legacy.linked]": {"id": 2}})"));
    refusal(R"({"id": 1, "[legacy.nope]": 1})", true, "legacy.Record", legacy());
}

}  // namespace
}  // namespace skiff::broker::console
