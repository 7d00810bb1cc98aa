#include "broker/quotas/client_quota_store.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "broker/security/scram.h"
#include "storage/durable_file.h"

namespace skiff::broker::quotas {
namespace {

std::string name_field(const std::optional<EntityName>& n) {
    if (!n)
        return "-";
    if (n->is_default)
        return "*";
    return "=" + security::base64_encode(n->name);
}

// nullopt: not a name field; otherwise the optional<EntityName> it stands for.
std::optional<std::optional<EntityName>> parse_name_field(const std::string& field) {
    if (field == "-")
        return std::optional<EntityName>();
    if (field == "*")
        return std::optional<EntityName>(EntityName::default_name());
    if (field.size() < 2 || field[0] != '=')
        return std::nullopt;
    auto name = security::base64_decode(std::string_view(field).substr(1));
    if (!name || name->empty())
        return std::nullopt;
    return std::optional<EntityName>(EntityName::named(std::move(*name)));
}

}  // namespace

std::string serialize_quotas(const QuotaMap& quotas) {
    std::string out =
        "# skiff client quotas, written by AlterClientQuotas (docs/quotas.md). Do not edit while\n"
        "# the broker runs. Names: - none, * the default, =base64 a name.\n"
        "version 1\n";
    size_t lines = 0;
    char value[64];
    for (const auto& [entity, values] : quotas) {
        for (const auto& [key, v] : values) {
            std::snprintf(value, sizeof value, "%.17g", v);
            out += name_field(entity.user) + " " + name_field(entity.client_id) + " " + key + " " +
                   value + "\n";
            ++lines;
        }
    }
    out += "end " + std::to_string(lines) + "\n";
    return out;
}

Expected<QuotaMap, std::string> parse_quotas(const std::string& text) {
    QuotaMap quotas;
    std::istringstream in(text);
    std::string line;
    size_t number = 0, quota_lines = 0;
    bool version = false, ended = false;
    const auto bad = [&](const std::string& why) {
        return unexpected("line " + std::to_string(number) + ": " + why);
    };
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#')
            continue;
        if (ended)
            return bad("text after the end line");
        std::istringstream fields(line);
        std::vector<std::string> f;
        for (std::string w; fields >> w;)
            f.push_back(w);
        if (!version) {
            if (f.size() != 2 || f[0] != "version" || f[1] != "1")
                return bad("expected \"version 1\"");
            version = true;
            continue;
        }
        if (f.size() == 2 && f[0] == "end") {
            if (f[1] != std::to_string(quota_lines))
                return bad("the end line counts " + f[1] + " quotas, the file has " +
                           std::to_string(quota_lines));
            ended = true;
            continue;
        }
        if (f.size() != 4)
            return bad("expected <user> <client-id> <key> <value>");
        auto user = parse_name_field(f[0]);
        auto client = parse_name_field(f[1]);
        if (!user || !client || (!*user && !*client))
            return bad("bad entity");
        QuotaEntity entity{*user, *client};
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(f[3].c_str(), &end);
        if (errno != 0 || end != f[3].c_str() + f[3].size())
            return bad("bad value " + f[3]);
        if (auto wrong = check_quota_value(f[2], value))
            return bad(wrong->message);
        if (!quotas[entity].emplace(f[2], value).second)
            return bad("a quota given twice");
        ++quota_lines;
    }
    if (!version || !ended)
        return unexpected(std::string("the file ends without its end line (truncated?)"));
    return quotas;
}

Expected<std::unique_ptr<ClientQuotaStore>, std::string> ClientQuotaStore::open(
    const std::filesystem::path& log_dir, ClientQuotaManager& manager) {
    const auto file = log_dir / kClientQuotasFileName;
    QuotaMap quotas;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        if (!in.good() && !in.eof())
            return unexpected(file.string() + ": cannot be read");
        auto parsed = parse_quotas(text.str());
        if (!parsed)
            return unexpected(file.string() + ": " + parsed.error());
        quotas = std::move(*parsed);
    }
    manager.set_quotas(quotas);
    return std::unique_ptr<ClientQuotaStore>(
        new ClientQuotaStore(file, manager, std::move(quotas)));
}

QuotaMap ClientQuotaStore::snapshot() const {
    std::lock_guard lock(mutex_);
    return quotas_;
}

Expected<void, std::string> ClientQuotaStore::apply(const std::vector<QuotaChange>& changes) {
    std::lock_guard lock(mutex_);
    QuotaMap next = quotas_;
    for (const auto& change : changes) {
        if (change.value) {
            next[change.entity][change.key] = *change.value;
        } else if (auto it = next.find(change.entity); it != next.end()) {
            it->second.erase(change.key);
            if (it->second.empty())
                next.erase(it);
        }
    }
    return store(std::move(next));
}

Expected<void, std::string> ClientQuotaStore::replace_all(QuotaMap quotas) {
    std::lock_guard lock(mutex_);
    return store(std::move(quotas));
}

Expected<void, std::string> ClientQuotaStore::store(QuotaMap next) {
    if (next == quotas_)
        return {};
    if (auto written = storage::write_file_atomically(file_, serialize_quotas(next)); !written)
        return unexpected(file_.string() + ": " + written.error().message);
    quotas_ = std::move(next);
    manager_.set_quotas(quotas_);
    return {};
}

}  // namespace skiff::broker::quotas
