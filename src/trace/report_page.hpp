#pragma once
/// @file report_page.hpp
/// @brief The HTML, CSS and JavaScript of slab-report's page (private to the trace layer).

#include <string_view>

namespace slab::detail {

/// The whole page; the report's data (JSON) replaces the one "/*SLAB_REPORT_DATA*/" in it.
std::string_view report_page();

}  // namespace slab::detail
