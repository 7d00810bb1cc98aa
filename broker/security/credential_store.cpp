#include "broker/security/credential_store.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "storage/durable_file.h"

namespace skiff::broker::security {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCredentialFileHeader =
    "# skiff SCRAM credentials: salted and hashed, never passwords. Written by `skiff user`;\n"
    "# do not edit: a file that does not parse is refused.\n";

// Through storage's write_file_atomically, created afresh with mode 0600: the file holds
// secrets, never readable by others even for a moment.
Expected<void, CredentialStoreError> write_credentials_atomically(const fs::path& file,
                                                                  const std::string& text) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
        return unexpected(CredentialStoreError{"create directory " + file.parent_path().string() +
                                               ": " + ec.message()});
    if (auto written = storage::write_file_atomically(file, text, 0600); !written)
        return unexpected(CredentialStoreError{written.error().message});
    return {};
}

std::vector<std::string_view> credential_line_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    size_t start = 0;
    while (start <= line.size()) {
        size_t space = line.find(' ', start);
        if (space == std::string_view::npos)
            space = line.size();
        fields.push_back(line.substr(start, space - start));
        start = space + 1;
    }
    return fields;
}

template <class T>
std::optional<T> credential_parse_number(std::string_view s) {
    T v{};
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
        return std::nullopt;
    return v;
}

}  // namespace

std::string CredentialStore::serialize(const Users& users) {
    std::string out = kCredentialFileHeader;
    out += "version 1\n";
    size_t count = 0;
    for (const auto& [user, mechanisms] : users) {
        for (const auto& [mechanism, c] : mechanisms) {
            out += base64_encode(user);
            out += ' ';
            out += scram_mechanism_name(mechanism);
            out += ' ';
            out += std::to_string(c.iterations);
            out += ' ';
            out += base64_encode(c.salt);
            out += ' ';
            out += base64_encode(c.stored_key);
            out += ' ';
            out += base64_encode(c.server_key);
            out += '\n';
            ++count;
        }
    }
    out += "end " + std::to_string(count) + "\n";
    return out;
}

Expected<CredentialStore::Users, CredentialStoreError> CredentialStore::parse(
    const std::string& text, const std::string& name) {
    Users users;
    size_t line_number = 0;
    auto corrupt = [&](const std::string& why) {
        return unexpected(CredentialStoreError{
            name + ":" + std::to_string(line_number) + ": " + why +
            " (the SCRAM credentials file is corrupt; restore it from a backup, or remove it and "
            "add the users again with `skiff user add`)"});
    };
    bool have_version = false;
    std::optional<size_t> end_count;
    size_t count = 0;
    size_t start = 0;
    while (start < text.size()) {
        size_t newline = text.find('\n', start);
        if (newline == std::string::npos) {
            ++line_number;
            return corrupt("last line not terminated");
        }
        const std::string_view line = std::string_view(text).substr(start, newline - start);
        start = newline + 1;
        ++line_number;
        if (line.starts_with("#"))
            continue;
        if (end_count)
            return corrupt("text after the end line");
        const auto fields = credential_line_fields(line);
        if (!have_version) {
            if (fields.size() != 2 || fields[0] != "version")
                return corrupt("expected 'version 1'");
            if (fields[1] != "1")
                return corrupt("unsupported version '" + std::string(fields[1]) + "'");
            have_version = true;
            continue;
        }
        if (fields.size() == 2 && fields[0] == "end") {
            end_count = credential_parse_number<size_t>(fields[1]);
            if (!end_count)
                return corrupt("bad end line");
            continue;
        }
        if (fields.size() != 6)
            return corrupt("expected 6 fields, found " + std::to_string(fields.size()));
        auto user = base64_decode(fields[0]);
        if (!user || user->empty())
            return corrupt("bad user name");
        auto mechanism = parse_scram_mechanism(fields[1]);
        if (!mechanism)
            return corrupt("unknown mechanism '" + std::string(fields[1]) + "'");
        auto iterations = credential_parse_number<int32_t>(fields[2]);
        if (!iterations || *iterations < kScramMinIterations || *iterations > kScramMaxIterations)
            return corrupt("iterations out of range");
        auto salt = base64_decode(fields[3]);
        auto stored_key = base64_decode(fields[4]);
        auto server_key = base64_decode(fields[5]);
        const size_t digest = scram_digest_size(*mechanism);
        if (!salt || salt->empty())
            return corrupt("bad salt");
        if (!stored_key || stored_key->size() != digest)
            return corrupt("bad stored key");
        if (!server_key || server_key->size() != digest)
            return corrupt("bad server key");
        auto& slot = users[*user];
        if (slot.contains(*mechanism))
            return corrupt("duplicate credential");
        slot[*mechanism] = ScramCredential{.salt = std::move(*salt),
                                           .stored_key = std::move(*stored_key),
                                           .server_key = std::move(*server_key),
                                           .iterations = *iterations};
        ++count;
    }
    if (!have_version)
        return corrupt("empty file (no version line)");
    if (!end_count)
        return corrupt("no end line (truncated?)");
    if (*end_count != count)
        return corrupt("end line counts " + std::to_string(*end_count) + " credentials, found " +
                       std::to_string(count));
    return users;
}

Expected<std::unique_ptr<CredentialStore>, CredentialStoreError> CredentialStore::open(
    const fs::path& log_dir) {
    fs::path file = log_dir / kScramCredentialsFileName;
    std::error_code ec;
    const bool present = fs::exists(file, ec);
    if (ec)
        return unexpected(CredentialStoreError{"stat " + file.string() + ": " + ec.message()});
    if (!present)
        return std::unique_ptr<CredentialStore>(new CredentialStore(std::move(file), {}));
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return unexpected(CredentialStoreError{"cannot open " + file.string()});
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return unexpected(CredentialStoreError{"read " + file.string() + " failed"});
    auto users = parse(text.str(), file.string());
    if (!users)
        return unexpected(std::move(users.error()));
    return std::unique_ptr<CredentialStore>(
        new CredentialStore(std::move(file), std::move(*users)));
}

std::optional<ScramCredential> CredentialStore::lookup(const std::string& user,
                                                       ScramMechanism mechanism) const {
    std::shared_lock lock(mutex_);
    auto it = users_.find(user);
    if (it == users_.end())
        return std::nullopt;
    auto m = it->second.find(mechanism);
    if (m == it->second.end())
        return std::nullopt;
    return m->second;
}

ScramCredentialLookup CredentialStore::lookup_for(ScramMechanism mechanism) const {
    return [this, mechanism](const std::string& user) { return lookup(user, mechanism); };
}

Expected<void, CredentialStoreError> CredentialStore::commit(Users next) {
    auto written = write_credentials_atomically(file_, serialize(next));
    if (!written)
        return written;
    std::unique_lock lock(mutex_);
    users_ = std::move(next);
    return {};
}

Expected<void, CredentialStoreError> CredentialStore::set(const std::string& user,
                                                          ScramMechanism mechanism,
                                                          ScramCredential credential) {
    std::vector<std::pair<ScramMechanism, ScramCredential>> one;
    one.emplace_back(mechanism, std::move(credential));
    return set(user, one);
}

Expected<void, CredentialStoreError> CredentialStore::set(
    const std::string& user,
    const std::vector<std::pair<ScramMechanism, ScramCredential>>& credentials) {
    if (user.empty())
        return unexpected(CredentialStoreError{"the user name is empty"});
    for (const auto& [mechanism, credential] : credentials) {
        if (credential.iterations < kScramMinIterations ||
            credential.iterations > kScramMaxIterations)
            return unexpected(CredentialStoreError{"iterations must be between " +
                                                   std::to_string(kScramMinIterations) + " and " +
                                                   std::to_string(kScramMaxIterations)});
        const size_t digest = scram_digest_size(mechanism);
        if (credential.salt.empty() || credential.stored_key.size() != digest ||
            credential.server_key.size() != digest)
            return unexpected(CredentialStoreError{"malformed credential for " +
                                                   std::string(scram_mechanism_name(mechanism))});
    }
    std::lock_guard write(write_mutex_);
    Users next;
    {
        std::shared_lock lock(mutex_);
        next = users_;
    }
    for (const auto& [mechanism, credential] : credentials)
        next[user][mechanism] = credential;
    return commit(std::move(next));
}

Expected<bool, CredentialStoreError> CredentialStore::remove(const std::string& user,
                                                             ScramMechanism mechanism) {
    std::lock_guard write(write_mutex_);
    Users next;
    {
        std::shared_lock lock(mutex_);
        next = users_;
    }
    auto it = next.find(user);
    if (it == next.end() || it->second.erase(mechanism) == 0)
        return false;
    if (it->second.empty())
        next.erase(it);
    auto committed = commit(std::move(next));
    if (!committed)
        return unexpected(std::move(committed.error()));
    return true;
}

Expected<bool, CredentialStoreError> CredentialStore::remove_user(const std::string& user) {
    std::lock_guard write(write_mutex_);
    Users next;
    {
        std::shared_lock lock(mutex_);
        next = users_;
    }
    if (next.erase(user) == 0)
        return false;
    auto committed = commit(std::move(next));
    if (!committed)
        return unexpected(std::move(committed.error()));
    return true;
}

Expected<void, CredentialStoreError> CredentialStore::apply(const std::vector<Change>& changes) {
    std::lock_guard write(write_mutex_);
    Users next;
    {
        std::shared_lock lock(mutex_);
        next = users_;
    }
    for (const auto& change : changes) {
        if (change.credential) {
            next[change.user][change.mechanism] = *change.credential;
            continue;
        }
        auto it = next.find(change.user);
        if (it == next.end())
            continue;
        it->second.erase(change.mechanism);
        if (it->second.empty())
            next.erase(it);
    }
    return commit(std::move(next));
}

std::vector<ScramUserInfo> CredentialStore::list() const {
    std::shared_lock lock(mutex_);
    std::vector<ScramUserInfo> out;
    out.reserve(users_.size());
    for (const auto& [user, mechanisms] : users_) {
        ScramUserInfo info{.user = user, .mechanisms = {}};
        for (const auto& [mechanism, c] : mechanisms)
            info.mechanisms.emplace_back(mechanism, c.iterations);
        out.push_back(std::move(info));
    }
    return out;
}

size_t CredentialStore::user_count() const {
    std::shared_lock lock(mutex_);
    return users_.size();
}

}  // namespace skiff::broker::security
