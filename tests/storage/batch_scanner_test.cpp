// BatchScanner reads chunks ahead while batches are small and only headers once they are large;
// either way it must find every batch at its exact position, and stop at a torn tail.
#include <gtest/gtest.h>

#include "storage/log_file.h"
#include "tests/storage/test_batches.h"

namespace skiff::storage {
namespace {

using test::TempDir;

// Batches of these sizes back to back in one file; returns their positions.
std::vector<int64_t> write_batches(const std::filesystem::path& file,
                                   const std::vector<size_t>& sizes,
                                   std::vector<std::byte>* tail = nullptr) {
    std::vector<std::byte> bytes;
    std::vector<int64_t> positions;
    for (size_t size : sizes) {
        positions.push_back(static_cast<int64_t>(bytes.size()));
        auto batch = test::make_batch(3, size);
        bytes.insert(bytes.end(), batch.begin(), batch.end());
    }
    if (tail)
        bytes.insert(bytes.end(), tail->begin(), tail->end());
    test::write_file(file, bytes);
    return positions;
}

std::vector<int64_t> scan(const LogFile& file, int64_t end, bool with_body,
                          std::string* problem = nullptr) {
    BatchScanner scanner(file, 0, end);
    std::vector<int64_t> found;
    for (;;) {
        auto step = scanner.next(with_body);
        EXPECT_TRUE(step.has_value());
        if (!step || !step->batch) {
            if (step && problem)
                *problem = step->problem;
            return found;
        }
        found.push_back(step->batch->position);
        if (with_body)
            EXPECT_EQ(static_cast<int64_t>(step->batch->bytes.size()),
                      static_cast<int64_t>(step->batch->header.size_bytes()));
    }
}

// Small batches (read ahead in chunks), large ones (header reads), and the switches between
// them, including a small batch right after a large one and a large batch inside a chunk.
TEST(BatchScannerTest, FindsEveryBatchWhateverTheMixOfSizes) {
    TempDir dir;
    const auto path = dir.path() / "mixed.log";
    const std::vector<size_t> sizes = {100,   200,   70 * 1024, 95,  150,     20 * 1024,
                                       16383, 16384, 300,       120, 1 << 20, 110};
    auto positions = write_batches(path, sizes);
    auto file = LogFile::open(path, false);
    ASSERT_TRUE(file);
    const auto end = static_cast<int64_t>(std::filesystem::file_size(path));
    EXPECT_EQ(scan(**file, end, false), positions);
    EXPECT_EQ(scan(**file, end, true), positions);
}

TEST(BatchScannerTest, StopsAtATornTailAfterALargeBatch) {
    TempDir dir;
    const auto path = dir.path() / "torn.log";
    auto torn = test::make_batch(3, 5000);
    torn.resize(2000);  // the write stopped part-way through
    auto positions = write_batches(path, {100, 300 * 1024, 200}, &torn);
    auto file = LogFile::open(path, false);
    ASSERT_TRUE(file);
    const auto end = static_cast<int64_t>(std::filesystem::file_size(path));
    for (bool with_body : {false, true}) {
        std::string problem;
        EXPECT_EQ(scan(**file, end, with_body, &problem), positions);
        EXPECT_FALSE(problem.empty());
    }
}

}  // namespace
}  // namespace skiff::storage
