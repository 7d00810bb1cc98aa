// Small files that must survive a power cut whole: meta.properties, the offset checkpoints,
// partition.metadata, producer snapshots, the ACL and credential stores, topic overrides,
// dynamic broker configs, the producer-id block, the clean-shutdown marker.
//
// A rename is atomic but not durable by itself: without an fsync of the new file before it, a
// power cut can leave the new name on a 0-byte or partly written file (the rename's metadata
// reached the journal, the data did not); without an fsync of the directory after it, the old
// file can come back. write_file_atomically does both, so every caller gets the guarantee
// "the old content or the new one, never anything else" without having to remember it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "protocol/expected.h"
#include "storage/storage_error.h"

namespace skiff::storage {

// Replaces `file` with `bytes`: <file>.tmp created afresh with `mode` (a leftover one from an
// earlier crash is removed first), written, fsynced, renamed over `file`, then the directory
// fsynced. On failure `file` is untouched; a .tmp may be left behind (load_log and the stores
// ignore or remove it).
Expected<void, StorageError> write_file_atomically(const std::filesystem::path& file,
                                                   std::string_view bytes, mode_t mode = 0644);

// fsync of a directory: makes the creation, rename or removal of its entries durable.
Expected<void, StorageError> fsync_directory(const std::filesystem::path& dir);

// Removes `file` (absent is fine) and fsyncs its directory, so the removal survives a power
// cut (the clean-shutdown marker must not come back after the broker started).
Expected<void, StorageError> remove_file_durably(const std::filesystem::path& file);

}  // namespace skiff::storage
