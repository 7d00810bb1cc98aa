#include "broker/security/acl_store.h"

#include <charconv>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "storage/durable_file.h"

namespace skiff::broker::security {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAclFileMagic = "skiff-acl-bindings";
constexpr std::string_view kAclFileVersion = "1";
constexpr std::string_view kAclFileTrailer = "end";

void append_acl_field(std::string& out, std::string_view value) {
    for (char c : value) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                out += c;
        }
    }
}

// Splits a line at tabs and undoes the escapes; nullopt for a dangling or unknown escape.
std::optional<std::vector<std::string>> split_acl_line(std::string_view line) {
    std::vector<std::string> fields(1);
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '\t') {
            fields.emplace_back();
        } else if (c == '\\') {
            if (++i == line.size())
                return std::nullopt;
            switch (line[i]) {
                case '\\':
                    fields.back() += '\\';
                    break;
                case 't':
                    fields.back() += '\t';
                    break;
                case 'n':
                    fields.back() += '\n';
                    break;
                case 'r':
                    fields.back() += '\r';
                    break;
                default:
                    return std::nullopt;
            }
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

}  // namespace

std::string format_acl_bindings(const std::set<AclBinding>& bindings) {
    std::string out;
    out += kAclFileMagic;
    out += '\t';
    out += kAclFileVersion;
    out += '\n';
    for (const auto& b : bindings) {
        out += name_of(b.resource_type);
        out += '\t';
        out += name_of(b.pattern_type);
        out += '\t';
        append_acl_field(out, b.resource_name);
        out += '\t';
        append_acl_field(out, b.principal);
        out += '\t';
        append_acl_field(out, b.host);
        out += '\t';
        out += name_of(b.operation);
        out += '\t';
        out += name_of(b.permission);
        out += '\n';
    }
    out += kAclFileTrailer;
    out += '\t';
    out += std::to_string(bindings.size());
    out += '\n';
    return out;
}

std::set<AclBinding> parse_acl_bindings(const std::string& text, const std::string& source) {
    std::set<AclBinding> bindings;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    auto corrupt = [&](const std::string& why) {
        return std::runtime_error("the ACL file " + source + " is corrupt (line " +
                                  std::to_string(number) + ": " + why +
                                  "); restore it from a backup or remove it to start without ACLs");
    };
    bool trailer = false;
    size_t records = 0;
    while (std::getline(in, line)) {
        ++number;
        if (trailer)
            throw corrupt("text after the end line");
        auto fields = split_acl_line(line);
        if (!fields)
            throw corrupt("bad escape");
        if (number == 1) {
            if (fields->size() != 2 || (*fields)[0] != kAclFileMagic)
                throw corrupt("not an ACL file");
            if ((*fields)[1] != kAclFileVersion)
                throw corrupt("unsupported version " + (*fields)[1]);
            continue;
        }
        if ((*fields)[0] == kAclFileTrailer) {
            size_t count = 0;
            const std::string& n = fields->size() == 2 ? (*fields)[1] : std::string();
            auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
            if (fields->size() != 2 || ec != std::errc() || end != n.data() + n.size())
                throw corrupt("malformed end line");
            if (count != records)
                throw corrupt("end line counts " + std::to_string(count) + " bindings, found " +
                              std::to_string(records));
            trailer = true;
            continue;
        }
        if (fields->size() != 7)
            throw corrupt("expected 7 fields, found " + std::to_string(fields->size()));
        const auto& f = *fields;
        AclBinding b;
        auto type = parse_resource_type(f[0]);
        auto pattern = parse_pattern_type(f[1]);
        auto op = parse_acl_operation(f[5]);
        auto permission = parse_acl_permission(f[6]);
        if (!type || !pattern || !op || !permission)
            throw corrupt("unknown resource type, pattern type, operation or permission");
        b.resource_type = *type;
        b.pattern_type = *pattern;
        b.resource_name = f[2];
        b.principal = f[3];
        b.host = f[4];
        b.operation = *op;
        b.permission = *permission;
        if (auto why = invalid_binding_reason(b))
            throw corrupt(*why);
        bindings.insert(std::move(b));
        ++records;
    }
    if (number == 0)
        throw corrupt("empty file");
    if (!trailer)
        throw corrupt("no end line: the file is truncated");
    return bindings;
}

AclStore::AclStore(fs::path file) : file_(std::move(file)) {
    std::error_code ec;
    if (!fs::exists(file_, ec))
        return;
    std::ifstream in(file_, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read the ACL file " + file_.string());
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw std::runtime_error("cannot read the ACL file " + file_.string());
    bindings_ = parse_acl_bindings(text.str(), file_.string());
}

std::optional<std::string> AclStore::write(const std::set<AclBinding>& bindings) {
    auto written = storage::write_file_atomically(file_, format_acl_bindings(bindings));
    if (!written)
        return "cannot write the ACL file: " + written.error().message;
    return std::nullopt;
}

std::optional<std::string> AclStore::add(const std::vector<AclBinding>& bindings) {
    std::unique_lock lock(mutex_);
    auto next = bindings_;
    next.insert(bindings.begin(), bindings.end());
    if (next.size() == bindings_.size())
        return std::nullopt;  // all present already: nothing to write
    if (auto error = write(next))
        return error;
    bindings_ = std::move(next);
    return std::nullopt;
}

AclStore::Removed AclStore::remove(const std::vector<AclBindingFilter>& filters) {
    Removed out;
    std::unique_lock lock(mutex_);
    auto next = bindings_;
    for (const auto& filter : filters) {
        auto& matched = out.per_filter.emplace_back();
        for (const auto& b : bindings_)
            if (filter.matches(b)) {
                matched.push_back(b);
                next.erase(b);
            }
    }
    if (next.size() == bindings_.size())
        return out;
    if (auto error = write(next)) {
        out.error = std::move(error);
        return out;
    }
    bindings_ = std::move(next);
    return out;
}

std::vector<AclBinding> AclStore::list(const AclBindingFilter& filter) const {
    std::shared_lock lock(mutex_);
    std::vector<AclBinding> out;
    for (const auto& b : bindings_)
        if (filter.matches(b))
            out.push_back(b);
    return out;
}

std::vector<AclBinding> AclStore::all() const {
    std::shared_lock lock(mutex_);
    return {bindings_.begin(), bindings_.end()};
}

}  // namespace skiff::broker::security
