#pragma once
/// @file sanitizer.hpp
/// @brief kAddressSanitizer: whether this test binary is built with AddressSanitizer (gcc or clang), for the few
/// tests that scale a stress size down under it.

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif
