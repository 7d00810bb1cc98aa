// HandlerTest with a group's configs changed and read through their real handlers
// (IncrementalAlterConfigs and DescribeConfigs on a GROUP resource), for the tests of each
// group type whose members take their timing from them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "handler_fixture.h"

namespace skiff::broker::test {

class GroupConfigTest : public HandlerTest {
  protected:
    protocol::IncrementalAlterConfigsResponse alter_group(const std::string& name,
                                                          std::optional<std::string> value,
                                                          int8_t op = protocol::kConfigOpSet,
                                                          const std::string& group = "g") {
        protocol::IncrementalAlterConfigsRequest req;
        protocol::IncrementalAlterConfigsResource res;
        res.resource_type = protocol::kResourceTypeGroup;
        res.resource_name = group;
        protocol::AlterableConfigOp c;
        c.name = name;
        c.config_operation = op;
        c.value = std::move(value);
        res.configs.push_back(c);
        req.resources.push_back(res);
        return run(handle_incremental_alter_configs, req, 1);
    }
    // Each name's value and config source (GROUP_CONFIG 8, DEFAULT_CONFIG 5).
    std::map<std::string, std::pair<std::string, int8_t>> describe_group(
        const std::string& group = "g") {
        protocol::DescribeConfigsRequest req;
        protocol::DescribeConfigsResource res;
        res.resource_type = protocol::kResourceTypeGroup;
        res.resource_name = group;
        req.resources.push_back(res);
        auto resp = run(handle_describe_configs, req, 4);
        std::map<std::string, std::pair<std::string, int8_t>> out;
        EXPECT_EQ(resp.results.size(), 1u);
        for (const auto& c : resp.results.at(0).configs)
            out[c.name] = {c.value.value_or(""), c.config_source};
        return out;
    }
};

}  // namespace skiff::broker::test
