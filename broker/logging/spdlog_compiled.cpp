// spdlog's and fmt's compiled parts, built from their Debian headers into skiff itself.
//
// skiff uses spdlog as a compiled library (SPDLOG_COMPILED_LIB: its headers declare, this file
// defines), the way Debian's libspdlog.so is built, but Debian ships spdlog and fmt as shared
// libraries only. Defining them here lets the one set of object files link both ways: the skiff
// binary, and skiff-static for the FROM scratch image (broker/CMakeLists.txt), which therefore
// costs a link instead of a second compile of the broker. Header-only spdlog, the other way to a
// static binary, made every translation unit that logs 30% slower to compile (26 s against 20 s
// for one unity batch of the broker, 2026-12-06).
//
// What is here is what skiff's objects leave undefined: fmt's formatting core with the
// floating-point and locale functions its templates name, and spdlog's logger, registry, pattern
// formatter and the colour console sink the default logger writes to.

#include <fmt/format-inl.h>

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/spdlog-inl.h>

#include <mutex>

#include <spdlog/details/null_mutex.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE

// The sink base every sink with a mutex builds on (tests log to an ostream_sink through it).
template class spdlog::sinks::base_sink<std::mutex>;
template class spdlog::sinks::base_sink<spdlog::details::null_mutex>;
