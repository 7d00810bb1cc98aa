// The client quotas set with AlterClientQuotas, kept durably in the data directory so that they
// hold after a restart (Kafka keeps them in its metadata log).
//
// On disk: <log.dir>/client-quotas, text, one quota a line, the names in base64 (a client id
// may hold any character):
//
//     # skiff client quotas ...                     comment lines: ignored
//     version 1
//     <user> <client-id> <key> <value>               each name: - (none), * (default), =<base64>
//     ...
//     end <number of quota lines>
//
// Written with write_file_atomically (temporary file, fsync, rename, directory fsync). A file
// that does not parse exactly is refused at start with the file and line: starting without the
// quotas an operator set would let every client run unthrottled without anyone noticing.
//
// Thread-safety: every member function may be called from any thread; changes are serialized,
// written to disk and only then made visible (to the ClientQuotaManager too).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "broker/quotas/client_quota_manager.h"
#include "broker/quotas/quota_entity.h"
#include "protocol/expected.h"

namespace skiff::broker::quotas {

inline constexpr const char* kClientQuotasFileName = "client-quotas";

// One key of one entity to set (value) or remove (nullopt).
struct QuotaChange {
    QuotaEntity entity;
    std::string key;
    std::optional<double> value;
};

class ClientQuotaStore {
  public:
    // Loads <log_dir>/client-quotas (none: no quotas) and hands them to `manager`, which must
    // outlive the store.
    static Expected<std::unique_ptr<ClientQuotaStore>, std::string> open(
        const std::filesystem::path& log_dir, ClientQuotaManager& manager);

    QuotaMap snapshot() const;
    // Applies every change in one durable write, all or none; an entity left without keys goes.
    Expected<void, std::string> apply(const std::vector<QuotaChange>& changes);
    // Replaces every quota in one durable write (the control API's reset and snapshot restore).
    Expected<void, std::string> replace_all(QuotaMap quotas);

  private:
    // Writes `next` durably and makes it the quotas in force; the caller holds mutex_.
    Expected<void, std::string> store(QuotaMap next);

    ClientQuotaStore(std::filesystem::path file, ClientQuotaManager& manager, QuotaMap quotas)
        : file_(std::move(file)), manager_(manager), quotas_(std::move(quotas)) {}

    const std::filesystem::path file_;
    ClientQuotaManager& manager_;
    mutable std::mutex mutex_;
    QuotaMap quotas_;
};

// The file's text for `quotas`, and back (exposed for the tests).
std::string serialize_quotas(const QuotaMap& quotas);
Expected<QuotaMap, std::string> parse_quotas(const std::string& text);

}  // namespace skiff::broker::quotas
