#include "config/listener.h"

#include <gtest/gtest.h>

namespace skiff::config {
namespace {

std::vector<Listener> parse_ok(std::string_view text) {
    auto listeners = parse_listeners(text);
    EXPECT_TRUE(listeners.has_value()) << listeners.error();
    return listeners ? *listeners : std::vector<Listener>{};
}

std::string parse_error(std::string_view text) {
    auto listeners = parse_listeners(text);
    EXPECT_FALSE(listeners.has_value()) << text;
    return listeners ? "" : listeners.error();
}

TEST(Listeners, ParsesHostAndPort) {
    const auto listeners = parse_ok("PLAINTEXT://127.0.0.1:9092");
    ASSERT_EQ(listeners.size(), 1u);
    EXPECT_EQ(listeners[0], (Listener{"PLAINTEXT", "127.0.0.1", 9092}));
    EXPECT_EQ(listeners[0].to_string(), "PLAINTEXT://127.0.0.1:9092");
}

TEST(Listeners, ParsesAListWithWhitespaceAndHostnames) {
    const auto listeners =
        parse_ok(" INTERNAL://broker-1.example.com:9093 , external://localhost:9094");
    ASSERT_EQ(listeners.size(), 2u);
    EXPECT_EQ(listeners[0], (Listener{"INTERNAL", "broker-1.example.com", 9093}));
    EXPECT_EQ(listeners[1], (Listener{"EXTERNAL", "localhost", 9094}));  // names are upper-cased
}

TEST(Listeners, EmptyHostMeansAllInterfaces) {
    const auto listeners = parse_ok("PLAINTEXT://:9092");
    ASSERT_EQ(listeners.size(), 1u);
    EXPECT_EQ(listeners[0].host, "0.0.0.0");
}

TEST(Listeners, Ipv6InBrackets) {
    const auto listeners = parse_ok("PLAINTEXT://[::1]:9092,OTHER://[fe80::1%eth0]:9093");
    ASSERT_EQ(listeners.size(), 2u);
    EXPECT_EQ(listeners[0].host, "::1");
    EXPECT_EQ(listeners[0].to_string(), "PLAINTEXT://[::1]:9092");
    EXPECT_EQ(listeners[1].host, "fe80::1%eth0");
}

TEST(Listeners, PortZeroIsEphemeralAndMayRepeat) {
    const auto listeners = parse_ok("A://127.0.0.1:0,B://127.0.0.1:0");
    ASSERT_EQ(listeners.size(), 2u);
    EXPECT_EQ(listeners[0].port, 0);
    EXPECT_EQ(listeners[1].port, 0);
}

TEST(Listeners, PortBounds) {
    EXPECT_EQ(parse_ok("PLAINTEXT://h:65535")[0].port, 65535);
    EXPECT_NE(parse_error("PLAINTEXT://h:65536").find("port between 0 and 65535"),
              std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://h:-1").find("port"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://h:").find("port"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://h:90x").find("port"), std::string::npos);
}

TEST(Listeners, RejectsMalformedEntries) {
    EXPECT_NE(parse_error("127.0.0.1:9092").find("has no \"://\""), std::string::npos);
    EXPECT_NE(parse_error("://h:1").find("name"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://h").find(":port"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://::1:9092").find("brackets"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://[::1:9092").find("']'"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://[::1]9092").find(":port"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://[host]:9092").find("IPv6"), std::string::npos);
    EXPECT_NE(parse_error("PLAINTEXT://h/x:1").find("host"), std::string::npos);
    EXPECT_NE(parse_error("").find("empty"), std::string::npos);
    EXPECT_NE(parse_error("A://h:1,,B://h:2").find("empty entry"), std::string::npos);
}

TEST(Listeners, EveryErrorStatesTheSyntax) {
    EXPECT_EQ(parse_error("nonsense").rfind("expected NAME://host:port", 0), 0u);
}

TEST(Listeners, RejectsDuplicateNamesAndPorts) {
    EXPECT_NE(parse_error("A://h:1,a://h:2").find("repeats the listener name A"),
              std::string::npos);
    EXPECT_NE(parse_error("A://h:1,B://h:1").find("repeats port 1"), std::string::npos);
}

TEST(Listeners, ProtocolNamesParseAsAnyName) {
    // The protocol comes from listener.security.protocol.map, not from parsing the entry.
    const auto listeners = parse_ok("SSL://h:1,sasl_ssl://h:2");
    EXPECT_EQ(listeners[0].name, "SSL");
    EXPECT_EQ(listeners[1].name, "SASL_SSL");
}

TEST(SecurityProtocolMap, KafkasDefault) {
    const auto map = parse_security_protocol_map(kDefaultSecurityProtocolMap);
    ASSERT_TRUE(map) << map.error();
    EXPECT_EQ(*map, (SecurityProtocolMap{{"PLAINTEXT", SecurityProtocol::plaintext},
                                         {"SSL", SecurityProtocol::ssl},
                                         {"SASL_PLAINTEXT", SecurityProtocol::sasl_plaintext},
                                         {"SASL_SSL", SecurityProtocol::sasl_ssl}}));
}

TEST(SecurityProtocolMap, CaseInsensitiveWithWhitespaceAndEmpty) {
    const auto map = parse_security_protocol_map(" internal : plaintext , External:SSL ");
    ASSERT_TRUE(map) << map.error();
    EXPECT_EQ(*map, (SecurityProtocolMap{{"INTERNAL", SecurityProtocol::plaintext},
                                         {"EXTERNAL", SecurityProtocol::ssl}}));
    const auto empty = parse_security_protocol_map("");
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(SecurityProtocolMap, Errors) {
    auto error = [](std::string_view text) {
        auto map = parse_security_protocol_map(text);
        EXPECT_FALSE(map) << text;
        return map ? std::string() : map.error();
    };
    EXPECT_NE(error("A").find("has no ':'"), std::string::npos);
    EXPECT_NE(error("A:TLS").find("unknown security protocol"), std::string::npos);
    EXPECT_NE(error(":PLAINTEXT").find("needs a name"), std::string::npos);
    EXPECT_NE(error("A:PLAINTEXT,,B:SSL").find("empty entry"), std::string::npos);
    EXPECT_NE(error("A:PLAINTEXT,a:SSL").find("repeats the listener name A"), std::string::npos);
}

TEST(SecurityProtocolMap, OnlyMappedPlaintextAndSaslPlaintextListenersPass) {
    const auto map = *parse_security_protocol_map("A:PLAINTEXT,B:SSL,C:SASL_PLAINTEXT,D:SASL_SSL");
    EXPECT_TRUE(check_listener_protocols(parse_ok("A://h:1"), map));
    EXPECT_TRUE(check_listener_protocols(parse_ok("A://h:1,C://h:2"), map));
    auto error = [&](std::string_view listeners) {
        auto ok = check_listener_protocols(parse_ok(listeners), map);
        EXPECT_FALSE(ok) << listeners;
        return ok ? std::string() : ok.error();
    };
    EXPECT_NE(error("A://h:1,E://h:2").find("(E is not; add E:PLAINTEXT"), std::string::npos);
    for (const char* protocol : {"SSL", "SASL_SSL"}) {
        const std::string name = protocol == std::string_view("SSL") ? "B" : "D";
        EXPECT_NE(error(name + "://h:2")
                      .find("listener " + name + " uses security protocol " + protocol +
                            ", which needs the broker's key and certificate"),
                  std::string::npos)
            << protocol;
        EXPECT_TRUE(check_listener_protocols(parse_ok(name + "://h:2"), map, true)) << protocol;
    }
}

TEST(SaslMechanisms, OnlyTheServedOnesInKafkasNames) {
    EXPECT_FALSE(sasl_mechanisms_problem("PLAIN, SCRAM-SHA-256,SCRAM-SHA-512"));
    EXPECT_EQ(split_comma_list(" PLAIN, SCRAM-SHA-512 ,"),
              (std::vector<std::string>{"PLAIN", "SCRAM-SHA-512"}));
    EXPECT_TRUE(sasl_mechanisms_problem(""));
    EXPECT_TRUE(sasl_mechanisms_problem("plain"));  // Kafka's names are upper case
    EXPECT_NE(sasl_mechanisms_problem("PLAIN,OAUTHBEARER")->find("OAUTHBEARER is not served"),
              std::string::npos);
}

TEST(EffectiveAdvertised, SameNameElseTheListenerItself) {
    const auto listeners = parse_ok("A://:9092,B://[::]:9093,C://10.0.0.5:0,D://127.0.0.1:0");
    const auto advertised = parse_ok("D://localhost:19094,B://b.example:0,X://x:1");
    EXPECT_EQ(listeners_to_string(effective_advertised(listeners, advertised)),
              "A://127.0.0.1:9092,B://b.example:0,C://10.0.0.5:0,D://localhost:19094");
    EXPECT_EQ(listeners_to_string(effective_advertised(listeners, {})),
              "A://127.0.0.1:9092,B://[::1]:9093,C://10.0.0.5:0,D://127.0.0.1:0");
}

TEST(Listeners, RoundTrip) {
    const std::string text = "PLAINTEXT://0.0.0.0:9092,V6://[::]:0";
    EXPECT_EQ(listeners_to_string(parse_ok(text)), text);
}

}  // namespace
}  // namespace skiff::config
