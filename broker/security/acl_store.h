// The ACL bindings of the broker, kept in one file of the data directory (`acl-bindings`) and in
// memory. Every change rewrites the whole file atomically (temporary file, fsync, rename, fsync
// of the directory) before it is visible, so an acknowledged CreateAcls / DeleteAcls survives a
// crash. Format, one record per line, fields separated by tabs (\\, \t, \n and \r escaped):
//     skiff-acl-bindings	1
//     TOPIC	PREFIXED	orders-	User:alice	*	WRITE	ALLOW
//     end	1
// The trailer's count guards against a truncated copy; a file that does not parse is refused at
// start with its path, line and reason. Safe to use from any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "broker/security/acl.h"

namespace skiff::broker::security {

inline constexpr const char* kAclBindingsFile = "acl-bindings";

// The file's text for `bindings`, and back. parse_acl_bindings throws std::runtime_error naming
// `source`, the line and what is wrong.
std::string format_acl_bindings(const std::set<AclBinding>& bindings);
std::set<AclBinding> parse_acl_bindings(const std::string& text, const std::string& source);

class AclStore {
  public:
    // Reads `file` if it exists (a missing file: no ACLs). Throws std::runtime_error when it is
    // corrupt or unreadable.
    explicit AclStore(std::filesystem::path file);

    // Adds the bindings (already valid: invalid_binding_reason) not yet present and rewrites the
    // file. On a write failure nothing changes and the error is returned.
    std::optional<std::string> add(const std::vector<AclBinding>& bindings);

    // Removes every binding that matches one of the filters and rewrites the file; per filter,
    // the bindings it matched. On a write failure nothing changes and the error is returned.
    struct Removed {
        std::vector<std::vector<AclBinding>> per_filter;
        std::optional<std::string> error;
    };
    Removed remove(const std::vector<AclBindingFilter>& filters);

    std::vector<AclBinding> list(const AclBindingFilter& filter) const;
    std::vector<AclBinding> all() const;

    // Calls f(binding) for every binding while holding the read lock (for the authorizer).
    template <class F>
    void for_each(F&& f) const {
        std::shared_lock lock(mutex_);
        for (const auto& b : bindings_)
            f(b);
    }

  private:
    std::optional<std::string> write(const std::set<AclBinding>& bindings);

    std::filesystem::path file_;
    mutable std::shared_mutex mutex_;
    std::set<AclBinding> bindings_;
};

}  // namespace skiff::broker::security
