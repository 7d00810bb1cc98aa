#include "broker/net/spawn.h"

namespace skiff::broker {

bool log_task_failure(const std::string& what, const std::exception_ptr& e) {
    if (!e)
        return false;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        spdlog::error("{} failed: {}", what, ex.what());
    } catch (...) {
        spdlog::error("{} failed with an exception of unknown type", what);
    }
    return true;
}

}  // namespace skiff::broker
