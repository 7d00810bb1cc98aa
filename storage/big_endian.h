// Big-endian load/store for the on-disk index entries and batch headers: the same encoding as
// the wire, so storage uses protocol/'s one implementation.
#pragma once

#include "protocol/wire.h"

namespace skiff::storage {

using protocol::wire::load_be;
using protocol::wire::store_be;

}  // namespace skiff::storage
