// Shared by the broker/control tests: a real Broker over a temporary log dir (the handler tests'
// fixture), and helpers that write records, read a partition back byte for byte and commit
// offsets straight through the broker's components.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/broker/handlers/handler_fixture.h"

namespace skiff::broker::test {

class ControlTest : public HandlerTest {
  protected:
    // Appends one batch of `count` records to topic-partition, returns its base offset.
    int64_t append(const std::string& topic, int32_t partition, int count,
                   const std::string& prefix = "v") {
        auto* log = broker().logs().get({topic, partition});
        EXPECT_NE(log, nullptr) << topic << "-" << partition;
        if (!log)
            return -1;
        auto batch = make_batch(count, {}, prefix);
        auto summaries = protocol::validate_batches(batch);
        EXPECT_TRUE(summaries.has_value());
        auto appended = log->append(batch, *summaries);
        EXPECT_TRUE(appended.has_value()) << appended.error().message;
        return appended ? appended->base_offset : -1;
    }

    // Every byte of the partition from its log start to its high watermark.
    std::vector<std::byte> contents(const std::string& topic, int32_t partition) {
        std::vector<std::byte> out;
        auto* log = broker().logs().get({topic, partition});
        if (!log)
            return out;
        int64_t offset = log->log_start_offset();
        while (offset < log->high_watermark()) {
            auto read = log->read(offset, 1 << 20, true);
            EXPECT_TRUE(read.has_value());
            if (!read || read->next_offset <= offset)
                break;
            for (const auto& s : read->slices) {
                const size_t at = out.size();
                out.resize(at + static_cast<size_t>(s.length));
                EXPECT_EQ(::pread(s.fd, out.data() + at, static_cast<size_t>(s.length),
                                  static_cast<off_t>(s.position)),
                          s.length);
            }
            offset = read->next_offset;
        }
        return out;
    }

    void commit(const std::string& group, const std::string& topic, int32_t partition,
                int64_t offset) {
        // A simple commit (generation -1) creates the empty group, as OffsetCommit does.
        ASSERT_EQ(broker().groups().validate_commit(group, -1, "", std::nullopt), ErrorCode::none);
        group::GroupOffsets offsets;
        offsets[{topic, partition}].offset = offset;
        auto committed = broker().groups().offsets().commit(group, offsets);
        ASSERT_TRUE(committed.has_value()) << committed.error();
    }

    std::optional<int64_t> committed(const std::string& group, const std::string& topic,
                                     int32_t partition) {
        auto c = broker().groups().offsets().get(group, {topic, partition});
        if (!c)
            return std::nullopt;
        return c->offset;
    }

    // The user topics (not the broker's internal ones), by name.
    std::vector<std::string> user_topics() {
        std::vector<std::string> out;
        for (const auto& t : broker().topics().list())
            if (!t.name.starts_with("__") && t.name != "_schemas")
                out.push_back(t.name);
        return out;
    }

    std::vector<std::string> partition_dirs() {
        std::vector<std::string> out;
        for (const auto& entry : fs::directory_iterator(broker().logs().log_dir()))
            if (entry.is_directory() &&
                storage::parse_partition_dir_name(entry.path().filename().string()))
                out.push_back(entry.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
};

}  // namespace skiff::broker::test
