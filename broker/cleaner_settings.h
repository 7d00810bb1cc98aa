// The broker's log.cleaner.* settings as the storage cleaner takes them.
#pragma once

#include "config/broker_config.h"
#include "storage/cleaner/cleaner_manager.h"

namespace skiff::broker {

// log.cleaner.dedupe.buffer.size, log.cleaner.io.buffer.size and
// log.cleaner.io.max.bytes.per.second are shared by all cleaner threads, as in Kafka: each thread
// gets its share (Kafka divides the buffers the same way; its I/O limit is one throttler for all
// threads, an even split here). on_failure is left to the caller.
storage::CleanerSettings cleaner_settings_from(const config::BrokerConfig& config);

}  // namespace skiff::broker
