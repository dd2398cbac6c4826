#pragma once
/// @file replace_file.hpp
/// @brief Write a whole file so that it is complete or absent (private to the trace layer).

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace slab::detail {

/**
 * @brief Call `write` with a stream on `path`.tmp, then rename that over `path`. On any failure the temporary
 * is removed and nothing is left at `path` that looks complete.
 * @throws IoError "cannot write <what> '<path>'" or "cannot move <what> into place at '<path>': why".
 */
void replace_file(const std::string& path, std::string_view what, const std::function<void(std::ostream&)>& write);

}  // namespace slab::detail
