// The canonical text of PROTOBUF schemas: what Confluent stores as canonicalString() and, with
// normalize, its normalized form. Two registrations with the same canonical text share an id.
#include "broker/schema_registry/formats/schema_format.h"

#include <gtest/gtest.h>

namespace skiff::schema_registry {
namespace {

std::string canonical(std::string_view text, bool normalize = false) {
    auto outcome = protobuf_format().parse(text, {}, normalize);
    EXPECT_TRUE(outcome.schema) << outcome.error;
    return outcome.schema ? outcome.schema->canonical() : "";
}

TEST(ProtobufCanonical, WhitespaceAndCommentsDoNotChangeIt) {
    const char* compact =
        "syntax=\"proto3\";package p;message A{string a=1;int32 b=2;oneof o{int64 c=3;}}";
    const char* spread = R"(
        // The file's comment.
        syntax = "proto3";

        package p;   /* a block comment */

        message A {
            string a = 1;  // trailing
            int32  b = 2;
            oneof o {
                int64 c = 3;
            }
        }
    )";
    EXPECT_EQ(canonical(compact), canonical(spread));
    EXPECT_EQ(canonical(compact, true), canonical(spread, true));
}

TEST(ProtobufCanonical, ItIsAFixedPointOfParsing) {
    const char* schemas[] = {
        R"(syntax = "proto3"; package acme.v1;
           import "google/protobuf/timestamp.proto";
           option java_package = "com.acme"; option go_package = "acme/v1";
           message Person {
             reserved 5, 9 to 11, 100 to max; reserved "old";
             string name = 1 [json_name = "fullName"];
             int32 id = 2 [deprecated = true];
             optional string email = 3;
             map<string, Phone> phones = 4;
             google.protobuf.Timestamp updated = 6;
             oneof contact { string mail = 12; int64 pager = 13; }
             message Phone { string number = 1; Kind kind = 2; }
             enum Kind { option allow_alias = true; MOBILE = 0; HOME = 1; HOUSE = 1; }
           }
           message Empty {}
           enum Status { reserved 5 to 7; UNKNOWN = 0; ACTIVE = 1 [deprecated = true]; }
           service People {
             rpc Get (Person) returns (stream Person);
             rpc Put (Person) returns (Empty) { option deprecated = true; }
           })",
        R"(syntax = "proto2"; package p; import "google/protobuf/descriptor.proto";
           extend google.protobuf.FieldOptions { optional string tag = 50000;
                                                 optional Meta meta = 50001; }
           message Meta { optional string doc = 1; repeated string tags = 2; }
           message M {
             required int32 a = 1 [default = 5, (tag) = "x",
                                   (meta) = { doc: "d" tags: "a" tags: "b" }];
             optional string s = 2 [default = "a\"b"];
             optional bytes b = 3 [default = "\001x"];
             optional group G = 4 { optional int32 x = 1; }
             extensions 100 to 199, 300;
           }
           extend M { optional int32 ext = 100;
                      optional group Extra = 101 { optional int32 y = 1; } })",
    };
    for (const char* schema : schemas) {
        for (bool normalize : {false, true}) {
            const std::string once = canonical(schema, normalize);
            EXPECT_EQ(canonical(once, normalize), once) << once;
        }
    }
}

TEST(ProtobufCanonical, MapsArePrintedAsMapsNotAsTheirEntryMessages) {
    const std::string text = canonical(R"(syntax = "proto3"; package p;
        message A { map<string, B> bs = 1; map<int32, string> names = 2; }
        message B {})");
    EXPECT_NE(text.find("  map<string, B> bs = 1;\n  map<int32, string> names = 2;\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("Entry"), std::string::npos) << text;
    EXPECT_NE(canonical(R"(syntax = "proto3"; package p;
        message A { map<string, B> bs = 1; } message B {})",
                        true)
                  .find("map<string, .p.B> bs = 1;"),
              std::string::npos);
}

TEST(ProtobufCanonical, WithoutNormalizeTheAuthorsOrderAndNamesStay) {
    EXPECT_NE(canonical("syntax = \"proto3\"; package p; message A { B b = 2; int32 a = 1; } "
                        "message B {}"),
              canonical("syntax = \"proto3\"; package p; message A { int32 a = 1; .p.B b = 2; } "
                        "message B {}"));
}

TEST(ProtobufCanonical, NormalizeOrdersFieldsAndQualifiesTypeNames) {
    const char* a = R"(syntax = "proto3"; package p;
        import "google/protobuf/timestamp.proto"; import "google/protobuf/duration.proto";
        message A {
            B b = 2; int32 a = 1; google.protobuf.Timestamp t = 3;
            oneof second { string y = 9; string x = 8; }
            oneof first { int32 z = 5; }
            reserved 20, 15; reserved "q";
        }
        message B { enum E { Z = 0; B = 2; A = 1; } E e = 1; })";
    const char* b = R"(syntax = "proto3"; package p;
        import "google/protobuf/duration.proto"; import "google/protobuf/timestamp.proto";
        message A {
            reserved "q"; reserved 15, 20;
            int32 a = 1; .p.B b = 2; .google.protobuf.Timestamp t = 3;
            oneof first { int32 z = 5; }
            oneof second { string x = 8; string y = 9; }
        }
        message B { enum E { Z = 0; A = 1; B = 2; } .p.B.E e = 1; })";
    EXPECT_NE(canonical(a), canonical(b));
    EXPECT_EQ(canonical(a, true), canonical(b, true));
    EXPECT_EQ(canonical(a, true),
              "syntax = \"proto3\";\n"
              "package p;\n"
              "\n"
              "import \"google/protobuf/duration.proto\";\n"
              "import \"google/protobuf/timestamp.proto\";\n"
              "\n"
              "message A {\n"
              "  reserved 15;\n"
              "  reserved 20;\n"
              "  reserved \"q\";\n"
              "\n"
              "  int32 a = 1;\n"
              "  .p.B b = 2;\n"
              "  .google.protobuf.Timestamp t = 3;\n"
              "\n"
              "  oneof first {\n"
              "    int32 z = 5;\n"
              "  }\n"
              "  oneof second {\n"
              "    string x = 8;\n"
              "    string y = 9;\n"
              "  }\n"
              "}\n"
              "message B {\n"
              "  .p.B.E e = 1;\n"
              "\n"
              "  enum E {\n"
              "    Z = 0;\n"
              "    A = 1;\n"
              "    B = 2;\n"
              "  }\n"
              "}\n");
}

TEST(ProtobufCanonical, NormalizeKeepsTheOrderOfMessagesForMessageIndexes) {
    const std::string text = canonical("syntax = \"proto3\"; message Z {} message A {}", true);
    EXPECT_LT(text.find("message Z"), text.find("message A")) << text;
}

TEST(ProtobufCanonical, OptionsAreSortedByNameInBothForms) {
    const char* a = R"(syntax = "proto3"; option java_package = "x"; option go_package = "y";
        message A { repeated int32 a = 1 [packed = true, deprecated = true]; })";
    const char* b = R"(syntax = "proto3"; option go_package = "y"; option java_package = "x";
        message A { repeated int32 a = 1 [deprecated = true, packed = true]; })";
    EXPECT_EQ(canonical(a), canonical(b));
    EXPECT_NE(canonical(a).find("option go_package = \"y\";\noption java_package = \"x\";"),
              std::string::npos);
}

TEST(ProtobufCanonical, NormalizeDropsTheDefaultProto2SyntaxLine) {
    EXPECT_EQ(canonical("syntax = \"proto2\"; message A { optional int32 a = 1; }", true),
              canonical("message A { optional int32 a = 1; }", true));
    // As Confluent prints it: the blank line that separates the types from the header stays.
    EXPECT_EQ(canonical("message A { optional int32 a = 1; }", true),
              "\nmessage A {\n  optional int32 a = 1;\n}\n");
}

TEST(ProtobufCanonical, Proto3OptionalIsALabelNotAOneof) {
    const std::string text = canonical("syntax = \"proto3\"; message A { optional int32 a = 1; }");
    EXPECT_EQ(text, "syntax = \"proto3\";\n\nmessage A {\n  optional int32 a = 1;\n}\n");
}

}  // namespace
}  // namespace skiff::schema_registry
