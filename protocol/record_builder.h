// Builds uncompressed record batch v2 byte strings (layout in record_batch.h and
// record_iterator.h), with a correct CRC-32C. For tests, fuzz seeds and tools; producers build
// their own batches and the broker stores them verbatim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::protocol {

struct RecordSpec {
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
    int64_t timestamp_delta = 0;
};

struct BatchSpec {
    int64_t base_offset = 0;
    int64_t base_timestamp = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    int16_t attributes = 0;  // compression bits are written as given; records stay uncompressed
};

std::vector<std::byte> build_record_batch(const BatchSpec& batch,
                                          const std::vector<RecordSpec>& records);

}  // namespace skiff::protocol
