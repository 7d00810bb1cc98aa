// The users' SCRAM credentials (KIP-554's model: per user, per mechanism, salt, StoredKey,
// ServerKey and iterations; never a password), kept durably in the data directory.
//
// On disk: <log.dir>/scram-credentials, mode 0600, written by `skiff user` and, later, by
// AlterUserScramCredentials. The name follows the log dir's other metadata files
// (meta.properties, recovery-point-offset-checkpoint, topic-configs/) rather than Kafka's "__"
// prefix, which names internal topics; it is a file, so the partition scan never looks at it.
// Text, one credential a line, every field that could hold any byte in base64:
//
//     # skiff SCRAM credentials ...                   comment lines: ignored
//     version 1
//     <user base64> SCRAM-SHA-256 <iterations> <salt base64> <StoredKey base64> <ServerKey base64>
//     ...
//     end <number of credential lines>
//
// Written atomically: scram-credentials.tmp (created afresh, 0600), fsync, rename over the old
// file, fsync of the directory; a crash leaves the old file or the new one, and a leftover .tmp is
// ignored (and replaced by the next write). A file that does not parse exactly (unknown version,
// bad field, keys of the wrong size, iterations out of range, a duplicate, the end line missing or
// wrong) is refused with an error naming the file and line: starting with no users would lock
// everyone out, or, once authorization exists, let the wrong people in.
//
// Thread-safety: every member function may be called from any thread. Lookups take a shared lock
// and copy the credential out; changes are serialized, written to disk, and only then made
// visible. Two processes writing the same file (`skiff user` while a broker changes users) are not
// coordinated: run `skiff user` with the broker stopped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "broker/security/scram.h"
#include "protocol/expected.h"

namespace skiff::broker::security {

inline constexpr const char* kScramCredentialsFileName = "scram-credentials";

struct CredentialStoreError {
    std::string message;
};

// What `skiff user list` and DescribeUserScramCredentials show: no secrets.
struct ScramUserInfo {
    std::string user;
    std::vector<std::pair<ScramMechanism, int32_t>> mechanisms;  // with their iterations
};

class CredentialStore {
  public:
    // Loads <log_dir>/scram-credentials. No file (or no directory yet) is an empty store; a file
    // that does not parse is an error.
    static Expected<std::unique_ptr<CredentialStore>, CredentialStoreError> open(
        const std::filesystem::path& log_dir);

    // The credential of `user` for `mechanism`, or nullopt.
    std::optional<ScramCredential> lookup(const std::string& user, ScramMechanism mechanism) const;
    // A lookup callback for ScramServerExchange. It refers to this store, which must outlive it.
    ScramCredentialLookup lookup_for(ScramMechanism mechanism) const;

    // Adds or replaces the user's credential for `mechanism`, durably.
    Expected<void, CredentialStoreError> set(const std::string& user, ScramMechanism mechanism,
                                             ScramCredential credential);
    // The same for several mechanisms in one write: all of them or none.
    Expected<void, CredentialStoreError> set(
        const std::string& user,
        const std::vector<std::pair<ScramMechanism, ScramCredential>>& credentials);
    // Removes one mechanism's credential (the user goes when it has none left); false when there
    // was none.
    Expected<bool, CredentialStoreError> remove(const std::string& user, ScramMechanism mechanism);
    // Removes every credential of the user; false when the user had none.
    Expected<bool, CredentialStoreError> remove_user(const std::string& user);

    // Several users' changes in one write, all or none (AlterUserScramCredentials): a change with
    // a credential adds or replaces it, one without removes it (nothing when there is none). A
    // user left with no credential goes.
    struct Change {
        std::string user;
        ScramMechanism mechanism;
        std::optional<ScramCredential> credential;
    };
    Expected<void, CredentialStoreError> apply(const std::vector<Change>& changes);

    // Every user, sorted by name, with their mechanisms.
    std::vector<ScramUserInfo> list() const;
    size_t user_count() const;

    const std::filesystem::path& file() const { return file_; }

    // The file's text for these users (exposed for tests).
    using Users = std::map<std::string, std::map<ScramMechanism, ScramCredential>>;
    static std::string serialize(const Users& users);
    // Parses the text; `name` is used in error messages.
    static Expected<Users, CredentialStoreError> parse(const std::string& text,
                                                       const std::string& name);

  private:
    explicit CredentialStore(std::filesystem::path file, Users users)
        : file_(std::move(file)), users_(std::move(users)) {}
    // Writes `next` to disk and then makes it the current set. Caller holds write_mutex_.
    Expected<void, CredentialStoreError> commit(Users next);

    std::filesystem::path file_;
    std::mutex write_mutex_;  // one change at a time, from copy to commit
    mutable std::shared_mutex mutex_;
    Users users_;
};

}  // namespace skiff::broker::security
