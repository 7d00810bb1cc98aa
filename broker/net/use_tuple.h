// The completion token of every co_await on a socket or timer in the broker: the error comes back
// as a value in a tuple instead of an exception, because a closed peer, a cancelled timer or an
// aborted read are ordinary outcomes on these paths, not failures.
#pragma once

#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>

namespace skiff::broker {

inline constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);

}  // namespace skiff::broker
