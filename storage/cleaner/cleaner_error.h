// The cleaner's errors: a StorageError from a code and a message, shared by its files (one
// definition, so they can be compiled in one unity translation unit).
#pragma once

#include <string>
#include <utility>

#include "storage/storage_error.h"

namespace skiff::storage::cleaner {

inline StorageError error(StorageErrc code, std::string message) {
    return StorageError{code, std::move(message)};
}

}  // namespace skiff::storage::cleaner
