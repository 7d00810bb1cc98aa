// The _schemas key and value codec on its own: exact bytes written, and what is read back.
#include "broker/schema_registry/schema_records.h"

#include <gtest/gtest.h>

namespace skiff::schema_registry {
namespace {

TEST(SchemaRecords, KeysHaveConfluentsFieldsOrderAndMagic) {
    EXPECT_EQ(encode_key(schema_key("s", 3)),
              R"({"keytype":"SCHEMA","subject":"s","version":3,"magic":1})");
    EXPECT_EQ(encode_key(config_key(std::nullopt)), R"({"keytype":"CONFIG","magic":0})");
    EXPECT_EQ(encode_key(config_key("s")), R"({"keytype":"CONFIG","subject":"s","magic":0})");
    EXPECT_EQ(encode_key(mode_key(std::nullopt)), R"({"keytype":"MODE","magic":0})");
    EXPECT_EQ(encode_key(delete_subject_key("s")),
              R"({"keytype":"DELETE_SUBJECT","subject":"s","magic":0})");
    EXPECT_EQ(encode_key(clear_subject_key("s")),
              R"({"keytype":"CLEAR_SUBJECT","subject":"s","magic":0})");
    EXPECT_EQ(encode_key(RecordKey{RecordKind::kNoop, std::nullopt, 0}),
              R"({"keytype":"NOOP","magic":0})");
}

TEST(SchemaRecords, KeysReadBack) {
    for (const RecordKey& key :
         {schema_key("a b", 7), config_key(std::nullopt), config_key("s"), mode_key("s"),
          delete_subject_key("s"), clear_subject_key(std::nullopt)}) {
        std::optional<RecordKey> back = decode_key(encode_key(key));
        ASSERT_TRUE(back);
        EXPECT_EQ(back->kind, key.kind);
        EXPECT_EQ(back->subject, key.subject);
        EXPECT_EQ(back->version, key.version);
    }
    EXPECT_FALSE(decode_key(R"({"keytype":"SCHEMA","subject":"s","version":"1","magic":1})"));
    EXPECT_FALSE(decode_key(R"({"keytype":"SCHEMA","version":1,"magic":1})"));
    EXPECT_FALSE(decode_key(R"({"keytype":"OTHER","magic":0})"));
    EXPECT_FALSE(decode_key(R"(["keytype"])"));
    EXPECT_FALSE(decode_key(""));
}

TEST(SchemaRecords, SchemaValuesLeaveOutWhatIsEmpty) {
    SchemaVersion v;
    v.subject = "s";
    v.version = 2;
    v.id = 5;
    v.schema = "\"string\"";
    EXPECT_EQ(encode_schema_value(v),
              R"({"subject":"s","version":2,"id":5,"schema":"\"string\"","deleted":false})");
    v.schema_type = "PROTOBUF";
    v.references = {{"a.proto", "a", 1}};
    v.deleted = true;
    EXPECT_EQ(
        encode_schema_value(v),
        R"({"subject":"s","version":2,"id":5,"schemaType":"PROTOBUF","references":[{"name":"a.proto","subject":"a","version":1}],"schema":"\"string\"","deleted":true})");
}

TEST(SchemaRecords, OtherValues) {
    EXPECT_EQ(encode_config_value(std::nullopt, CompatibilityLevel::kFullTransitive),
              R"({"compatibilityLevel":"FULL_TRANSITIVE"})");
    EXPECT_EQ(encode_config_value("s", CompatibilityLevel::kNone),
              R"({"subject":"s","compatibilityLevel":"NONE"})");
    EXPECT_EQ(encode_mode_value("s", RegistryMode::kImport), R"({"subject":"s","mode":"IMPORT"})");
    EXPECT_EQ(encode_delete_subject_value("s", 4), R"({"subject":"s","version":4})");
    EXPECT_EQ(encode_clear_subject_value(std::nullopt), "{}");
}

TEST(SchemaRecords, ApplyingRecordsChangesTheState) {
    RegistryState state;
    SchemaVersion v;
    v.subject = "s";
    v.version = 1;
    v.id = 3;
    v.schema = "x";
    EXPECT_EQ(apply_record(state, encode_key(schema_key("s", 1)), encode_schema_value(v)),
              ApplyOutcome::kApplied);
    EXPECT_EQ(state.max_id(), 3);
    EXPECT_TRUE(state.has_live_version_with_id("s", 3));
    EXPECT_EQ(apply_record(state, encode_key(delete_subject_key("s")),
                           encode_delete_subject_value("s", 1)),
              ApplyOutcome::kApplied);
    EXPECT_FALSE(state.has_subject("s", false));
    EXPECT_TRUE(state.has_subject("s", true));
    EXPECT_EQ(apply_record(state, encode_key(clear_subject_key(std::nullopt)),
                           encode_clear_subject_value(std::nullopt)),
              ApplyOutcome::kApplied);
    EXPECT_FALSE(state.has_subject("s", true));
    EXPECT_EQ(state.schema_by_id(3), nullptr);
    EXPECT_EQ(state.max_id(), 3);  // an id once seen stays taken
}

}  // namespace
}  // namespace skiff::schema_registry
