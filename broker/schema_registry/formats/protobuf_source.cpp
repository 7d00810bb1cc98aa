#include "broker/schema_registry/formats/protobuf_source.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <array>

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Collects the tokenizer's and parser's errors; their line and column numbers are zero-based.
class TextErrors final : public gp::io::ErrorCollector {
  public:
    void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
        if (!text_.empty())
            text_ += "; ";
        text_ += std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
    }
    const std::string& text() const { return text_; }

  private:
    std::string text_;
};

std::optional<ProtoSource> read_text(std::string_view text, std::string& error) {
    ProtoSource source;
    source.locations = std::make_unique<gp::compiler::SourceLocationTable>();
    gp::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
    TextErrors errors;
    gp::io::Tokenizer tokenizer(&input, &errors);
    // The parser logs a warning for every schema without a `syntax` line (proto2 is the
    // default, as in Confluent's registry); a broker's log is no place for that.
    gp::LogSilencer quiet;
    gp::compiler::Parser parser;
    parser.RecordErrorsTo(&errors);
    parser.RecordSourceLocationsTo(source.locations.get());
    if (!parser.Parse(&tokenizer, &source.file) || !errors.text().empty()) {
        error = errors.text().empty() ? "the text is not a .proto file" : errors.text();
        return std::nullopt;
    }
    return source;
}

std::optional<ProtoSource> read_serialized_descriptor(std::string_view text) {
    auto bytes = base64_decode(text);
    if (!bytes || bytes->empty())
        return std::nullopt;
    ProtoSource source;
    if (!source.file.ParseFromString(*bytes))
        return std::nullopt;
    source.from_serialized_descriptor = true;
    return source;
}

}  // namespace

SourceOutcome read_proto_source(std::string_view text) {
    std::string error;
    if (auto source = read_text(text, error))
        return {std::move(source), {}};
    if (auto source = read_serialized_descriptor(text))
        return {std::move(source), {}};
    return {std::nullopt, error};
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        uint32_t group =
            (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6)
            out += kBase64Alphabet[(group >> shift) & 63];
    }
    const size_t rest = bytes.size() - i;
    if (rest > 0) {
        uint32_t group = uint8_t(bytes[i]) << 16;
        if (rest == 2)
            group |= uint8_t(bytes[i + 1]) << 8;
        out += kBase64Alphabet[(group >> 18) & 63];
        out += kBase64Alphabet[(group >> 12) & 63];
        out += rest == 2 ? kBase64Alphabet[(group >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0)
        return std::nullopt;
    std::array<int, 256> value{};
    value.fill(-1);
    for (size_t i = 0; i < kBase64Alphabet.size(); ++i)
        value[uint8_t(kBase64Alphabet[i])] = static_cast<int>(i);
    size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=')
        ++padding;
    std::string out;
    out.reserve(text.size() / 4 * 3);
    uint32_t group = 0;
    int bits = 0;
    for (size_t i = 0; i < text.size() - padding; ++i) {
        const int v = value[uint8_t(text[i])];
        if (v < 0)
            return std::nullopt;
        group = (group << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char((group >> bits) & 0xFF);
        }
    }
    // Leftover bits must be zero padding, or the text was not written by an encoder.
    if ((group & ((1u << bits) - 1)) != 0)
        return std::nullopt;
    return out;
}

}  // namespace skiff::schema_registry::protobuf
